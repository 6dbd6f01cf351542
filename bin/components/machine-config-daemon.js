#!/usr/bin/env node
// Entrypoint of the built-in image for the machine-config-daemon component (see src/cli/components.ts).
import { importModule } from '../compiled.js';

const { runComponentProcess } = await importModule('cli/run-component');
await runComponentProcess('machine-config-daemon', process.argv.slice(2));
