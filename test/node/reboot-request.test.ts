/**
 * Rebooting a node from inside the cluster: a pod with the node's root as a hostPath volume
 * writes a reboot request (runtime/node-reboot.ts), as the machine-config daemon will, and the
 * node's real kubelet honours it: NotReady, pods stopped, boot again with a new bootID, the
 * request gone. A request written again while the node is going down is satisfied by that
 * reboot, not honoured twice: the test holds the node's shutdown open (a container whose stop
 * waits for the test) so the second request is written during the reboot every time.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, describe, it } from 'node:test';
import type { V1Node } from '@kubernetes/client-node';
import type { ContainerRuntime } from '../../src/node/container-runtime.ts';
import { createSimulatedRuntime } from '../../src/node/runtimes/simulated.ts';
import { readRebootRequest, rebootRequestPath, requestNodeReboot } from '../../src/runtime/node-reboot.ts';
import { resources } from '../../src/runtime/resources.ts';
import { boundPod, condition, containerStatus, startNode, until, type NodeUnderTest } from './support.ts';

const REQUESTER_IMAGE = 'example.test/reboot-requester:1';
const requesterEntrypoint = fileURLToPath(new URL('./fixtures/reboot-requester.ts', import.meta.url));
const HELD_IMAGE = 'example.test/held-stop:1';
const timings = { rebootRequestPollMs: 100, bootDelayMs: 500 };

const ready = (node: V1Node) => node.status?.conditions?.find((c) => c.type === 'Ready')?.status;
const bootIDOf = (node: V1Node) => node.status?.nodeInfo?.bootID;

/** A runtime whose containers' stops wait for `release()`: a node shutdown stays under way until then. */
function heldStops() {
  const waiting: Array<() => void> = [];
  let holding = true;
  const simulated = createSimulatedRuntime({ startDelayMs: 0, writeLogs: false });
  const runtime: ContainerRuntime = {
    name: 'inline',
    handles: (image) => image === HELD_IMAGE,
    async start(spec) {
      const container = await simulated.start(spec);
      return {
        ...container,
        async stop(graceMs) {
          if (holding) await new Promise<void>((resolve) => waiting.push(resolve));
          return container.stop(graceMs);
        },
      };
    },
  };
  const release = () => waiting.splice(0).forEach((go) => go());
  return {
    runtime,
    stopping: () => waiting.length,
    release,
    /** Every stop from now on goes through at once. */
    releaseAll() {
      holding = false;
      release();
    },
  };
}

describe('kubelet: a reboot requested from inside the cluster', () => {
  const nodes: NodeUnderTest[] = [];
  after(async () => {
    for (const n of nodes) await n.stop();
  });

  it('a pod writing the request under the node root reboots the node once: a new bootID, the pod restarted, the request gone', async () => {
    const n = await startNode({ nodeName: 'worker-reboot-request-0', nodeIP: '127.1.45.7', podCIDR: '127.130.45.0/24', timings });
    nodes.push(n);
    n.images.import(REQUESTER_IMAGE, { entrypoint: requesterEntrypoint });
    const before = await until('the Node Ready', async () => {
      const node = await n.node();
      return ready(node) === 'True' && bootIDOf(node) !== undefined && node;
    });
    const firstBoot = bootIDOf(before)!;
    assert.match(firstBoot, /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/, 'a boot id shaped as /proc/sys/kernel/random/boot_id');

    const reason = 'Node will reboot into config rendered-worker-7131e04f110c489a0ad171e719cedc24';
    const pod = boundPod('requester', n.nodeName, { containers: [{ name: 'daemon', image: REQUESTER_IMAGE, args: [reason], volumeMounts: [{ name: 'rootfs', mountPath: '/host' }] }] });
    pod.spec!.volumes = [{ name: 'rootfs', hostPath: { path: '/' } }];
    await n.client.create(resources.pods, pod);

    const rebooted = await until('the Node Ready in a new boot', async () => {
      const node = await n.node();
      return ready(node) === 'True' && bootIDOf(node) !== firstBoot && node;
    });
    const secondBoot = bootIDOf(rebooted)!;
    assert.equal(existsSync(rebootRequestPath(join(n.nodeDir, 'root'))), false, 'the boot cleared the request');
    const events = await n.events(n.nodeName, 'default');
    assert.ok(events.some((e) => e.reason === 'Rebooted' && e.message === `Node ${n.nodeName} is rebooting: ${reason}`), events.map((e) => `${e.reason}: ${e.message}`).join('\n'));

    const starts = join(n.nodeDir, 'root', 'var', 'lib', 'reboot-requester', 'starts');
    await until('the pod running again after the boot, having seen its marker', async () => {
      const p = await n.pod('requester');
      return condition(p, 'Ready') === 'True' && (containerStatus(p, 'daemon')?.restartCount ?? 0) >= 1 && existsSync(starts) && readFileSync(starts, 'utf8') === 'requested\nalready requested\n';
    });
    // Nothing asks again, so several looks later the node is still in its second boot.
    await new Promise((r) => setTimeout(r, timings.rebootRequestPollMs * 5));
    const later = await n.node();
    assert.equal(bootIDOf(later), secondBoot);
    assert.equal(ready(later), 'True');
  });

  it('a request written again while the node goes down is satisfied by that reboot, not honoured twice', async (t) => {
    const held = heldStops();
    const n = await startNode({ nodeName: 'worker-reboot-request-1', nodeIP: '127.1.45.8', podCIDR: '127.130.46.0/24', timings, runtimes: [held.runtime] });
    nodes.push(n);
    // Whatever happens, nothing waits on a held stop once the test is over.
    t.after(() => held.releaseAll());
    await n.client.create(resources.pods, boundPod('slow-to-stop', n.nodeName, { containers: [{ name: 'app', image: HELD_IMAGE }] }));
    await until('the pod Ready', async () => condition(await n.pod('slow-to-stop'), 'Ready') === 'True');
    const firstBoot = bootIDOf(await n.node())!;
    const root = join(n.nodeDir, 'root');

    requestNodeReboot(root, 'first request');
    await until('the node going down, its shutdown held', async () => held.stopping() === 1 && ready(await n.node()) === 'False');
    requestNodeReboot(root, 'asked again before the node went down');
    assert.equal(readRebootRequest(root)?.reason, 'asked again before the node went down');
    held.release();

    const rebooted = await until('the Node Ready in a new boot', async () => {
      const node = await n.node();
      return ready(node) === 'True' && bootIDOf(node) !== firstBoot && node;
    });
    assert.equal(readRebootRequest(root), undefined, 'the boot satisfied both requests');
    await until('the pod Ready again', async () => condition(await n.pod('slow-to-stop'), 'Ready') === 'True');
    await new Promise((r) => setTimeout(r, timings.rebootRequestPollMs * 5));
    const later = await n.node();
    assert.equal(bootIDOf(later), bootIDOf(rebooted), 'no second reboot');
    assert.equal(held.stopping(), 0, 'no shutdown under way');

    // After the boot a request is a new one.
    held.releaseAll();
    requestNodeReboot(root, 'a later request');
    await until('the Node in a third boot', async () => {
      const node = await n.node();
      return ready(node) === 'True' && bootIDOf(node) !== bootIDOf(rebooted) && bootIDOf(node) !== firstBoot;
    });
  });
});
