// Runs Shipyard's compiled JavaScript (dist/, from `npm run build`) and never a stale build of it.
//
// The build (scripts/build.js) records what the sources were when it read them: how many files
// and the newest modification time. A launcher compares that with the sources now (a stat of
// each file under src/, a few ms): a file edited, added or removed since means the build is
// stale. A stale or missing dist/ is not an error: the launcher says so on stderr and runs the
// TypeScript sources through tsx's loader instead (correct code, more memory and a slower
// start), so an edit never runs old code and a half-finished edit elsewhere in the tree never
// stops a cluster from starting. `npm start`, `npm test` and `npm run bench` rebuild first when
// the build is stale.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

export const repoRoot = fileURLToPath(new URL('..', import.meta.url));
/** The build's record of the sources it read, in dist/. */
export const BUILD_STAMP = '.build.json';

/** Files of src/ that a build reads: everything but tests, their data (testdata/) and notes (*.md). */
export function isBuildInput(name) {
  return !/\.test\.[cm]?ts$|\.md$/.test(name);
}

/** How many files the build reads and the newest one's modification time, now. */
export function sourceState(root = repoRoot) {
  let count = 0;
  let newestMs = 0;
  let newest = '';
  const visit = (file) => {
    const ms = statSync(file).mtimeMs;
    count++;
    if (ms > newestMs) {
      newestMs = ms;
      newest = file;
    }
  };
  const walk = (dir) => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, e.name);
      if (e.isDirectory()) {
        if (e.name !== 'testdata') walk(path);
      } else if (isBuildInput(e.name)) visit(path);
    }
  };
  walk(join(root, 'src'));
  for (const config of ['tsconfig.json', 'tsconfig.build.json']) if (existsSync(join(root, config))) visit(join(root, config));
  return { count, newestMs, newest };
}

/** Why dist/ cannot be run as it is, or undefined when it is the build of the sources as they are. */
export function staleness(root = repoRoot) {
  const stampFile = join(root, 'dist', BUILD_STAMP);
  if (!existsSync(stampFile)) return 'dist/ is missing or incomplete';
  let stamp;
  try {
    stamp = JSON.parse(readFileSync(stampFile, 'utf8'));
  } catch {
    return 'dist/ has an unreadable build stamp';
  }
  const now = sourceState(root);
  if (now.newestMs > stamp.newestMs) return `dist/ is older than ${relative(root, now.newest)}`;
  if (now.count !== stamp.count) return `src/ has ${now.count > stamp.count ? 'gained' : 'lost'} files since dist/ was built`;
  return undefined;
}

/**
 * Imports `src/<module>.ts` as built (`dist/<module>.js`), or the source itself through tsx
 * when the build is stale or missing (said once on stderr).
 */
export async function importModule(module) {
  const why = staleness();
  if (why === undefined) return import(new URL(`../dist/${module}.js`, import.meta.url).href);
  process.stderr.write(`shipyard: ${why}; running the TypeScript sources through tsx (\`npm run build\` to run the compiled code)\n`);
  const { register } = await import('tsx/esm/api');
  register();
  return import(new URL(`../src/${module}.ts`, import.meta.url).href);
}
