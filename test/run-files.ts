/**
 * Runs test files in one process, one after another (test/all.test.ts runs them all; each lane
 * of `npm test`, test/lanes/, runs its share). Importing many test files into one process is
 * ~25× faster than one process per file on 2 cores (shared/reference/dependencies.md). Test
 * files are found, not listed, so a new `*.test.ts` beside its code runs without touching this
 * file. SHIPYARD_TEST_FILTER=<substring> narrows the run to matching paths.
 *
 * Each file runs as a suite named by its path, with a deadline: a test that hangs fails with
 * its name ("did not finish before its parent") when its file's time is up, and the files
 * after it still run. `--test-timeout` in package.json bounds the whole process (it also
 * covers a file whose import never finishes); `--test-force-exit` ends the process once the
 * last test has, whatever a test left open, and the last hook here names what that was.
 */
import { AsyncResource } from 'node:async_hooks';
import { readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { after, describe } from 'node:test';
import { fileURLToPath, pathToFileURL } from 'node:url';

export const root = fileURLToPath(new URL('..', import.meta.url));

function findUnder(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...findUnder(path));
    else if (entry.name.endsWith('.test.ts') && path !== join(root, 'test', 'all.test.ts')) out.push(path);
  }
  return out;
}

/** Every test file, as paths relative to the repository, sorted; narrowed by SHIPYARD_TEST_FILTER. */
export function findTestFiles(): string[] {
  const filter = process.env.SHIPYARD_TEST_FILTER;
  const files = [...findUnder(join(root, 'src')), ...findUnder(join(root, 'test'))].map((f) => relative(root, f)).sort();
  const chosen = files.filter((f) => !filter || f.includes(filter));
  // With no suite at all, Node 20's runner spins on the hook below instead of ending: say why and stop.
  if (chosen.length === 0) {
    console.error(`SHIPYARD_TEST_FILTER=${JSON.stringify(filter)} matches no test file (paths are relative to the repository, e.g. src/node or test/e2e/rbac)`);
    process.exit(1);
  }
  return chosen;
}

/**
 * A file's deadline, which its tests inherit as their own unless they set one. The slowest
 * files take ~12 s on 2 cores; the e2e files that start a whole datacenter take minutes and
 * give their suites 15 minutes themselves, which a shorter deadline here would cut short.
 */
const fileTimeoutMs = (path: string): number => (path.startsWith('test/e2e/') ? 16 * 60_000 : 3 * 60_000);

/** Declares one suite per file (paths relative to the repository); the runner starts them once the calling module has loaded. */
export function runTestFiles(paths: readonly string[]): void {
  // One file after another: imports side by side can evaluate each other's modules, and a
  // file's tests belong to the suite in whose (async) context its module is evaluated, so the
  // import runs in a scope made inside the file's suite. Not awaited here.
  let imported: Promise<void> = Promise.resolve();
  for (const path of paths) {
    const before = imported;
    imported = new Promise<void>((done) => {
      describe(path, { timeout: fileTimeoutMs(path) }, async () => {
        const scope = new AsyncResource('shipyard:test-file');
        try {
          await before;
          await scope.runInAsyncScope(() => import(pathToFileURL(join(root, path)).href));
        } finally {
          done();
        }
      });
    });
  }
  // A process with no suite must not have the hook either (see findTestFiles).
  if (paths.length === 0) return;

  // The lane stays up while its tests run, as the server a component runs in does: between two
  // awaits a test may wait only on something unref'd (the store's checkpoint thread), and a
  // lane of unit tests has nothing else; its event loop would empty and end the process, failing
  // every test after it ("Promise resolution is still pending but the event loop has already
  // resolved"). A test that never settles still fails by name, at its file's deadline.
  const keepAlive = setInterval(() => {}, 60_000);

  after(async () => {
    clearInterval(keepAlive);
    // A child that has just exited still lists its handle until libuv closes it, a turn of the
    // event loop after its 'exit' (a test's `await up.exited()` resumes before that).
    await new Promise((r) => setImmediate(r));
    // Handles the process holds besides its standard streams once every test has ended (not
    // requests in flight, such as a file's close).
    const left = process.getActiveResourcesInfo().filter((r) => r !== 'PipeWrap' && r !== 'TTYWrap' && !r.includes('Req'));
    if (left.length > 0) console.log(`# still open after the last test (--test-force-exit ends them): ${left.join(', ')}`);
  });
}
