#!/usr/bin/env node
// The shipyard command: the compiled CLI (dist/, `npm run build`), or its sources through tsx
// when that build is stale or missing (see compiled.js).
import { importModule } from './compiled.js';

await importModule('cli/main');
