/**
 * Whatever `shipyard up` starts, it stops, however it is stopped (issue 13): a signal while it
 * boots, a SIGKILL of `up` alone or of its whole process group (the reaper lives in a group of
 * its own, so it survives that), a terminal closing (SIGHUP). Each case boots a one-node
 * cluster, stops it the way named while its control plane is coming up as pods, and then looks
 * through /proc for any process that names the data directory. A second `shipyard up` whose
 * node addresses a running cluster holds fails at once, naming the address and that cluster.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { pollUntil } from './support.ts';
import { processesUsing, runShipyard, startUp, stopUp, type UpProcess } from './datacenter-support.ts';

const SHAPE = ['--masters', '1', '--workers', '0', '--masters-schedulable'];

describe('shipyard up stops everything it started (e2e)', { timeout: 600_000 }, () => {
  const clusters: { up: UpProcess | undefined; dataDir: string }[] = [];
  after(async () => {
    for (const c of clusters) await stopUp(c.up, c.dataDir);
  });

  function boot(apiPort: number, ownGroup = false): { up: UpProcess; dataDir: string } {
    const dataDir = mkdtempSync(join(tmpdir(), 'shipyard-stop-'));
    const up = startUp(dataDir, [...SHAPE, '--api-port', String(apiPort), '--cloud-port', String(apiPort + 1)], { ownGroup });
    const c = { up, dataDir };
    clusters.push(c);
    return c;
  }

  /** Boot has got as far as running control-plane pods as processes. */
  async function podsRunning(dataDir: string): Promise<void> {
    await pollUntil('the kube-apiserver pod running as a process', async () => processesUsing(dataDir).some((p) => p.cmd.includes('kube-apiserver')) || undefined, { timeoutMs: 120_000, intervalMs: 100 });
  }

  async function nothingLeft(dataDir: string, how: string): Promise<void> {
    await pollUntil(`no process of the datacenter left after ${how}`, async () => processesUsing(dataDir).length === 0 || undefined, { timeoutMs: 30_000, intervalMs: 250 }).catch(() => {
      assert.fail(`orphans after ${how}: ${JSON.stringify(processesUsing(dataDir))}`);
    });
  }

  it('SIGTERM during boot: it stops what has started and exits 0', async () => {
    const { up, dataDir } = boot(21443);
    await podsRunning(dataDir);
    up.child.kill('SIGTERM');
    assert.equal(await up.exited(), 0, up.output());
    assert.match(up.output(), /Stopped\./);
    await nothingLeft(dataDir, 'SIGTERM during boot');
  });

  it('SIGKILL of `shipyard up` alone during boot: the reaper kills its pods', async () => {
    const { up, dataDir } = boot(21453);
    await podsRunning(dataDir);
    up.child.kill('SIGKILL');
    await up.exited();
    await nothingLeft(dataDir, 'SIGKILL of up');
  });

  it('SIGKILL of its whole process group during boot: the reaper is not in it and kills its pods', async () => {
    const { up, dataDir } = boot(21463, true);
    await podsRunning(dataDir);
    process.kill(-up.child.pid!, 'SIGKILL');
    await up.exited();
    await nothingLeft(dataDir, 'SIGKILL of the process group');
  });

  it('a second cluster whose addresses are taken fails at once, naming them and the cluster holding them; a closing terminal (SIGHUP) stops the first', async () => {
    const first = boot(21473, true);
    await first.up.ready(300_000);
    const otherDir = mkdtempSync(join(tmpdir(), 'shipyard-stop-second-'));
    try {
      const second = await runShipyard(['up', '--data-dir', otherDir, ...SHAPE, '--api-port', '21483', '--cloud-port', '21484'], 30_000);
      assert.equal(second.code, 1, `${second.stdout}${second.stderr}`);
      assert.match(second.stderr, /127\.1\.0\.1:10250, which node master-0's kubelet needs, is already in use/);
      assert.ok(second.stderr.includes(`by the Shipyard cluster in ${first.dataDir}`), second.stderr);
      assert.deepEqual(processesUsing(otherDir), [], 'the refused cluster started nothing');
    } finally {
      rmSync(otherDir, { recursive: true, force: true });
    }
    process.kill(-first.up.child.pid!, 'SIGHUP');
    assert.equal(await first.up.exited(), 0, first.up.output());
    await nothingLeft(first.dataDir, 'SIGHUP');
  });
});
