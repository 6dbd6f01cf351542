/** The audit log file: background appends, rotation by size, pruning by count and by age (a fake clock: names carry the time). */
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { RotatingFile } from './rotating-file.ts';

const START = Date.parse('2026-01-01T00:00:00Z');
const line = (i: number) => `${String(i).padStart(1023, 'x')}\n`; // 1 KiB each

function tempDir(t: { after(fn: () => void): void }): string {
  const dir = mkdtempSync(join(tmpdir(), 'shipyard-audit-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

describe('audit log file (rotating-file.ts)', () => {
  it('appends in order and rotates by size between lines, keeping maximumRetainedFiles', async (t) => {
    const dir = tempDir(t);
    let now = START;
    // 1/128 MiB = 8 KiB: eight lines per file.
    const file = new RotatingFile({ path: join(dir, 'audit.log'), maxSizeMegabytes: 1 / 128, maxBackups: 2, now: () => (now += 1000) });
    for (let i = 0; i < 40; i++) file.append(line(i));
    await file.close();
    const names = readdirSync(dir).sort();
    assert.deepEqual(names.length, 3, names.join(' '));
    assert.ok(names.includes('audit.log'));
    for (const n of names.filter((x) => x !== 'audit.log')) assert.match(n, /^audit-2026-01-01T00-00-\d\d\.000\.log$/);
    const read = (n: string) => readFileSync(join(dir, n), 'utf8').split('\n').filter(Boolean).map((l) => Number(l.replace(/^x+/, '')));
    const [older, newer] = names.filter((x) => x !== 'audit.log');
    // 40 lines, 8 per file: the live file has the last 8, the two newest backups the 16 before.
    assert.deepEqual(read('audit.log'), [32, 33, 34, 35, 36, 37, 38, 39]);
    assert.deepEqual(read(newer!), [24, 25, 26, 27, 28, 29, 30, 31]);
    assert.deepEqual(read(older!), [16, 17, 18, 19, 20, 21, 22, 23]);
  });

  it('continues an existing file and counts its size', async (t) => {
    const dir = tempDir(t);
    writeFileSync(join(dir, 'audit.log'), line(0).repeat(7));
    const file = new RotatingFile({ path: join(dir, 'audit.log'), maxSizeMegabytes: 1 / 128, now: () => START });
    file.append(line(1));
    file.append(line(2));
    await file.close();
    assert.equal(readFileSync(join(dir, 'audit.log'), 'utf8'), line(2));
    assert.equal(readFileSync(join(dir, 'audit-2026-01-01T00-00-00.000.log'), 'utf8'), line(0).repeat(7) + line(1));
  });

  it('removes backups older than maximumFileRetentionDays, by the time in their names', async (t) => {
    const dir = tempDir(t);
    writeFileSync(join(dir, 'audit-2025-12-01T00-00-00.000.log'), 'old\n');
    writeFileSync(join(dir, 'audit-2025-12-30T00-00-00.000.log'), 'recent\n');
    writeFileSync(join(dir, 'other.log'), 'not ours\n');
    const file = new RotatingFile({ path: join(dir, 'audit.log'), maxSizeMegabytes: 1 / 128, maxAgeDays: 7, now: () => START });
    for (let i = 0; i < 9; i++) file.append(line(i));
    await file.close();
    assert.deepEqual(readdirSync(dir).sort(), ['audit-2025-12-30T00-00-00.000.log', 'audit-2026-01-01T00-00-00.000.log', 'audit.log', 'other.log']);
  });

  it('close() waits for what was appended; a failed write is reported, not thrown', async (t) => {
    const dir = tempDir(t);
    const errors: Error[] = [];
    writeFileSync(join(dir, 'blocker'), '');
    const file = new RotatingFile({ path: join(dir, 'blocker', 'audit.log'), onError: (e) => errors.push(e) });
    file.append('{"a":1}');
    await file.close();
    assert.equal(errors.length, 1);
    const ok = new RotatingFile({ path: join(dir, 'sub', 'audit.log') });
    ok.append('{"a":1}');
    ok.append('{"a":2}\n');
    await ok.close();
    assert.equal(readFileSync(join(dir, 'sub', 'audit.log'), 'utf8'), '{"a":1}\n{"a":2}\n');
  });
});
