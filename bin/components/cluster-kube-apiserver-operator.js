#!/usr/bin/env node
// Entrypoint of the built-in image for the cluster-kube-apiserver-operator component (see src/cli/components.ts).
import { importModule } from '../compiled.js';

const { runComponentProcess } = await importModule('cli/run-component');
await runComponentProcess('cluster-kube-apiserver-operator', process.argv.slice(2));
