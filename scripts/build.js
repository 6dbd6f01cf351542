#!/usr/bin/env node
// `npm run build`: src/ compiled by tsc (tsconfig.build.json) into dist/, which is what
// bin/shipyard.js, the components' launchers (bin/components/) and so every pod run.
//
//   node scripts/build.js              build
//   node scripts/build.js --if-stale   build only when dist/ is missing or older than src/
//                                      (npm start, npm test and npm run bench run this first)
//
// tsc only transpiles here (`noCheck`): `npm run lint` is the type check, as it was when tsx
// ran the sources, so a type error elsewhere in the tree does not stop a build or a test run.
// Relative imports of `./x.ts` (dynamic ones too) become `./x.js` (rewriteRelativeImportExtensions).
//
// dist/ mirrors src/ (rootDir src), so a module that finds a file relative to its own URL
// finds it in dist/ as in src/: `../../bin/...` still leaves the tree at the same depth, and
// whatever src/ holds that is not TypeScript (the release payload's manifests and
// image-references; any such file added later) is copied beside the JavaScript. Tests and
// their testdata are not built: tests run from the sources.
//
// The build goes to a directory of its own, then replaces dist/ by renames, so a process
// starting meanwhile never sees half a build, and two builds at once (two `npm test`s in one
// tree) cannot interleave their files. Last, dist/.build.json records the sources as the build
// read them (bin/compiled.js compares them with the sources when a launcher starts).
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative } from 'node:path';
import { BUILD_STAMP, isBuildInput, repoRoot, sourceState, staleness } from '../bin/compiled.js';

const ifStale = process.argv.includes('--if-stale');
if (ifStale && staleness() === undefined) process.exit(0);

const started = performance.now();
// Read before tsc reads the files: an edit made during the build leaves it stale.
const state = sourceState();
const staging = join(repoRoot, `.dist-build-${process.pid}`);
rmSync(staging, { recursive: true, force: true });
try {
  const tsc = join(dirname(createRequire(import.meta.url).resolve('typescript/package.json')), 'bin', 'tsc');
  const r = spawnSync(process.execPath, [tsc, '-p', join(repoRoot, 'tsconfig.build.json'), '--outDir', staging], { cwd: repoRoot, stdio: 'inherit' });
  if (r.status !== 0) throw new Error(`tsc failed (${r.signal ?? `exit code ${r.status}`})`);

  const src = join(repoRoot, 'src');
  let assets = 0;
  const copyAssets = (dir) => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, e.name);
      if (e.isDirectory()) {
        if (e.name !== 'testdata') copyAssets(path);
      } else if (!/\.[cm]?ts$/.test(e.name) && isBuildInput(e.name)) {
        const to = join(staging, relative(src, path));
        mkdirSync(dirname(to), { recursive: true });
        copyFileSync(path, to);
        assets++;
      }
    }
  };
  copyAssets(src);
  writeFileSync(join(staging, BUILD_STAMP), `${JSON.stringify({ count: state.count, newestMs: state.newestMs, builtAt: new Date().toISOString() })}\n`);

  // dist/ → aside, the new build → dist/. Another build may slip its own in between: then set that aside too.
  const dist = join(repoRoot, 'dist');
  const aside = [];
  for (let attempt = 0; ; attempt++) {
    const old = join(repoRoot, `.dist-old-${process.pid}-${attempt}`);
    try {
      renameSync(dist, old);
      aside.push(old);
    } catch (err) {
      if (err.code !== 'ENOENT') throw err;
    }
    try {
      renameSync(staging, dist);
      break;
    } catch (err) {
      if ((err.code !== 'ENOTEMPTY' && err.code !== 'EEXIST') || attempt >= 5) throw err;
    }
  }
  for (const old of aside) rmSync(old, { recursive: true, force: true });
  process.stderr.write(`built dist/ (${state.count} source files, ${assets} assets) in ${((performance.now() - started) / 1000).toFixed(1)} s\n`);
} catch (err) {
  rmSync(staging, { recursive: true, force: true });
  process.stderr.write(`build: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
}
