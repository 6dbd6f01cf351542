#!/usr/bin/env node
// Entrypoint of the built-in image for the machine-api-operator component (see src/cli/components.ts).
import { importModule } from '../compiled.js';

const { runComponentProcess } = await importModule('cli/run-component');
await runComponentProcess('machine-api-operator', process.argv.slice(2));
