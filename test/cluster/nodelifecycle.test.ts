/**
 * The node lifecycle controller on a real API server, on a fake clock: a node that stops
 * reporting is marked Unknown and tainted unreachable once the grace period has passed on the
 * clock's monotonic time, and the times it writes (the condition's transition, the taints'
 * timeAdded) are the clock's wall time, not its monotonic reading (they read 1970 before).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { V1Node } from '@kubernetes/client-node';
import { formatTimestamp } from '../../src/api/time.ts';
import { createNodeLifecycleController } from '../../src/cluster/nodelifecycle/controller.ts';
import type { ApiClient } from '../../src/runtime/client.ts';
import { FakeClock } from '../../src/runtime/clock.ts';
import { resources } from '../../src/runtime/resources.ts';
import { startControllers, type RunningControllers } from '../support/controllers.ts';
import { until } from '../support/until.ts';

const WALL = Date.parse('2030-06-01T12:00:00Z');
const GRACE_MS = 40_000;
const STARTUP_GRACE_MS = 60_000;

describe('node lifecycle controller on a fake clock', () => {
  const clock = new FakeClock(0, { wall: WALL });
  let cluster: RunningControllers;
  let client: ApiClient;

  before(async () => {
    cluster = await startControllers({ userAgent: 'nodelifecycle-test', clock }, (ctx) => [createNodeLifecycleController(ctx, { nodeMonitorGracePeriodMs: GRACE_MS, nodeStartupGracePeriodMs: STARTUP_GRACE_MS, defaultTolerationSeconds: 300 })]);
    ({ client } = cluster);
  });
  after(() => cluster?.stop());

  it('marks a silent node Unknown and unreachable with the wall time of the moment it did', async () => {
    const node = await client.create<V1Node>(resources.nodes, { apiVersion: 'v1', kind: 'Node', metadata: { name: 'quiet' } });
    const readyAt = formatTimestamp(WALL - 3_600_000);
    await client.updateStatus(resources.nodes, { ...node, status: { conditions: [{ type: 'Ready', status: 'True', reason: 'KubeletReady', message: '', lastHeartbeatTime: readyAt as never, lastTransitionTime: readyAt as never }] } });
    // The controller sees the node first; then the grace period passes on the fake clock, a second at a time.
    const tainted = await until('the node to be tainted unreachable', async () => {
      clock.advance(1000);
      const n = await client.get<V1Node>(resources.nodes, undefined, 'quiet');
      return n.spec?.taints?.some((t) => t.key === 'node.kubernetes.io/unreachable' && t.effect === 'NoExecute') ? n : undefined;
    }, { timeoutMs: 30_000 });
    const wallWhen = clock.wallNow();
    const within = (t: unknown) => {
      const ms = Date.parse(String(t));
      return ms >= WALL + GRACE_MS - 2000 && ms <= wallWhen;
    };
    for (const t of tainted.spec!.taints!) assert.ok(within(t.timeAdded), `taint ${t.key}:${t.effect} added at ${String(t.timeAdded)}, the clock's wall time`);
    const ready = (await client.get<V1Node>(resources.nodes, undefined, 'quiet')).status?.conditions?.find((c) => c.type === 'Ready');
    assert.equal(ready?.status, 'Unknown');
    assert.ok(within(ready?.lastTransitionTime), `Ready went Unknown at ${String(ready?.lastTransitionTime)}, the clock's wall time`);
  });

  it('gives a node that never posted status its four conditions, Unknown, once the startup grace period has passed', async () => {
    const created = await client.create<V1Node>(resources.nodes, { apiVersion: 'v1', kind: 'Node', metadata: { name: 'never' } });
    const seenAt = clock.now();
    const node = await until('the never-reporting node to get its conditions', async () => {
      clock.advance(1000);
      const n = await client.get<V1Node>(resources.nodes, undefined, 'never');
      return n.status?.conditions?.length ? n : undefined;
    }, { timeoutMs: 30_000 });
    // The startup grace period (60 s), not the monitor grace period (40 s), applies to a node without a Ready condition.
    assert.ok(clock.now() - seenAt >= STARTUP_GRACE_MS, `conditions added after ${clock.now() - seenAt} ms of fake time`);
    const conditions = node.status!.conditions!;
    assert.deepEqual(conditions.map((c) => c.type), ['Ready', 'MemoryPressure', 'DiskPressure', 'PIDPressure']);
    for (const c of conditions) {
      assert.equal(c.status, 'Unknown');
      assert.equal(c.reason, 'NodeStatusNeverUpdated');
      assert.equal(c.message, 'Kubelet never posted node status.');
      assert.equal(String(c.lastHeartbeatTime), formatTimestamp(new Date(String(created.metadata!.creationTimestamp))), 'heartbeat: the node\'s creation');
    }
    await until('the node to be tainted unreachable', async () => {
      clock.advance(1000);
      const n = await client.get<V1Node>(resources.nodes, undefined, 'never');
      return n.spec?.taints?.some((t) => t.key === 'node.kubernetes.io/unreachable') ?? false;
    }, { timeoutMs: 30_000 });
  });
});
