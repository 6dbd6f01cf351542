/**
 * Durability against a killed process: a child creates keys and acknowledges each on stdout
 * after its create resolved; we SIGKILL it at a random point and check that every acknowledged
 * key is in the reopened database with its value. Both durabilities promise this much:
 * process-crash-only exactly this, the default fsync this and power loss too, which a test
 * cannot stage (that a write waits for its fsync is checked in sqlite.test.ts).
 */
import { it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { openSqliteBackend, storeDurabilities } from './sqlite.ts';

for (const durability of storeDurabilities) {
  it(`every create acknowledged before SIGKILL is in the database (durability ${durability})`, { timeout: 120_000 }, async (t) => {
    const dir = mkdtempSync(join(tmpdir(), 'shipyard-crash-'));
    t.after(() => rm(dir, { recursive: true, force: true }));
    const path = join(dir, 'state.db');
    const script = fileURLToPath(new URL('./testdata/crash-writer.ts', import.meta.url));
    const child = spawn(process.execPath, ['--import', 'tsx', script, path, durability], {
      cwd: fileURLToPath(new URL('../..', import.meta.url)),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    // Killed however the test ends.
    t.after(() => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    });
    const killAfter = 50 + Math.floor(Math.random() * 2000);
    const acked: string[] = [];
    let stderr = '';
    let partial = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const exited = new Promise<NodeJS.Signals | number | null>((resolve) => child.on('exit', (code, signal) => resolve(signal ?? code)));
    child.stdout.on('data', (d: Buffer) => {
      const lines = (partial + d.toString()).split('\n');
      partial = lines.pop()!;
      acked.push(...lines);
      if (acked.length >= killAfter) child.kill('SIGKILL');
    });
    // A slow disk or a busy machine may not get to killAfter soon: kill it then anyway, as long
    // as it has acknowledged enough to check (a writer that acknowledges nothing fails the test).
    const giveUp = setTimeout(() => child.kill('SIGKILL'), 60_000);
    const how = await exited;
    clearTimeout(giveUp);
    assert.equal(how, 'SIGKILL', `the writer should have been killed; stderr: ${stderr}`);
    assert.ok(acked.length >= 50, `only ${acked.length} acknowledged; stderr: ${stderr}`);

    const backend = await openSqliteBackend({ path, pollIntervalMs: 0 });
    try {
      const missing: string[] = [];
      for (const key of acked) {
        const kv = await backend.get(key);
        if (kv?.value !== `value-${key.slice('/crash/'.length)}`) missing.push(key);
      }
      assert.deepEqual(missing, [], `${missing.length} of ${acked.length} acknowledged creates lost`);
      assert.ok((await backend.count('/crash/')) >= acked.length);
    } finally {
      await backend.close();
    }
  });
}
