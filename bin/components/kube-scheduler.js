#!/usr/bin/env node
// Entrypoint of the built-in image for the kube-scheduler component (see src/cli/components.ts).
import { importModule } from '../compiled.js';

const { runComponentProcess } = await importModule('cli/run-component');
await runComponentProcess('kube-scheduler', process.argv.slice(2));
