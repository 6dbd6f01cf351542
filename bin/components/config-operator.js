#!/usr/bin/env node
// Entrypoint of the built-in image for the config-operator component (see src/cli/components.ts).
import { importModule } from '../compiled.js';

const { runComponentProcess } = await importModule('cli/run-component');
await runComponentProcess('config-operator', process.argv.slice(2));
