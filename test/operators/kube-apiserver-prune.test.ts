/**
 * The kube-apiserver operator's prune controller (issue 17, item 4; reference §9) against a real
 * API server, with the garbage collector running beside it as kube-controller-manager runs it:
 * with 8 revisions and both masters at 8, it runs `revision-pruner-8-<node>` once per master
 * (upstream's args, owned by revision-status-8) and deletes revision-status-1…3, whose copies
 * the collector then removes; a new latest keeps what a node below it still needs, and prunes
 * it once every node has moved on.
 */
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, it } from 'node:test';
import type { CoreV1Event, V1ConfigMap, V1Pod } from '@kubernetes/client-node';
import { KubeAPIServer, operatorCRDs, type NodeStatus } from '../../src/api/operator/index.ts';
import { createGarbageCollector } from '../../src/cluster/garbagecollector/controller.ts';
import { createPruneController } from '../../src/operators/kube-apiserver/prune/controller.ts';
import { isAlreadyExists, type ApiClient } from '../../src/runtime/client.ts';
import { refOf, resources } from '../../src/runtime/resources.ts';
import { startControllers, type RunningControllers } from '../support/controllers.ts';
import { until } from '../support/until.ts';

const NS = 'openshift-kube-apiserver';
const OPERATOR_NS = 'openshift-kube-apiserver-operator';
const CRS = refOf(KubeAPIServer);
const SLOW = { timeoutMs: 30_000 };
const IMAGE = 'shipyard/cluster-kube-apiserver-operator:test';

