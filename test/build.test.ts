/**
 * The launchers' guard against stale builds (bin/compiled.js): dist/ runs only while it is
 * the build of src/ as it is now; an edited, added or removed source makes it stale, and files
 * the build does not read (tests, testdata, notes) do not.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { BUILD_STAMP, sourceState, staleness } from '../bin/compiled.js';

function tree(t: { after: (fn: () => void) => void }): { root: string; write: (path: string, ageS?: number) => void; build: () => void } {
  const root = mkdtempSync(join(tmpdir(), 'shipyard-build-'));
  t.after(() => rmSync(root, { recursive: true, force: true }));
  const write = (path: string, ageS = 100): void => {
    const file = join(root, path);
    mkdirSync(join(file, '..'), { recursive: true });
    writeFileSync(file, path);
    // Timestamps in the past, so an edit "now" is always newer whatever the clock's granularity.
    const at = new Date(Date.now() - ageS * 1000);
    utimesSync(file, at, at);
  };
  const build = (): void => {
    const s = sourceState(root);
    mkdirSync(join(root, 'dist'), { recursive: true });
    writeFileSync(join(root, 'dist', BUILD_STAMP), JSON.stringify({ count: s.count, newestMs: s.newestMs }));
  };
  for (const f of ['src/a.ts', 'src/sub/b.ts', 'src/release/payload/manifests/m.yaml', 'tsconfig.json']) write(f);
  return { root, write, build };
}

describe('stale build guard (bin/compiled.js)', () => {
  it('says a missing build is missing', (t) => {
    const { root } = tree(t);
    assert.match(staleness(root) ?? '', /missing/);
  });

  it('accepts the build of the sources as they are', (t) => {
    const { root, build } = tree(t);
    build();
    assert.equal(staleness(root), undefined);
  });

  it('names a source edited after the build', (t) => {
    const { root, write, build } = tree(t);
    build();
    write('src/sub/b.ts', 0);
    assert.match(staleness(root) ?? '', /older than src\/sub\/b\.ts/);
  });

  it('sees an asset the build copies (a payload manifest) edited after it', (t) => {
    const { root, write, build } = tree(t);
    build();
    write('src/release/payload/manifests/m.yaml', 0);
    assert.match(staleness(root) ?? '', /m\.yaml/);
  });

  it('sees a source added with an old timestamp, and one removed', (t) => {
    const { root, write, build } = tree(t);
    build();
    write('src/c.ts', 1000);
    assert.match(staleness(root) ?? '', /gained/);
    build();
    rmSync(join(root, 'src/c.ts'));
    assert.match(staleness(root) ?? '', /lost/);
  });

  it('ignores what the build does not read: tests, testdata, notes', (t) => {
    const { root, write, build } = tree(t);
    build();
    write('src/a.test.ts', 0);
    write('src/storage/testdata/crash-writer.ts', 0);
    write('src/sub/README.md', 0);
    assert.equal(staleness(root), undefined);
  });
});
