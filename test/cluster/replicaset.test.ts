/**
 * The ReplicaSet controller against the real API server (style example 14): pods are created
 * and deleted through the API and the outcome read back from it. There is no kubelet, so the
 * test marks pods Running and Ready through the pods `status` subresource itself.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { CoreV1Event, V1Pod, V1ReplicaSet } from '@kubernetes/client-node';
import { formatTimestamp } from '../../src/api/time.ts';
import { createReplicaSetController } from '../../src/cluster/replicaset/controller.ts';
import type { ApiClient } from '../../src/runtime/client.ts';
import { resources } from '../../src/runtime/resources.ts';
import { startControllers, type RunningControllers } from '../support/controllers.ts';
import { until } from '../support/until.ts';

const NS = 'default';

function replicaSet(name: string, replicas: number, labels: Record<string, string>, extra: { finalizers?: string[] } = {}): V1ReplicaSet {
  return {
    apiVersion: 'apps/v1',
    kind: 'ReplicaSet',
    metadata: { name, namespace: NS },
    spec: {
      replicas,
      selector: { matchLabels: labels },
      template: { metadata: { labels, finalizers: extra.finalizers }, spec: { containers: [{ name: 'c', image: 'example/app:1' }] } },
    },
  };
}

describe('replicaset controller on a real API server', () => {
  let cluster: RunningControllers;
  let client: ApiClient;

  const podsOf = async (app: string): Promise<V1Pod[]> => (await client.list<V1Pod>(resources.pods, NS, { labelSelector: `app=${app}` })).items;
  const rsStatus = async (name: string) => (await client.get<V1ReplicaSet>(resources.replicaSets, NS, name)).status;
  const events = async (name: string, reason: string): Promise<string[]> =>
    (await client.list<CoreV1Event>(resources.events, NS)).items.filter((e) => e.involvedObject?.name === name && e.reason === reason).map((e) => e.message ?? '');
  const markReady = (pod: V1Pod) =>
    client.patch(resources.pods, NS, pod.metadata!.name!, { status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: formatTimestamp() }] } }, { subresource: 'status' });

  before(async () => {
    cluster = await startControllers({ userAgent: 'replicaset-test', eventsAs: 'replicaset-controller' }, (ctx) => [createReplicaSetController(ctx)]);
    ({ client } = cluster);
  });

  after(() => cluster?.stop());

  it('creates pods named after the ReplicaSet and reports them in its status', async () => {
    const rs = await client.create(resources.replicaSets, replicaSet('web', 3, { app: 'web' }));
    const pods = await until('three pods', async () => {
      const p = await podsOf('web');
      return p.length === 3 ? p : undefined;
    });
    for (const p of pods) {
      assert.match(p.metadata!.name!, /^web-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
      assert.deepEqual(p.metadata?.ownerReferences?.map((r) => [r.kind, r.name, r.uid, r.controller]), [['ReplicaSet', 'web', rs.metadata!.uid, true]]);
    }
    await markReady(pods[0]!);
    await markReady(pods[1]!);
    const status = await until('two ready replicas', async () => {
      const s = await rsStatus('web');
      return s?.readyReplicas === 2 ? s : undefined;
    });
    assert.equal(status.replicas, 3);
    assert.equal(status.fullyLabeledReplicas, 3);
    assert.equal(status.availableReplicas, 2);
    assert.equal(status.observedGeneration, 1);
    const created = await until('SuccessfulCreate events', async () => {
      const e = await events('web', 'SuccessfulCreate');
      return e.length === 3 ? e : undefined;
    });
    assert.deepEqual(created.sort(), pods.map((p) => `Created pod: ${p.metadata!.name}`).sort());
  });

  it('adopts matching orphans and deletes the extras, not-ready ones first', async () => {
    const orphan = (name: string): V1Pod => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: NS, labels: { app: 'api' } }, spec: { containers: [{ name: 'c', image: 'example/app:1' }] } });
    const keep = await client.create(resources.pods, orphan('api-keep'));
    await markReady(keep);
    await client.create(resources.pods, orphan('api-extra-1'));
    await client.create(resources.pods, orphan('api-extra-2'));
    const rs = await client.create(resources.replicaSets, replicaSet('api', 1, { app: 'api' }));

    const left = await until('one pod left', async () => {
      const p = (await podsOf('api')).filter((x) => !x.metadata?.deletionTimestamp);
      return p.length === 1 ? p : undefined;
    });
    assert.equal(left[0]!.metadata!.name, 'api-keep');
    assert.equal(left[0]!.metadata!.ownerReferences?.[0]?.uid, rs.metadata!.uid);
    const deleted = await until('SuccessfulDelete events', async () => {
      const e = await events('api', 'SuccessfulDelete');
      return e.length === 2 ? e : undefined;
    });
    assert.deepEqual(deleted.sort(), ['Deleted pod: api-extra-1', 'Deleted pod: api-extra-2']);
    assert.deepEqual(await events('api', 'SuccessfulCreate'), []);
  });

  it('releases a pod relabelled out of the selector and replaces it', async () => {
    await client.create(resources.replicaSets, replicaSet('worker', 1, { app: 'worker' }));
    const [first] = await until('a worker pod', async () => {
      const p = await podsOf('worker');
      return p.length === 1 ? p : undefined;
    });
    await client.patch(resources.pods, NS, first!.metadata!.name!, { metadata: { labels: { app: 'debug' } } });
    const released = await until('the pod to be released', async () => {
      const p = await client.get<V1Pod>(resources.pods, NS, first!.metadata!.name!);
      return (p.metadata?.ownerReferences ?? []).length === 0 ? p : undefined;
    });
    assert.equal(released.metadata?.labels?.app, 'debug');
    const [replacement] = await until('a replacement', async () => {
      const p = await podsOf('worker');
      return p.length === 1 && p[0]!.metadata!.name !== first!.metadata!.name ? p : undefined;
    });
    assert.match(replacement!.metadata!.name!, /^worker-/);
  });

  it('reports a create the API refuses as ReplicaFailure and a FailedCreate event', async () => {
    await client.create(resources.replicaSets, replicaSet('broken', 2, { app: 'broken' }, { finalizers: ['not a valid name'] }));
    const condition = await until('ReplicaFailure', async () => (await rsStatus('broken'))?.conditions?.find((c) => c.type === 'ReplicaFailure'));
    assert.equal(condition.status, 'True');
    assert.equal(condition.reason, 'FailedCreate');
    assert.match(condition.message ?? '', /^Pod "broken-\w{5}" is invalid: metadata\.finalizers\[0\]/);
    const failed = await until('FailedCreate', async () => {
      const e = await events('broken', 'FailedCreate');
      return e.length ? e : undefined;
    });
    assert.match(failed[0]!, /^Error creating: Pod "broken-\w{5}" is invalid/);
    assert.equal((await podsOf('broken')).length, 0);

    // Fixing the template lets the next pass create both pods and clear the condition.
    await client.patch(resources.replicaSets, NS, 'broken', { spec: { template: { metadata: { finalizers: null } } } });
    await until('two pods', async () => (await podsOf('broken')).length === 2);
    await until('the condition to clear', async () => {
      const s = await rsStatus('broken');
      return !s?.conditions?.some((c) => c.type === 'ReplicaFailure') && s?.replicas === 2;
    });
  });
});
