/**
 * Whatever `shipyard up` starts, it stops, however it is stopped (issue 13): a signal while it
 * boots, a SIGKILL of `up` alone or of its whole process group (the reaper lives in a group of
 * its own, so it survives that), a terminal closing (SIGHUP). Each case boots a one-node
 * cluster, stops it the way named while its control plane is coming up as pods, and then looks
 * through /proc for any process that names the data directory. A second cluster runs beside a
 * first in an address block of its own; a resume whose addresses another cluster has taken
 * meanwhile fails at once, naming the address and that cluster.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { pollUntil } from './support.ts';
import { addressAt } from '../../src/api/cidr.ts';
import { addressBlock } from '../../src/cli/up/address-block.ts';
import { kubectlWith, processesUsing, runShipyard, startUp, stopUp, type UpProcess } from './datacenter-support.ts';

const SHAPE = ['--masters', '1', '--workers', '0', '--masters-schedulable'];
/** The block the address tests name (block-claim.test.ts uses 7). */
const OWN_BLOCK = 6;

describe('shipyard up stops everything it started (e2e)', { timeout: 600_000 }, () => {
  const clusters: { up: UpProcess | undefined; dataDir: string }[] = [];
  after(async () => {
    for (const c of clusters) await stopUp(c.up, c.dataDir);
  });

  function boot(apiPort: number, ownGroup = false, extra: string[] = []): { up: UpProcess; dataDir: string } {
    const dataDir = mkdtempSync(join(tmpdir(), 'shipyard-stop-'));
    const up = startUp(dataDir, [...SHAPE, '--api-port', String(apiPort), '--cloud-port', String(apiPort + 1), ...extra], { ownGroup });
    const c = { up, dataDir };
    clusters.push(c);
    return c;
  }

  /** Boot has got as far as running control-plane pods as processes. */
  async function podsRunning(dataDir: string): Promise<void> {
    const c = clusters.find((x) => x.dataDir === dataDir);
    await pollUntil('the kube-apiserver pod running as a process', async () => processesUsing(dataDir).some((p) => p.cmd.includes('kube-apiserver')) || undefined, { timeoutMs: 120_000, intervalMs: 100 }).catch((err: Error) => {
      // What `shipyard up` said (a refused address, a failed boot) is the diagnosis.
      throw new Error(`${err.message}\nshipyard up output:\n${c?.up?.output() ?? '(none)'}`);
    });
  }

  const blockOf = (dataDir: string) => addressBlock((JSON.parse(readFileSync(join(dataDir, 'cluster.json'), 'utf8')) as { block?: number }).block);

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

  it('a second cluster runs beside the first in an address block of its own; a resume whose addresses another cluster took fails at once, naming them; a closing terminal (SIGHUP) stops a cluster', async () => {
    const kubectlJson = async (dataDir: string, args: string[]) => {
      const r = await kubectlWith(join(dataDir, 'kubeconfig'))([...args, '-o', 'json']);
      assert.equal(r.code, 0, r.stderr);
      return JSON.parse(r.stdout);
    };
    const nodeIPs = async (dataDir: string): Promise<string[]> =>
      (await kubectlJson(dataDir, ['get', 'nodes'])).items.map((n: { status: { addresses: { type: string; address: string }[] } }) => n.status.addresses.find((a) => a.type === 'InternalIP')!.address);

    // The first names its block; the second, started at the same moment, takes the first one
    // free, which must not be the first's although neither listens anywhere yet. Block 6: other
    // tests' clusters take the lowest free blocks, so a block they never reach keeps the third's
    // claim below certain.
    const first = boot(21473, true, ['--address-block', String(OWN_BLOCK)]);
    const second = boot(21473, true);
    await Promise.all([first.up.ready(300_000), second.up.ready(300_000)]);
    const [a, b] = [blockOf(first.dataDir), blockOf(second.dataDir)];
    assert.equal(a.index, OWN_BLOCK);
    assert.notEqual(b.index, a.index);
    assert.ok(first.up.output().includes(`Address block ${OWN_BLOCK} (--address-block): load balancer ${a.host}:21473, nodes ${a.nodeCIDR}, Services ${a.serviceCIDR}, pods ${a.podCIDR}`), first.up.output());
    if (b.index) assert.ok(second.up.output().includes(`Address block ${b.index} (another cluster holds block 0): load balancer ${b.host}:21473`), second.up.output());
    assert.deepEqual(await nodeIPs(first.dataDir), [addressAt(a.nodeCIDR, 1)]);
    assert.deepEqual(await nodeIPs(second.dataDir), [addressAt(b.nodeCIDR, 1)]);
    assert.equal((await kubectlJson(second.dataDir, ['get', 'service', 'kubernetes', '-n', 'default'])).spec.clusterIP, b.kubernetesIP);

    // The first stops (its terminal closes); a third cluster takes the block it left.
    process.kill(-first.up.child.pid!, 'SIGHUP');
    assert.equal(await first.up.exited(), 0, first.up.output());
    await nothingLeft(first.dataDir, 'SIGHUP');
    const third = boot(21483, true, ['--address-block', String(OWN_BLOCK)]);
    await third.up.ready(300_000);
    assert.equal(blockOf(third.dataDir).index, a.index);
    assert.deepEqual(await nodeIPs(third.dataDir), [addressAt(a.nodeCIDR, 1)]);

    // A new cluster naming a block another holds fails at once, naming the holder.
    const refused = { up: undefined, dataDir: mkdtempSync(join(tmpdir(), 'shipyard-stop-')) };
    clusters.push(refused);
    const taken = await runShipyard(['up', '--data-dir', refused.dataDir, ...SHAPE, '--address-block', String(OWN_BLOCK)], 30_000);
    assert.ok(taken.stderr.includes(`${a.host}:22620, which address block ${OWN_BLOCK} needs, is already in use`), taken.stderr);
    assert.equal(taken.code, 1, `${taken.stdout}${taken.stderr}`);
    assert.ok(taken.stderr.includes(`by the Shipyard cluster in ${third.dataDir}`), taken.stderr);

    // Resuming the first now finds its addresses taken: it fails at once and starts nothing.
    const resumed = await runShipyard(['up', '--data-dir', first.dataDir], 30_000);
    assert.equal(resumed.code, 1, `${resumed.stdout}${resumed.stderr}`);
    assert.ok(resumed.stderr.includes(`${addressAt(a.nodeCIDR, 1)}:10250, which node master-0's kubelet needs, is already in use`), resumed.stderr);
    assert.ok(resumed.stderr.includes(`by the Shipyard cluster in ${third.dataDir}`), resumed.stderr);
    assert.deepEqual(processesUsing(first.dataDir), [], 'the refused resume started nothing');
    assert.deepEqual(await nodeIPs(second.dataDir), [addressAt(b.nodeCIDR, 1)], 'the cluster beside them is untouched');
  });
});
