import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { criLine, logTail } from './logs.ts';

describe('logTail', () => {
  const dir = mkdtempSync(join(tmpdir(), 'log-tail-'));
  after(() => rmSync(dir, { recursive: true, force: true }));
  const write = (name: string, lines: string[]) => {
    const path = join(dir, name);
    writeFileSync(path, lines.map((l, i) => criLine(i % 2 ? 'stderr' : 'stdout', l)).join(''));
    return path;
  };

  it('gives the last lines without the CRI prefixes, both streams', () => {
    assert.equal(logTail(write('short.log', ['one', 'two', 'three'])), 'one\ntwo\nthree');
  });

  it('keeps at most maxLines lines, the last ones', () => {
    const lines = Array.from({ length: 200 }, (_, i) => `line ${i}`);
    const tail = logTail(write('long.log', lines));
    assert.deepEqual(tail.split('\n'), lines.slice(-80));
  });

  it('keeps at most maxBytes bytes, the end', () => {
    const tail = logTail(write('wide.log', ['x'.repeat(5000), 'the error']), { maxLines: 80, maxBytes: 100 });
    assert.equal(Buffer.byteLength(tail), 100);
    assert.ok(tail.endsWith('\nthe error'));
  });

  it('is empty for a missing or empty log', () => {
    assert.equal(logTail(join(dir, 'absent.log')), '');
    assert.equal(logTail(write('empty.log', [])), '');
  });
});
