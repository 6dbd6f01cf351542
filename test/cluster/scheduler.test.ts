/**
 * The scheduler against the real API server (style example 14): four hand-made Nodes, pods
 * created through the API, and the outcome read back from the API — where each pod was bound,
 * the FailedScheduling event and the PodScheduled condition of a pod that fits nowhere, and
 * that pod's binding once a node opens up.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { CoreV1Event, V1Node, V1Pod, V1PodSpec, V1Taint } from '@kubernetes/client-node';
import { createScheduler } from '../../src/cluster/scheduler/scheduler.ts';
import type { ApiClient } from '../../src/runtime/client.ts';
import { resources } from '../../src/runtime/resources.ts';
import { startControllers, type RunningControllers } from '../support/controllers.ts';
import { until } from '../support/until.ts';

const NS = 'default';
const GPU_TOLERATION = { key: 'dedicated', operator: 'Equal', value: 'gpu', effect: 'NoSchedule' };

function node(name: string, extra: { labels?: Record<string, string>; taints?: V1Taint[]; unschedulable?: boolean } = {}): V1Node {
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: { name, labels: { 'kubernetes.io/hostname': name, ...extra.labels } },
    spec: { taints: extra.taints, unschedulable: extra.unschedulable },
    status: {
      allocatable: { cpu: '4', memory: '8Gi', pods: '110' },
      capacity: { cpu: '4', memory: '8Gi', pods: '110' },
      conditions: [{ type: 'Ready', status: 'True', reason: 'KubeletReady', message: 'kubelet is posting ready status' }],
    },
  };
}

function pod(name: string, spec: Partial<V1PodSpec> = {}, labels: Record<string, string> = {}): V1Pod {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: NS, labels },
    spec: { containers: [{ name: 'c', image: 'example/app:1', resources: { requests: { cpu: '100m', memory: '64Mi' } } }], ...spec },
  };
}

describe('scheduler on a real API server', () => {
  let cluster: RunningControllers;
  let client: ApiClient;

  const nodeOf = async (name: string): Promise<string | undefined> => (await client.get<V1Pod>(resources.pods, NS, name)).spec?.nodeName || undefined;
  const failedScheduling = async (name: string): Promise<string | undefined> => {
    const events = await client.list<CoreV1Event>(resources.events, NS);
    return events.items.find((e) => e.reason === 'FailedScheduling' && e.involvedObject?.name === name)?.message;
  };

  before(async () => {
    const seed = async (c: ApiClient) => {
      for (const n of [
        node('n1', { labels: { disk: 'ssd' }, unschedulable: true }),
        node('n2', { taints: [{ key: 'dedicated', value: 'gpu', effect: 'NoSchedule' }] }),
        node('n3'),
        node('n4'),
      ]) {
        await c.create(resources.nodes, n);
      }
    };
    cluster = await startControllers({ userAgent: 'scheduler-test', eventsAs: 'default-scheduler', seed }, (ctx) => createScheduler(ctx, { backoff: { initialMs: 200, maxMs: 1000 } }).controllers);
    ({ client } = cluster);
  });

  after(() => cluster?.stop());

  it('reports a pod that fits nowhere in kube-scheduler\'s words, then binds it when a node opens', async () => {
    // n1 alone has the label and is cordoned; n2's taint is tolerated, so it fails on the selector.
    await client.create(resources.pods, pod('picky', { nodeSelector: { disk: 'ssd' }, tolerations: [GPU_TOLERATION] }));
    const expected = "0/4 nodes are available: 1 node(s) were unschedulable, 3 node(s) didn't match Pod's node affinity/selector.";
    const message = await until('the FailedScheduling event', () => failedScheduling('picky'));
    assert.ok(message.startsWith(expected), message);
    assert.equal(message, `${expected} preemption: 0/4 nodes are available: 4 Preemption is not helpful for scheduling.`);

    const condition = await until('PodScheduled=False', async () =>
      (await client.get<V1Pod>(resources.pods, NS, 'picky')).status?.conditions?.find((c) => c.type === 'PodScheduled' && c.status === 'False'),
    );
    assert.equal(condition.reason, 'Unschedulable');
    assert.equal(condition.message, message);
    assert.equal(await nodeOf('picky'), undefined);

    await client.patch(resources.nodes, undefined, 'n1', { spec: { unschedulable: false } });
    assert.equal(await until('picky to be bound', () => nodeOf('picky')), 'n1');
    const scheduled = await until('the Scheduled event', async () => {
      const events = await client.list<CoreV1Event>(resources.events, NS);
      return events.items.find((e) => e.reason === 'Scheduled' && e.involvedObject?.name === 'picky')?.message;
    });
    assert.equal(scheduled, 'Successfully assigned default/picky to n1');
  });

  it('keeps pods off tainted nodes unless they tolerate the taint', async () => {
    await client.create(resources.pods, pod('plain', { nodeSelector: { 'kubernetes.io/hostname': 'n2' } }));
    const message = await until('the FailedScheduling event', () => failedScheduling('plain'));
    assert.ok(message.startsWith("0/4 nodes are available: 1 node(s) had untolerated taint {dedicated: gpu}, 3 node(s) didn't match Pod's node affinity/selector."), message);

    await client.create(resources.pods, pod('gpu-job', { nodeSelector: { 'kubernetes.io/hostname': 'n2' }, tolerations: [GPU_TOLERATION] }));
    assert.equal(await until('gpu-job to be bound', () => nodeOf('gpu-job')), 'n2');
  });

  it('places replicas with hostname anti-affinity on distinct nodes, and no more than there are nodes', async () => {
    const anti = { podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{ labelSelector: { matchLabels: { app: 'web' } }, topologyKey: 'kubernetes.io/hostname' }] } };
    const names = ['web-0', 'web-1', 'web-2', 'web-3', 'web-4'];
    for (const name of names) await client.create(resources.pods, pod(name, { affinity: anti, tolerations: [GPU_TOLERATION] }, { app: 'web' }));
    const placed = await until('four web pods bound', async () => {
      const nodes = await Promise.all(names.map(nodeOf));
      return nodes.filter(Boolean).length === 4 ? nodes : undefined;
    });
    assert.equal(new Set(placed.filter(Boolean)).size, 4, `one web pod per node: ${placed.join()}`);
    const pending = names[placed.indexOf(undefined)];
    const message = await until('the FailedScheduling event', () => failedScheduling(pending));
    assert.ok(message.startsWith("0/4 nodes are available: 4 node(s) didn't match pod anti-affinity rules."), message);

    // Deleting one replica frees its node for the pending one.
    const victim = names[placed.findIndex(Boolean)];
    const freed = placed[names.indexOf(victim)];
    await client.delete(resources.pods, NS, victim, { gracePeriodSeconds: 0 });
    assert.equal(await until(`${pending} to be bound`, () => nodeOf(pending)), freed);
  });

  it('counts requests against allocatable', async () => {
    // Each node has 4 CPUs; a 3-CPU pod fits on one node at most once.
    const big = (name: string) => pod(name, { nodeSelector: { 'kubernetes.io/hostname': 'n3' }, tolerations: [GPU_TOLERATION], containers: [{ name: 'c', image: 'example/app:1', resources: { requests: { cpu: '3' } } }] });
    await client.create(resources.pods, big('big-0'));
    assert.equal(await until('big-0 to be bound', () => nodeOf('big-0')), 'n3');
    await client.create(resources.pods, big('big-1'));
    const message = await until('the FailedScheduling event', () => failedScheduling('big-1'));
    assert.ok(message.startsWith("0/4 nodes are available: 1 Insufficient cpu, 3 node(s) didn't match Pod's node affinity/selector."), message);
  });
});
