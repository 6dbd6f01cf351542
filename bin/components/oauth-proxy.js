#!/usr/bin/env node
// Entrypoint of the built-in image for the oauth-proxy component (see src/cli/components.ts).
import { importModule } from '../compiled.js';

const { runComponentProcess } = await importModule('cli/run-component');
await runComponentProcess('oauth-proxy', process.argv.slice(2));
