/**
 * The DaemonSet controller against the real API server (style example 14), over hand-made
 * Nodes. No scheduler and no kubelet run here: a daemon pod is pinned to its node by required
 * node affinity on `metadata.name` (the scheduler would bind it), and the test marks pods
 * Running and Ready through the pods `status` subresource itself.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { V1DaemonSet, V1Node, V1Pod, V1Taint } from '@kubernetes/client-node';
import { formatTimestamp } from '../../src/api/time.ts';
import { createDaemonSetController } from '../../src/cluster/daemonset/controller.ts';
import type { ApiClient } from '../../src/runtime/client.ts';
import { resources } from '../../src/runtime/resources.ts';
import { startControllers, type RunningControllers } from '../support/controllers.ts';
import type { TestServer } from '../support/server.ts';
import { until } from '../support/until.ts';

const NS = 'default';
const HASH = 'controller-revision-hash';
const WAIT_MS = 20_000;

function node(name: string, labels: Record<string, string>, taints?: V1Taint[]): V1Node {
  return { apiVersion: 'v1', kind: 'Node', metadata: { name, labels: { 'kubernetes.io/hostname': name, ...labels } }, spec: { taints } };
}

function daemonSet(name: string, spec: { nodeSelector?: Record<string, string>; tolerations?: V1Taint[]; strategy?: NonNullable<V1DaemonSet['spec']>['updateStrategy']; image?: string }): V1DaemonSet {
  return {
    apiVersion: 'apps/v1',
    kind: 'DaemonSet',
    metadata: { name, namespace: NS },
    spec: {
      selector: { matchLabels: { app: name } },
      updateStrategy: spec.strategy,
      template: {
        metadata: { labels: { app: name } },
        spec: { nodeSelector: spec.nodeSelector, tolerations: spec.tolerations, containers: [{ name: 'c', image: spec.image ?? 'example/agent:1' }] },
      },
    },
  };
}

describe('daemonset controller on a real API server', () => {
  let cluster: RunningControllers;
  let ts: TestServer;
  let client: ApiClient;

  const targetOf = (p: V1Pod): string | undefined =>
    p.spec?.nodeName ?? p.spec?.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms[0]?.matchFields?.[0]?.values?.[0];
  const livePods = async (app: string): Promise<V1Pod[]> =>
    (await client.list<V1Pod>(resources.pods, NS, { labelSelector: `app=${app}` })).items.filter((p) => !p.metadata?.deletionTimestamp);
  const placed = async (app: string): Promise<string[]> => (await livePods(app)).map((p) => targetOf(p) ?? '?').sort();
  const isReady = (p: V1Pod) => (p.status?.conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'True');
  const markReady = (p: V1Pod) =>
    client.patch(resources.pods, NS, p.metadata!.name!, { status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: formatTimestamp() }] } }, { subresource: 'status' }).catch(() => undefined);
  const getDs = (name: string) => client.get<V1DaemonSet>(resources.daemonSets, NS, name);

  function kubelet(app: string): () => Promise<void> {
    let stopped = false;
    const loop = (async () => {
      while (!stopped) {
        for (const p of await livePods(app)) if (!isReady(p)) await markReady(p);
        await new Promise((r) => setTimeout(r, 30));
      }
    })();
    return async () => {
      stopped = true;
      await loop;
    };
  }

  before(async () => {
    const seed = async (c: ApiClient) => {
      for (const n of [
        node('n1', { role: 'worker' }),
        node('n2', { role: 'worker' }, [{ key: 'dedicated', value: 'gpu', effect: 'NoSchedule' }]),
        // Cordoned: DaemonSet pods tolerate that by default.
        node('n3', { role: 'worker' }, [{ key: 'node.kubernetes.io/unschedulable', effect: 'NoSchedule' }]),
        node('n4', { role: 'infra' }),
        node('n5', { role: 'worker' }, [{ key: 'maintenance', effect: 'NoExecute' }]),
      ]) {
        await c.create(resources.nodes, n);
      }
    };
    cluster = await startControllers({ userAgent: 'daemonset-test', eventsAs: 'daemonset-controller', seed }, (ctx) => [createDaemonSetController(ctx)]);
    ({ ts, client } = cluster);
  });

  after(() => cluster?.stop());

  it('places one pod per matching node, respecting nodeSelector and taints', async () => {
    await client.create(resources.daemonSets, daemonSet('agent', { nodeSelector: { role: 'worker' } }));
    assert.deepEqual(await until('pods on n1 and n3', async () => {
      const p = await placed('agent');
      return p.length === 2 ? p : undefined;
    }, WAIT_MS), ['n1', 'n3']);
    const pods = await livePods('agent');
    for (const p of pods) {
      assert.match(p.metadata!.name!, /^agent-\w{5}$/);
      assert.equal(p.metadata?.ownerReferences?.[0]?.kind, 'DaemonSet');
      assert.ok(p.metadata?.labels?.[HASH]);
      const keys = (p.spec?.tolerations ?? []).map((t) => `${t.key}:${t.effect}`);
      for (const k of ['node.kubernetes.io/not-ready:NoExecute', 'node.kubernetes.io/unreachable:NoExecute', 'node.kubernetes.io/unschedulable:NoSchedule', 'node.kubernetes.io/disk-pressure:NoSchedule']) {
        assert.ok(keys.includes(k), `${k} in ${keys.join(', ')}`);
      }
      assert.equal(p.spec?.nodeName ?? '', '', 'left for the scheduler to bind');
    }
    // The controller writes status after it has seen its pods come back through the informer:
    // wait for the write that counts them, then check all of it.
    const before = await until('status counting both pods', async () => {
      const ds = await getDs('agent');
      return ds.status?.currentNumberScheduled === 2 ? ds : undefined;
    }, WAIT_MS);
    assert.deepEqual(
      [before.status?.desiredNumberScheduled, before.status?.currentNumberScheduled, before.status?.numberMisscheduled, before.status?.numberReady],
      [2, 2, 0, 0],
    );

    const stopKubelet = kubelet('agent');
    try {
      const rollout = await ts.kubectl(['rollout', 'status', 'ds/agent', '-n', NS, '--timeout=30s']);
      assert.equal(rollout.code, 0, rollout.stderr);
      assert.match(rollout.stdout, /daemon set "agent" successfully rolled out/);
      const s = (await getDs('agent')).status;
      assert.deepEqual([s?.numberReady, s?.numberAvailable, s?.updatedNumberScheduled, s?.numberUnavailable], [2, 2, 2, 0]);

      // A node that starts matching gets a pod; one that stops matching loses it.
      await client.patch(resources.nodes, undefined, 'n4', { metadata: { labels: { role: 'worker' } } });
      await client.patch(resources.nodes, undefined, 'n1', { metadata: { labels: { role: 'infra' } } });
      assert.deepEqual(await until('pods on n3 and n4', async () => {
        const p = await placed('agent');
        return JSON.stringify(p) === '["n3","n4"]' ? p : undefined;
      }, WAIT_MS), ['n3', 'n4']);
    } finally {
      await stopKubelet();
    }
  });

  it('replaces pods on a template change, one node at a time', async () => {
    const gpu = { key: 'dedicated', operator: 'Equal', value: 'gpu', effect: 'NoSchedule' } as V1Taint;
    await client.create(resources.daemonSets, daemonSet('logs', { strategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 1 } } }));
    // n5's NoExecute taint is not tolerated; n2's gpu taint is not yet.
    await until('pods on n1, n3, n4', async () => JSON.stringify(await placed('logs')) === '["n1","n3","n4"]', WAIT_MS);
    for (const p of await livePods('logs')) await markReady(p);
    await until('all available', async () => (await getDs('logs')).status?.numberAvailable === 3, WAIT_MS);
    const oldHash = (await livePods('logs'))[0]!.metadata!.labels![HASH];

    await client.patch(resources.daemonSets, NS, 'logs', { spec: { template: { spec: { tolerations: [gpu], containers: [{ name: 'c', image: 'example/agent:2' }] } } } }, { type: 'strategic' });
    let minAvailableNodes = Infinity;
    await until('every node on the new template', async () => {
      const pods = await livePods('logs');
      const readyNodes = new Set(pods.filter(isReady).map(targetOf));
      // n2 only now becomes eligible, so only the three old nodes are held to the budget.
      minAvailableNodes = Math.min(minAvailableNodes, ['n1', 'n3', 'n4'].filter((n) => readyNodes.has(n)).length);
      const waiting = pods.find((p) => !isReady(p));
      if (waiting) await markReady(waiting);
      const ds = await getDs('logs');
      const s = ds.status;
      return s?.observedGeneration === ds.metadata?.generation && s?.updatedNumberScheduled === 4 && s?.numberAvailable === 4 && pods.length === 4 && pods.every(isReady);
    }, WAIT_MS);
    assert.equal(minAvailableNodes, 2, 'maxUnavailable 1: never more than one of the three nodes without a ready pod');
    const pods = await livePods('logs');
    assert.deepEqual(pods.map(targetOf).sort(), ['n1', 'n2', 'n3', 'n4']);
    assert.ok(pods.every((p) => p.metadata?.labels?.[HASH] !== oldHash && p.spec?.containers[0]?.image === 'example/agent:2'));
    const rollout = await ts.kubectl(['rollout', 'status', 'ds/logs', '-n', NS, '--timeout=10s']);
    assert.equal(rollout.code, 0, rollout.stderr);
  });

  it('with maxSurge, starts the new pod beside the old one and removes the old one once the new is available', async () => {
    await client.create(resources.daemonSets, daemonSet('proxy', { nodeSelector: { 'kubernetes.io/hostname': 'n3' }, strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 1, maxUnavailable: 0 } } }));
    const [old] = await until('a pod on n3', async () => {
      const p = await livePods('proxy');
      return p.length === 1 ? p : undefined;
    }, WAIT_MS);
    await markReady(old!);
    await until('available', async () => (await getDs('proxy')).status?.numberAvailable === 1, WAIT_MS);
    await client.patch(resources.daemonSets, NS, 'proxy', { spec: { template: { spec: { containers: [{ name: 'c', image: 'example/agent:2' }] } } } }, { type: 'strategic' });
    const surged = await until('a second pod on n3', async () => {
      const p = await livePods('proxy');
      return p.length === 2 ? p : undefined;
    }, WAIT_MS);
    assert.deepEqual(surged.map(targetOf), ['n3', 'n3']);
    const fresh = surged.find((p) => p.metadata?.name !== old!.metadata?.name)!;
    assert.equal(isReady(fresh), false);
    assert.equal((await livePods('proxy')).length, 2, 'the old pod stays while the new one is not ready');
    await markReady(fresh);
    const [left] = await until('only the new pod', async () => {
      const p = await livePods('proxy');
      return p.length === 1 ? p : undefined;
    }, WAIT_MS);
    assert.equal(left!.metadata?.name, fresh.metadata?.name);
  });

  it('with OnDelete, keeps old pods until they are deleted by hand', async () => {
    await client.create(resources.daemonSets, daemonSet('manual', { nodeSelector: { 'kubernetes.io/hostname': 'n4' }, strategy: { type: 'OnDelete' } }));
    const [old] = await until('a pod on n4', async () => {
      const p = await livePods('manual');
      return p.length === 1 ? p : undefined;
    }, WAIT_MS);
    await client.patch(resources.daemonSets, NS, 'manual', { spec: { template: { spec: { containers: [{ name: 'c', image: 'example/agent:2' }] } } } }, { type: 'strategic' });
    await until('the new generation to be observed', async () => {
      const ds = await getDs('manual');
      return ds.status?.observedGeneration === ds.metadata?.generation && ds.status?.updatedNumberScheduled === 0;
    }, WAIT_MS);
    assert.equal((await livePods('manual'))[0]?.metadata?.name, old!.metadata?.name);
    await client.delete(resources.pods, NS, old!.metadata!.name!);
    const [replacement] = await until('a replacement', async () => {
      const p = await livePods('manual');
      return p.length === 1 && p[0]!.metadata?.name !== old!.metadata?.name ? p : undefined;
    }, WAIT_MS);
    assert.equal(replacement!.spec?.containers[0]?.image, 'example/agent:2');
    assert.notEqual(replacement!.metadata?.labels?.[HASH], old!.metadata?.labels?.[HASH]);
  });
});
