#!/usr/bin/env node
// Entrypoint of the built-in image for the machine-approver component (see src/cli/components.ts).
import { importModule } from '../compiled.js';

const { runComponentProcess } = await importModule('cli/run-component');
await runComponentProcess('machine-approver', process.argv.slice(2));
