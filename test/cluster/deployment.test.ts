/**
 * The Deployment controller, with the ReplicaSet controller under it, against the real API
 * server (style example 14). There is no kubelet: the test marks pods Running and Ready
 * through the pods `status` subresource, either step by step (to watch a rolling update's
 * bounds hold) or with a small "kubelet" loop that readies whatever appears.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { CoreV1Event, V1Deployment, V1Pod, V1ReplicaSet } from '@kubernetes/client-node';
import { formatTimestamp } from '../../src/api/time.ts';
import { createDeploymentController } from '../../src/cluster/deployment/controller.ts';
import { createReplicaSetController } from '../../src/cluster/replicaset/controller.ts';
import type { ApiClient } from '../../src/runtime/client.ts';
import { InformerFactory } from '../../src/runtime/informer-factory.ts';
import { resources } from '../../src/runtime/resources.ts';
import { startControllers, type RunningControllers } from '../support/controllers.ts';
import type { TestServer } from '../support/server.ts';
import { until } from '../support/until.ts';

const NS = 'default';
const REVISION = 'deployment.kubernetes.io/revision';
const WAIT_MS = 20_000;

interface DeploymentShape {
  replicas: number;
  image?: string;
  strategy?: V1Deployment['spec'] extends infer S ? (S extends { strategy?: infer T } ? T : never) : never;
  revisionHistoryLimit?: number;
  progressDeadlineSeconds?: number;
  annotations?: Record<string, string>;
}

function deployment(name: string, shape: DeploymentShape): V1Deployment {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, namespace: NS, annotations: shape.annotations },
    spec: {
      replicas: shape.replicas,
      selector: { matchLabels: { app: name } },
      strategy: shape.strategy,
      revisionHistoryLimit: shape.revisionHistoryLimit,
      progressDeadlineSeconds: shape.progressDeadlineSeconds,
      template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'c', image: shape.image ?? 'example/app:1' }] } },
    },
  };
}

describe('deployment controller on a real API server', () => {
  let cluster: RunningControllers;
  let ts: TestServer;
  let client: ApiClient;

  const livePods = async (app: string): Promise<V1Pod[]> =>
    (await client.list<V1Pod>(resources.pods, NS, { labelSelector: `app=${app}` })).items.filter((p) => !p.metadata?.deletionTimestamp);
  const replicaSetsOf = async (app: string): Promise<V1ReplicaSet[]> => (await client.list<V1ReplicaSet>(resources.replicaSets, NS, { labelSelector: `app=${app}` })).items;
  const getDeployment = (name: string) => client.get<V1Deployment>(resources.deployments, NS, name);
  const isReady = (p: V1Pod) => (p.status?.conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'True');
  const markReady = (p: V1Pod) =>
    client.patch(resources.pods, NS, p.metadata!.name!, { status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: formatTimestamp() }] } }, { subresource: 'status' }).catch(() => undefined);
  const eventsOf = async (name: string, reason: string): Promise<string[]> =>
    (await client.list<CoreV1Event>(resources.events, NS)).items.filter((e) => e.involvedObject?.name === name && e.reason === reason).map((e) => e.message ?? '');
  const setImage = (name: string, image: string) => client.patch(resources.deployments, NS, name, { spec: { template: { spec: { containers: [{ name: 'c', image }] } } } }, { type: 'strategic' });

  /** Readies every pod of `app` as it appears, until stopped: a stand-in for kubelets. */
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
    cluster = await startControllers({ userAgent: 'deployment-test', eventsAs: 'deployment-controller' }, (ctx) => [createReplicaSetController(ctx), createDeploymentController(ctx)]);
    ({ ts, client } = cluster);
  });

  after(() => cluster?.stop());

  it('brings a Deployment of 3 to 3 ready pods, and kubectl rollout status says it rolled out', async () => {
    await client.create(resources.deployments, deployment('web', { replicas: 3 }));
    const [rs] = await until('a ReplicaSet', async () => {
      const r = await replicaSetsOf('web');
      return r.length === 1 ? r : undefined;
    }, WAIT_MS);
    const hash = rs!.metadata!.labels!['pod-template-hash']!;
    assert.match(hash, /^[bcdfghjklmnpqrstvwxz2456789]+$/);
    assert.equal(rs!.metadata!.name, `web-${hash}`);
    assert.equal(rs!.metadata!.annotations![REVISION], '1');
    assert.equal(rs!.spec!.selector!.matchLabels!['pod-template-hash'], hash);
    const pods = await until('three pods', async () => {
      const p = await livePods('web');
      return p.length === 3 ? p : undefined;
    }, WAIT_MS);
    assert.ok(pods.every((p) => p.metadata?.labels?.['pod-template-hash'] === hash));

    const stopKubelet = kubelet('web');
    const rollout = await ts.kubectl(['rollout', 'status', 'deployment/web', '-n', NS, '--timeout=30s']).finally(stopKubelet);
    assert.equal(rollout.code, 0, rollout.stderr);
    assert.match(rollout.stdout, /deployment "web" successfully rolled out/);

    const d = await getDeployment('web');
    assert.equal(d.metadata?.annotations?.[REVISION], '1');
    assert.deepEqual(
      [d.status?.replicas, d.status?.updatedReplicas, d.status?.readyReplicas, d.status?.availableReplicas, d.status?.observedGeneration],
      [3, 3, 3, 3, d.metadata?.generation],
    );
    const cond = (type: string) => d.status?.conditions?.find((c) => c.type === type);
    assert.equal(cond('Available')?.reason, 'MinimumReplicasAvailable');
    assert.equal(cond('Progressing')?.reason, 'NewReplicaSetAvailable');
    assert.equal(cond('Progressing')?.message, `ReplicaSet "web-${hash}" has successfully progressed.`);
    // Events are written asynchronously by the recorder: wait for the first to land.
    const scaling = await until('the scale-up event', async () => {
      const e = await eventsOf('web', 'ScalingReplicaSet');
      return e.length > 0 ? e : undefined;
    }, WAIT_MS);
    assert.deepEqual(scaling, [`Scaled up replica set web-${hash} from 0 to 3`]);
  });

  it('rolls a template change over within maxSurge and maxUnavailable', async (t) => {
    const strategy = { type: 'RollingUpdate', rollingUpdate: { maxSurge: 1, maxUnavailable: 1 } };
    await client.create(resources.deployments, deployment('api', { replicas: 4, strategy }));
    const first = await until('four pods', async () => {
      const p = await livePods('api');
      return p.length === 4 ? p : undefined;
    }, WAIT_MS);
    for (const p of first) await markReady(p);
    await until('all four available', async () => (await getDeployment('api')).status?.availableReplicas === 4, WAIT_MS);

    // Every ReplicaSet and pod write is seen, so a surge or a dip that lasts one write is counted
    // (polling missed both under load: the scale-up and the scale-down came between two polls).
    let maxTotal = 0;
    let minReady = Infinity;
    const watching = new AbortController();
    t.after(() => watching.abort());
    const factory = new InformerFactory({ client, signal: watching.signal });
    const rsInformer = factory.informer<V1ReplicaSet>(resources.replicaSets, { namespace: NS, labelSelector: 'app=api' });
    const total = (): void => void (maxTotal = Math.max(maxTotal, rsInformer.store.list().reduce((n, rs) => n + (rs.spec?.replicas ?? 0), 0)));
    rsInformer.on('add', total);
    rsInformer.on('update', total);
    const podInformer = factory.informer<V1Pod>(resources.pods, { namespace: NS, labelSelector: 'app=api' });
    const ready = (): void => void (minReady = Math.min(minReady, podInformer.store.list().filter((p) => !p.metadata?.deletionTimestamp && isReady(p as V1Pod)).length));
    podInformer.on('add', ready);
    podInformer.on('update', ready);
    podInformer.on('delete', ready);
    await Promise.all([rsInformer.waitForSync(), podInformer.waitForSync()]);

    await setImage('api', 'example/app:2');
    // Step like a slow kubelet: one pod becomes ready per step.
    await until('the rollout to finish', async () => {
      const pods = await livePods('api');
      const d = await getDeployment('api');
      const s = d.status;
      if (s?.observedGeneration === d.metadata?.generation && s?.updatedReplicas === 4 && s?.replicas === 4 && s?.availableReplicas === 4) return true;
      const waiting = pods.find((p) => !isReady(p));
      if (waiting) await markReady(waiting);
      return false;
    }, WAIT_MS);
    watching.abort();
    // The rollout surged to its whole budget and never past it (4 + maxSurge 1 replicas: the first
    // step scales the new ReplicaSet up before anything else), and never had fewer than
    // 4 - maxUnavailable 1 ready. Whether ready pods ever touch 3 depends on where this test's
    // markReady lands between the old pods' deletions, so only the bound is asserted.
    assert.equal(maxTotal, 5, `replicas across ReplicaSets peaked at ${maxTotal}`);
    assert.ok(minReady >= 3, `ready pods dipped to ${minReady}`);

    const rss = await replicaSetsOf('api');
    const byRevision = new Map(rss.map((rs) => [rs.metadata?.annotations?.[REVISION], rs]));
    assert.equal(byRevision.get('1')?.spec?.replicas, 0);
    assert.equal(byRevision.get('2')?.spec?.replicas, 4);
    assert.equal(byRevision.get('2')?.spec?.template?.spec?.containers[0]?.image, 'example/app:2');
    // Events are written asynchronously by the recorder, so the last one may still be on its way.
    let scaling: string[] = [];
    await until('the scale-down-to-0 event', async () => {
      scaling = await eventsOf('api', 'ScalingReplicaSet');
      return scaling.some((m) => m.startsWith(`Scaled down replica set ${byRevision.get('1')!.metadata!.name} to 0 from `));
    }, WAIT_MS).catch(() => assert.fail(scaling.join('\n')));
    assert.ok(scaling.includes(`Scaled up replica set ${byRevision.get('2')!.metadata!.name} from 0 to 1`), scaling.join('\n'));
  });

  it('keeps the rollout history kubectl shows, and rolls back with kubectl rollout undo', async () => {
    const stopKubelet = kubelet('hist');
    try {
      await client.create(resources.deployments, deployment('hist', { replicas: 1, revisionHistoryLimit: 2, annotations: { 'kubernetes.io/change-cause': 'first' } }));
      for (const [n, cause] of [[2, 'second'], [3, 'third'], [4, 'fourth']] as const) {
        await until(`revision ${n - 1} to roll out`, async () => (await ts.kubectl(['rollout', 'status', 'deployment/hist', '-n', NS, '--timeout=1s'])).code === 0, WAIT_MS);
        await client.patch(resources.deployments, NS, 'hist', { metadata: { annotations: { 'kubernetes.io/change-cause': cause } }, spec: { template: { spec: { containers: [{ name: 'c', image: `example/app:${n}` }] } } } }, { type: 'strategic' });
      }
      await until('revision 4 to roll out', async () => (await ts.kubectl(['rollout', 'status', 'deployment/hist', '-n', NS, '--timeout=1s'])).code === 0, WAIT_MS);
      // revisionHistoryLimit 2: the current ReplicaSet plus the two newest old ones.
      const revisions = await until('old revisions to be cleaned up', async () => {
        const r = (await replicaSetsOf('hist')).map((rs) => rs.metadata?.annotations?.[REVISION]).sort();
        return r.length === 3 ? r : undefined;
      }, WAIT_MS);
      assert.deepEqual(revisions, ['2', '3', '4']);
      const history = await ts.kubectl(['rollout', 'history', 'deployment/hist', '-n', NS]);
      assert.equal(history.code, 0, history.stderr);
      assert.match(history.stdout, /^2\s+second$/m);
      assert.match(history.stdout, /^3\s+third$/m);
      assert.match(history.stdout, /^4\s+fourth$/m);

      const undo = await ts.kubectl(['rollout', 'undo', 'deployment/hist', '-n', NS, '--to-revision=2']);
      assert.equal(undo.code, 0, undo.stderr);
      await until('the rollback to finish', async () => {
        const d = await getDeployment('hist');
        return d.metadata?.annotations?.[REVISION] === '5' && (await ts.kubectl(['rollout', 'status', 'deployment/hist', '-n', NS, '--timeout=1s'])).code === 0;
      }, WAIT_MS);
      const rss = await replicaSetsOf('hist');
      const current = rss.find((rs) => rs.metadata?.annotations?.[REVISION] === '5');
      assert.equal(current?.spec?.template?.spec?.containers[0]?.image, 'example/app:2');
      assert.equal(current?.spec?.replicas, 1);
      assert.equal(current?.metadata?.annotations?.['deployment.kubernetes.io/revision-history'], '2');
    } finally {
      await stopKubelet();
    }
  });

  it('shares a change of replicas mid-rollout among the ReplicaSets in proportion', async () => {
    const strategy = { type: 'RollingUpdate', rollingUpdate: { maxSurge: 3, maxUnavailable: 2 } };
    await client.create(resources.deployments, deployment('prop', { replicas: 10, strategy }));
    const first = await until('ten pods', async () => {
      const p = await livePods('prop');
      return p.length === 10 ? p : undefined;
    }, WAIT_MS);
    for (const p of first) await markReady(p);
    await until('ten available', async () => (await getDeployment('prop')).status?.availableReplicas === 10, WAIT_MS);
    // New pods never become ready, so the rollout stalls at old 8 + new 5 (13 = 10 + maxSurge 3; 8 = 10 - maxUnavailable 2).
    await setImage('prop', 'example/app:2');
    const sizes = async () => {
      const rss = await replicaSetsOf('prop');
      const rev = (r: string) => rss.find((rs) => rs.metadata?.annotations?.[REVISION] === r)?.spec?.replicas;
      return [rev('1'), rev('2')];
    };
    await until('the rollout to stall at 8 + 5', async () => JSON.stringify(await sizes()) === '[8,5]', WAIT_MS);

    await client.patch(resources.deployments, NS, 'prop', { spec: { replicas: 20 } });
    // 23 allowed (20 + 3): old 8 → round(8 × 23 / 13) = 14, new 5 → round(5 × 23 / 13) = 9.
    await until('proportional sizes', async () => JSON.stringify(await sizes()) === '[14,9]', WAIT_MS);
    const rss = await replicaSetsOf('prop');
    for (const rs of rss) assert.equal(rs.metadata?.annotations?.['deployment.kubernetes.io/desired-replicas'], '20');
  });

  it('with Recreate, starts new pods only once the old ones are gone', async () => {
    await client.create(resources.deployments, deployment('batch', { replicas: 2, strategy: { type: 'Recreate' } }));
    for (const p of await until('two pods', async () => {
      const x = await livePods('batch');
      return x.length === 2 ? x : undefined;
    }, WAIT_MS))
      await markReady(p);
    await setImage('batch', 'example/app:2');
    let mixed = false;
    await until('two new pods', async () => {
      const pods = await livePods('batch');
      const images = new Set(pods.map((p) => p.spec?.containers[0]?.image));
      if (images.size > 1) mixed = true;
      return pods.length === 2 && images.size === 1 && images.has('example/app:2');
    }, WAIT_MS);
    assert.equal(mixed, false, 'old and new pods ran at the same time');
    const scaling = await until('three scaling events', async () => {
      const e = await eventsOf('batch', 'ScalingReplicaSet');
      return e.length === 3 ? e : undefined;
    }, WAIT_MS);
    const [oldRS, newRS] = await Promise.all(['1', '2'].map(async (r) => (await replicaSetsOf('batch')).find((rs) => rs.metadata?.annotations?.[REVISION] === r)!.metadata!.name));
    assert.deepEqual(scaling.sort(), [`Scaled down replica set ${oldRS} to 0 from 2`, `Scaled up replica set ${newRS} from 0 to 2`, `Scaled up replica set ${oldRS} from 0 to 2`].sort());
  });

  it('reports ProgressDeadlineExceeded when pods never become ready, and rollout status fails', async () => {
    await client.create(resources.deployments, deployment('stuck', { replicas: 1, progressDeadlineSeconds: 1 }));
    const cond = await until(
      'the deadline to pass',
      async () => (await getDeployment('stuck')).status?.conditions?.find((c) => c.type === 'Progressing' && c.reason === 'ProgressDeadlineExceeded'),
      WAIT_MS,
    );
    assert.equal(cond.status, 'False');
    assert.match(cond.message ?? '', /^ReplicaSet "stuck-\w+" has timed out progressing\.$/);
    const rollout = await ts.kubectl(['rollout', 'status', 'deployment/stuck', '-n', NS, '--timeout=10s']);
    assert.notEqual(rollout.code, 0);
    assert.match(rollout.stderr, /deployment "stuck" exceeded its progress deadline/);
  });

  it('does not roll out while paused, and says so in Progressing', async () => {
    await client.create(resources.deployments, deployment('held', { replicas: 1 }));
    await until('a pod', async () => (await livePods('held')).length === 1, WAIT_MS);
    await client.patch(resources.deployments, NS, 'held', { spec: { paused: true } });
    await setImage('held', 'example/app:2');
    const cond = await until('the paused condition', async () => (await getDeployment('held')).status?.conditions?.find((c) => c.type === 'Progressing' && c.reason === 'DeploymentPaused'), WAIT_MS);
    assert.equal(cond.status, 'Unknown');
    await until('observedGeneration to catch up', async () => {
      const d = await getDeployment('held');
      return d.status?.observedGeneration === d.metadata?.generation;
    }, WAIT_MS);
    assert.equal((await replicaSetsOf('held')).length, 1);

    await client.patch(resources.deployments, NS, 'held', { spec: { paused: false } });
    await until('a second ReplicaSet', async () => (await replicaSetsOf('held')).length === 2, WAIT_MS);
  });
});
