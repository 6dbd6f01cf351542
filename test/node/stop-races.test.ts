/**
 * A container whose start is still under way when its pod stops (the node shuts down, or the
 * pod is deleted) must not run on untracked: that is how a stop during boot left a master's
 * control-plane processes running after `shipyard up` had printed "Stopped." (issue 13). The
 * runtime here holds each start back until the test lets it go, so the race is made to happen
 * every time instead of by luck.
 */
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import type { ContainerRuntime } from '../../src/node/container-runtime.ts';
import { createSimulatedRuntime } from '../../src/node/runtimes/simulated.ts';
import { resources } from '../../src/runtime/resources.ts';
import { boundPod, startNode, until, type NodeUnderTest } from './support.ts';

const HELD_IMAGE = 'example.test/held-start:1';

/** A runtime whose starts wait for `release()`; it records every container it started and whether it was stopped. */
function heldRuntime() {
  const waiting: Array<() => void> = [];
  const started: { name: string; stopped: boolean }[] = [];
  const simulated = createSimulatedRuntime({ startDelayMs: 0, writeLogs: false });
  const runtime: ContainerRuntime = {
    name: 'inline',
    handles: (image) => image === HELD_IMAGE,
    async start(spec) {
      await new Promise<void>((resolve) => waiting.push(resolve));
      const container = await simulated.start(spec);
      const record = { name: `${spec.podName}/${spec.containerName}`, stopped: false };
      started.push(record);
      return {
        ...container,
        stop(graceMs) {
          record.stopped = true;
          return container.stop(graceMs);
        },
      };
    },
  };
  return {
    runtime,
    started,
    pending: () => waiting.length,
    release: () => waiting.splice(0).forEach((go) => go()),
  };
}

describe('kubelet: a container start under way when its pod stops', () => {
  const nodes: NodeUnderTest[] = [];
  after(async () => {
    for (const n of nodes) await n.stop();
  });

  it('a node shutdown waits for the start and stops what it started', async () => {
    const held = heldRuntime();
    const n = await startNode({ nodeName: 'race-shutdown', nodeIP: '127.1.3.1', podCIDR: '127.130.3.0/24', runtimes: [held.runtime] });
    nodes.push(n);
    // Released whatever happens, so a failed assertion leaves no start waiting forever.
    after(() => held.release());
    await n.client.create(resources.pods, boundPod('held', n.nodeName, { containers: [{ name: 'app', image: HELD_IMAGE }] }));
    await until('the container start under way', () => held.pending() === 1);
    const shutdown = n.kubelet.shutdown();
    // Let the shutdown get as far as it can on its own before the start completes.
    await new Promise((r) => setImmediate(r));
    held.release();
    await shutdown;
    assert.deepEqual(held.started, [{ name: 'held/app', stopped: true }], 'the process started during the shutdown was stopped by it');
  });

  it('a forced deletion waits for nothing, yet the container it raced with is stopped once its start completes', async () => {
    const held = heldRuntime();
    const n = await startNode({ nodeName: 'race-delete', nodeIP: '127.1.3.2', podCIDR: '127.130.4.0/24', runtimes: [held.runtime] });
    nodes.push(n);
    after(() => held.release());
    await n.client.create(resources.pods, boundPod('held', n.nodeName, { containers: [{ name: 'app', image: HELD_IMAGE }], terminationGracePeriodSeconds: 30 }));
    await until('the container start under way', () => held.pending() === 1);
    await n.client.delete(resources.pods, 'default', 'held', { gracePeriodSeconds: 0 });
    await until('the kubelet has forgotten the pod', () => n.kubelet.status().pods === 0);
    await new Promise((r) => setImmediate(r));
    held.release();
    await until('the container started after the deletion is stopped', () => held.started.length === 1 && held.started[0]!.stopped);
  });
  it('a node stopped while it reboots stays down instead of booting again', async () => {
    const n = await startNode({ nodeName: 'race-reboot', nodeIP: '127.1.3.3', podCIDR: '127.130.5.0/24' });
    nodes.push(n);
    const rebooting = n.kubelet.reboot(1000);
    // Down: the reboot's shutdown has stopped the kubelet and (no pods here) finished at once.
    await until('the node down for its reboot', () => !n.kubelet.status().running);
    await n.kubelet.stop();
    await rebooting;
    assert.equal(n.kubelet.status().running, false, 'the reboot did not start the stopped kubelet again');
  });
});
