import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, it, type TestContext } from 'node:test';
import { fileURLToPath } from 'node:url';
import { until } from '../support/until.ts';
import { DATACENTER_ENV, startReaper } from '../../src/cli/up/reaper.ts';

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return !/\) Z /.test(readFileSync(`/proc/${pid}/stat`, 'latin1'));
  } catch {
    return false;
  }
};

/** The reaper shells watching `dataDir`, found by the pgids file on their command line. */
const reapersOf = (dataDir: string): number[] =>
  readdirSync('/proc')
    .filter((e) => /^\d+$/.test(e))
    .filter((e) => {
      try {
        const cmd = readFileSync(`/proc/${e}/cmdline`, 'latin1');
        return cmd.includes('shipyard-reaper') && cmd.includes(resolve(dataDir));
      } catch {
        return false;
      }
    })
    .map(Number);

function markedSleep(t: TestContext, dataDir: string): ChildProcess {
  const child = spawn('sleep', ['120'], { env: { ...process.env, [DATACENTER_ENV]: resolve(dataDir) }, stdio: 'ignore' });
  t.after(() => void child.kill('SIGKILL'));
  return child;
}

describe('reaper', () => {
  it('after a clean release it exits at once and leaves a later run of the same data directory alone', async (t) => {
    const dataDir = mkdtempSync(join(tmpdir(), 'shipyard-reaper-'));
    t.after(() => rmSync(dataDir, { recursive: true, force: true }));
    const reaper = await startReaper(dataDir);
    await until('the reaper shell running', () => reapersOf(dataDir).length === 1);
    reaper.release();
    // A resume starts its pods right away, with the same marker.
    const next = markedSleep(t, dataDir);
    await until('the released reaper gone', () => reapersOf(dataDir).length === 0, 30_000);
    assert.ok(alive(next.pid!), 'the process of the next run survives its predecessor\'s reaper');
  });

  it('kills the marked processes when the process holding it dies without releasing it', async (t) => {
    const dataDir = mkdtempSync(join(tmpdir(), 'shipyard-reaper-'));
    t.after(() => rmSync(dataDir, { recursive: true, force: true }));
    const reaperModule = fileURLToPath(new URL('../../src/cli/up/reaper.ts', import.meta.url));
    const holder = spawn(process.execPath, ['--import', 'tsx', '-e', `const { startReaper } = await import(${JSON.stringify(reaperModule)}); await startReaper(${JSON.stringify(dataDir)}); process.stdout.write('ready\\n'); setInterval(() => {}, 1000);`], { stdio: ['ignore', 'pipe', 'inherit'] });
    t.after(() => void holder.kill('SIGKILL'));
    let out = '';
    holder.stdout!.setEncoding('utf8').on('data', (c: string) => (out += c));
    await until('the holder started its reaper', () => out.includes('ready'), 60_000);
    const pod = markedSleep(t, dataDir);
    holder.kill('SIGKILL');
    await until('the marked process killed by the reaper', () => !alive(pod.pid!), 30_000);
    await until('the reaper done', () => reapersOf(dataDir).length === 0, 30_000);
  });
});
