import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { normalizeRef, openImageStore } from './images.ts';

describe('local image store', () => {
  const dir = mkdtempSync(join(tmpdir(), 'images-'));
  after(() => rmSync(dir, { recursive: true, force: true }));
  const program = join(dir, 'app.mjs');
  writeFileSync(program, 'console.log(1)\n');

  it('normalizes references: tag defaults to latest, invalid ones are named', () => {
    assert.equal(normalizeRef('example.com/team/app'), 'example.com/team/app:latest');
    assert.equal(normalizeRef('localhost:5000/app:1'), 'localhost:5000/app:1');
    assert.throws(() => normalizeRef('Bad Ref'), /image reference "Bad Ref" is not valid/);
  });
  it('imports, resolves (by tag or digest) and sees imports made by another process', () => {
    const a = openImageStore(join(dir, 'images'));
    const b = openImageStore(join(dir, 'images'));
    const rec = a.import('example.com/app', { entrypoint: program });
    assert.match(rec.digest, /^sha256:[0-9a-f]{64}$/);
    assert.equal(b.resolve('example.com/app:latest')?.entrypoint, program);
    assert.equal(b.resolve(`example.com/app@${rec.digest}`)?.ref, 'example.com/app:latest');
    assert.equal(b.resolve('example.com/other'), undefined);
    assert.equal(b.list().length, 1);
  });
  it('keeps the node flags an image runs with, and a change of them is a new record', () => {
    const s = openImageStore(join(dir, 'images'));
    s.import('example.com/flags:1', { entrypoint: program, nodeArgs: ['--jitless'] });
    assert.deepEqual(s.resolve('example.com/flags:1')?.nodeArgs, ['--jitless']);
    // The index is replaced by a rename when written: the same inode means it was not.
    const inode = statSync(join(dir, 'images', 'index.json')).ino;
    s.import('example.com/flags:1', { entrypoint: program, nodeArgs: ['--jitless'] });
    assert.equal(statSync(join(dir, 'images', 'index.json')).ino, inode, 'an unchanged image is not rewritten');
    s.import('example.com/flags:1', { entrypoint: program });
    assert.equal(s.resolve('example.com/flags:1')?.nodeArgs, undefined);
  });
  it('refuses an entrypoint that is not a file, naming it', () => {
    const s = openImageStore(join(dir, 'images'));
    assert.throws(() => s.import('x/y:1', { entrypoint: join(dir, 'missing.mjs') }), /entrypoint .*missing\.mjs is not a file/);
  });
});
