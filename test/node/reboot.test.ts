/**
 * A node reboot on a real kubelet: its pods stop, the Node goes NotReady, and after the boot
 * delay the kubelet comes back Ready with the configuration re-read from
 * `<node root>/etc/kubernetes/kubelet.conf`, and the pods run again as restarts.
 */
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { V1Node } from '@kubernetes/client-node';
import { resources } from '../../src/runtime/resources.ts';
import { appContainer, boundPod, condition, containerStatus, pidGone, pidIn, startNode, until, type NodeUnderTest } from './support.ts';

const NODE = 'worker-reboot-0';
const BOOT_DELAY_MS = 1500;

const ready = (node: V1Node) => node.status?.conditions?.find((c) => c.type === 'Ready');

describe('kubelet: reboot', () => {
  let n: NodeUnderTest;
  const conf = (nodeDir: string) => join(nodeDir, 'root', 'etc', 'kubernetes', 'kubelet.conf');

  before(async () => {
    n = await startNode({
      nodeName: NODE,
      nodeIP: '127.1.43.7',
      podCIDR: '127.130.43.0/24',
      prepare: (nodeDir) => {
        mkdirSync(join(conf(nodeDir), '..'), { recursive: true });
        writeFileSync(conf(nodeDir), 'apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\nmaxPods: 30\n');
      },
    });
    mkdirSync(n.scratch, { recursive: true });
  });

  after(async () => {
    await n?.stop();
    assert.deepEqual([...(n?.liveGroups ?? [])], [], 'no container process outlives the node');
  });

  it('stops pods, goes NotReady, and comes back Ready with the new kubelet.conf and the pods restarted', async () => {
    const pidFile = join(n.scratch, 'survivor.pid');
    await n.client.create(resources.pods, boundPod('survivor', NODE, { containers: [appContainer('app', ['serve'], { env: [{ name: 'PID_FILE', value: pidFile }] })] }));
    await n.client.create(resources.pods, boundPod('sim', NODE, { containers: [{ name: 'pause', image: 'registry.k8s.io/pause:3.10' }] }));
    await until('both pods Ready', async () => condition(await n.pod('survivor'), 'Ready') === 'True' && condition(await n.pod('sim'), 'Ready') === 'True');
    const pid = await until('the survivor to write its pid', () => pidIn(pidFile));
    const node = await until('the Node to show maxPods 30', async () => {
      const got = await n.node();
      return got.status?.allocatable?.pods === '30' && ready(got)?.status === 'True' && got;
    });
    const bootID = node.status?.nodeInfo?.bootID;

    writeFileSync(conf(n.nodeDir), 'apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\nmaxPods: 40\n');
    const rebootAt = performance.now();
    const rebooting = n.kubelet.reboot(BOOT_DELAY_MS);
    const down = await until('the Node NotReady', async () => {
      const got = await n.node();
      return ready(got)?.status === 'False' && got;
    });
    assert.equal(ready(down)?.reason, 'KubeletNotReady');
    assert.equal(down.status?.allocatable?.pods, '30', 'the new kubelet.conf is not read before the reboot');
    await until('the pod process stopped', () => pidGone(pid));
    assert.equal(ready(await n.node())?.status, 'False', 'the pods stop while the node is down');

    await rebooting;
    const up = await until('the Node Ready again', async () => {
      const got = await n.node();
      return ready(got)?.status === 'True' && got;
    });
    // Timers fire late, never early: measured from the reboot itself, a busy machine can only lengthen it.
    const downFor = performance.now() - rebootAt;
    assert.ok(downFor >= BOOT_DELAY_MS, `Ready again ${downFor.toFixed(0)} ms after the reboot, not before the boot delay`);
    assert.equal(up.status?.allocatable?.pods, '40', 'maxPods from the edited kubelet.conf');
    assert.equal(up.status?.capacity?.pods, '40');
    assert.notEqual(up.status?.nodeInfo?.bootID, bootID, 'a new boot');

    const back = await until('the survivor running again as a restart', async () => {
      const p = await n.pod('survivor');
      const cs = containerStatus(p, 'app');
      return cs?.state?.running && (cs.restartCount ?? 0) >= 1 && condition(p, 'Ready') === 'True' && p;
    });
    assert.equal(containerStatus(back, 'app')?.restartCount, 1);
    const newPid = await until('a new process for it', () => {
      const p = pidIn(pidFile);
      return p !== undefined && p !== pid && p;
    });
    assert.equal(pidGone(newPid), false);
    await until('the simulated pod Ready again', async () => condition(await n.pod('sim'), 'Ready') === 'True');
    const events = await n.events(NODE, 'default');
    assert.ok(events.some((e) => e.reason === 'Rebooted' && e.message === `Node ${NODE} is rebooting`), events.map((e) => e.reason).join(', '));
  });
});
