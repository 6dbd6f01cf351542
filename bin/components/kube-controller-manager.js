#!/usr/bin/env node
// Entrypoint of the built-in image for the kube-controller-manager component (see src/cli/components.ts).
import { importModule } from '../compiled.js';

const { runComponentProcess } = await importModule('cli/run-component');
await runComponentProcess('kube-controller-manager', process.argv.slice(2));