describe('kube-apiserver prune controller (API server, garbage collector)', () => {
  let rc: RunningControllers;
  let client: ApiClient;

  const cr = () => client.get<KubeAPIServer>(CRS, undefined, 'cluster');
  const setStatus = async (status: { latestAvailableRevision?: number; nodeStatuses?: NodeStatus[] }) => {
    const c = await cr();
    await client.updateStatus(CRS, { ...c, status: { ...c.status, ...status } });
  };
  const names = async (prefix: string) =>
    (await client.list<V1ConfigMap>(resources.configMaps, NS)).items
      .map((c) => c.metadata?.name ?? '')
      .filter((n) => new RegExp(`^${prefix}\\d+$`).test(n))
      .sort((a, b) => Number(a.slice(prefix.length)) - Number(b.slice(prefix.length)));
  const pod = (name: string) => client.get<V1Pod>(resources.pods, NS, name).catch(() => undefined);
  const range = (prefix: string, from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => `${prefix}${from + i}`);
  /** revision-status-N and its copy config-N, owned by it, as the revision controller cuts them. */
  const cutRevision = async (admin: ApiClient, n: number) => {
    const status = await admin.create<V1ConfigMap>(resources.configMaps, {
      metadata: { name: `revision-status-${n}`, namespace: NS, annotations: { 'operator.openshift.io/revision-ready': 'true' } },
      data: { revision: String(n), reason: 'test' },
    });
    await admin.create<V1ConfigMap>(resources.configMaps, {
      metadata: { name: `config-${n}`, namespace: NS, ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: status.metadata!.name!, uid: status.metadata!.uid! }] },
      data: { 'config.yaml': `{"revision":${n}}` },
    });
  };

  before(async () => {
    rc = await startControllers(
      {
        userAgent: 'kas-prune-test',
        eventsAs: 'kube-apiserver-operator-prune',
        seed: async (admin) => {
          for (const crd of operatorCRDs()) await admin.create(resources.customResourceDefinitions, crd as never);
          await until('kubeapiservers served', () => admin.list(CRS).then(() => true), { retryErrors: true, ...SLOW });
          for (const name of [NS, OPERATOR_NS]) {
            await admin.create(resources.namespaces, { apiVersion: 'v1', kind: 'Namespace', metadata: { name } }).catch((e) => {
              if (!isAlreadyExists(e)) throw e;
            });
          }
          for (let n = 1; n <= 8; n++) await cutRevision(admin, n);
          const created = await admin.create<KubeAPIServer>(CRS, { apiVersion: KubeAPIServer.apiVersion, kind: 'KubeAPIServer', metadata: { name: 'cluster' }, spec: { managementState: 'Managed' } });
          // An entry is created without revisions (the API refuses them on create), then moved.
          const named = await admin.updateStatus(CRS, { ...created, status: { latestAvailableRevision: 8, nodeStatuses: [{ nodeName: 'master-0' }, { nodeName: 'master-1' }] } });
          await admin.updateStatus(CRS, { ...named, status: { ...named.status, nodeStatuses: [{ nodeName: 'master-0', currentRevision: 8 }, { nodeName: 'master-1', currentRevision: 8 }] } });
        },
      },
      (ctx) => [createPruneController(ctx, { image: IMAGE }), createGarbageCollector(ctx)],
    );
    client = rc.client;
  });
  after(() => rc?.stop());

  it('runs revision-pruner-<latest>-<node> on every master, as upstream specs it', async () => {
    const status8 = await client.get<V1ConfigMap>(resources.configMaps, NS, 'revision-status-8');
    for (const node of ['master-0', 'master-1']) {
      const p = await until(`revision-pruner-8-${node}`, () => pod(`revision-pruner-8-${node}`), SLOW);
      assert.deepEqual(p.metadata?.labels, { app: 'pruner' });
      assert.deepEqual(p.metadata?.ownerReferences?.map((r) => [r.kind, r.name, r.uid]), [['ConfigMap', 'revision-status-8', status8.metadata?.uid]]);
      assert.equal(p.spec?.nodeName, node);
      assert.equal(p.spec?.restartPolicy, 'Never');
      assert.deepEqual(p.spec?.tolerations, [{ operator: 'Exists' }]);
      const c = p.spec!.containers[0]!;
      assert.equal(c.image, IMAGE);
      assert.deepEqual(c.command, ['cluster-kube-apiserver-operator', 'prune']);
      assert.deepEqual(c.args, ['-v=4', '--max-eligible-revision=8', '--protected-revisions=4,5,6,7,8', '--resource-dir=/etc/kubernetes/static-pod-resources', '--static-pod-name=kube-apiserver-pod']);
      assert.deepEqual(p.spec?.volumes?.[0]?.hostPath?.path, '/etc/kubernetes/');
    }
    const created = await until(
      'PodCreated events',
      async () => {
        const messages = (await client.list<CoreV1Event>(resources.events, OPERATOR_NS)).items.filter((e) => e.reason === 'PodCreated').map((e) => e.message ?? '');
        return messages.length >= 2 ? messages.sort() : undefined;
      },
      SLOW,
    );
    assert.deepEqual(created, [`Created Pod/revision-pruner-8-master-0 -n ${NS} because it was missing`, `Created Pod/revision-pruner-8-master-1 -n ${NS} because it was missing`]);
  });

  it('deletes the revisions it does not keep, and the collector takes their copies', async () => {
    await until('revision-status-1…3 gone', async () => (await names('revision-status-')).join() === range('revision-status-', 4, 8).join(), SLOW);
    await until('config-1…3 gone', async () => (await names('config-')).join() === range('config-', 4, 8).join(), SLOW);
  });

  it('creates a pruner pod once: a later sync leaves it alone', async () => {
    const before = await pod('revision-pruner-8-master-0');
    await client.updateStatus(CRS, { ...(await cr()), status: { ...(await cr()).status, readyReplicas: 1 } });
    await sleep(300);
    assert.equal((await pod('revision-pruner-8-master-0'))?.metadata?.uid, before?.metadata?.uid);
  });

  it('a new latest keeps what the masters below it still need, and prunes it once they have moved on', async () => {
    await cutRevision(client, 9);
    await setStatus({ latestAvailableRevision: 9, nodeStatuses: [{ nodeName: 'master-0', currentRevision: 8, targetRevision: 9 }, { nodeName: 'master-1', currentRevision: 8 }] });
    const p = await until('revision-pruner-9-master-1', () => pod('revision-pruner-9-master-1'), SLOW);
    assert.equal(p.spec?.containers[0]?.args?.[2], '--protected-revisions=4,5,6,7,8,9');
    await sleep(300);
    assert.deepEqual(await names('revision-status-'), range('revision-status-', 4, 9), 'revision 4 is still a master’s fallback');

    await setStatus({ nodeStatuses: [{ nodeName: 'master-0', currentRevision: 9 }, { nodeName: 'master-1', currentRevision: 9 }] });
    await until('revision-status-4 gone', async () => (await names('revision-status-')).join() === range('revision-status-', 5, 9).join(), SLOW);
    await until('config-4 gone', async () => (await names('config-')).join() === range('config-', 5, 9).join(), SLOW);
    assert.ok(await pod('revision-pruner-9-master-0'));
    // Its pruner pods were owned by revision 8, which is kept; they stay.
    assert.ok(await pod('revision-pruner-8-master-0'));
  });
});
