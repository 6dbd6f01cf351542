#!/usr/bin/env node
// Entrypoint of the built-in image for the config-operator component (see src/cli/components.ts).
import { register } from 'tsx/esm/api';

register();
const { runComponentProcess } = await import('../../src/cli/run-component.ts');
await runComponentProcess('config-operator', process.argv.slice(2));
