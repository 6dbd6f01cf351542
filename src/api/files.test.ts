import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { createFileOnce, writeFileAtomic } from './files.ts';

describe('files replaced whole', () => {
  const dir = mkdtempSync(join(tmpdir(), 'files-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('writeFileAtomic replaces a file by a rename: a new inode, the mode given, no temporary left', () => {
    const path = join(dir, 'kubeconfig');
    writeFileAtomic(path, 'one\n', 0o600);
    const first = statSync(path);
    writeFileAtomic(path, 'two\n', 0o600);
    assert.equal(readFileSync(path, 'utf8'), 'two\n');
    // A reader holding the old file keeps reading all of it: the new one is another inode.
    assert.notEqual(statSync(path).ino, first.ino);
    assert.equal(statSync(path).mode & 0o777, 0o600);
    assert.deepEqual(readdirSync(dir), ['kubeconfig']);
  });

  it('createFileOnce creates once; a second writer is told, and the first file stays', () => {
    const path = join(dir, 'tokens.csv');
    assert.equal(createFileOnce(path, 'first\n', 0o600), true);
    assert.equal(createFileOnce(path, 'second\n', 0o600), false);
    assert.equal(readFileSync(path, 'utf8'), 'first\n');
    assert.ok(!readdirSync(dir).some((f) => f.endsWith('.tmp')));
  });

  it('a failed write leaves neither the target nor a temporary', () => {
    assert.throws(() => writeFileAtomic(join(dir, 'missing-dir', 'x'), 'x'), /ENOENT/);
    assert.ok(!readdirSync(dir).some((f) => f.endsWith('.tmp')));
  });
});
