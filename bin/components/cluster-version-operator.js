#!/usr/bin/env node
// Entrypoint of the built-in image for the cluster-version-operator component (see src/cli/components.ts).
import { register } from 'tsx/esm/api';

register();
const { runComponentProcess } = await import('../../src/cli/run-component.ts');
await runComponentProcess('cluster-version-operator', process.argv.slice(2));
