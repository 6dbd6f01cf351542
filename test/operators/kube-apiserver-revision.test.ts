/**
 * The kube-apiserver operator's revision controller (issue 17, item 4) against a real API
 * server with the KubeAPIServer CRD: revision 1 from the rendered inputs (reason, ready
 * annotation, label, owned copies, events with upstream's texts, latestAvailableRevision); no
 * revision while nothing changes; a changed input cuts the next one with its reason; a missing
 * required input blocks with RevisionControllerDegraded=True and recovers; an optional Secret
 * appearing cuts a revision; a ready revision-status the status does not know yet is recorded.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { CoreV1Event, V1ConfigMap, V1Secret } from '@kubernetes/client-node';
import { KubeAPIServer, operatorCRDs } from '../../src/api/operator/index.ts';
import { createRevisionController } from '../../src/operators/kube-apiserver/revision/controller.ts';
import { isAlreadyExists, type ApiClient } from '../../src/runtime/client.ts';
import { refOf, resources } from '../../src/runtime/resources.ts';
import { startControllers, type RunningControllers } from '../support/controllers.ts';
import { until } from '../support/until.ts';

const NS = 'openshift-kube-apiserver';
const OPERATOR_NS = 'openshift-kube-apiserver-operator';
const CRS = refOf(KubeAPIServer);
const SLOW = { timeoutMs: 30_000 };

describe('kube-apiserver revision controller (API server)', () => {
  let rc: RunningControllers;
  let client: ApiClient;

  const cr = () => client.get<KubeAPIServer>(CRS, undefined, 'cluster');
  const cm = (name: string) => client.get<V1ConfigMap>(resources.configMaps, NS, name);
  const latest = async () => (await cr()).status?.latestAvailableRevision ?? 0;
  const degraded = async () => (await cr()).status?.conditions?.find((c) => c.type === 'RevisionControllerDegraded');
  const events = async (reason: string): Promise<string[]> =>
    (await client.list<CoreV1Event>(resources.events, OPERATOR_NS)).items.filter((e) => e.reason === reason).map((e) => e.message ?? '');
  const setData = async (name: string, data: Record<string, string>) => {
    const obj = await cm(name);
    await client.update(resources.configMaps, { ...obj, data });
  };

  before(async () => {
    rc = await startControllers(
      {
        userAgent: 'kas-revision-test',
        eventsAs: 'kube-apiserver-operator-revision',
        seed: async (admin) => {
          for (const crd of operatorCRDs()) await admin.create(resources.customResourceDefinitions, crd as never);
          await until('kubeapiservers served', () => admin.list(CRS).then(() => true), { retryErrors: true, ...SLOW });
          for (const name of [NS, OPERATOR_NS]) {
            await admin.create(resources.namespaces, { apiVersion: 'v1', kind: 'Namespace', metadata: { name } }).catch((e) => {
              if (!isAlreadyExists(e)) throw e;
            });
          }
          await admin.create(CRS, { apiVersion: KubeAPIServer.apiVersion, kind: 'KubeAPIServer', metadata: { name: 'cluster' }, spec: { managementState: 'Managed' } });
          await admin.create<V1ConfigMap>(resources.configMaps, { metadata: { name: 'kube-apiserver-pod', namespace: NS }, data: { 'pod.yaml': 'pod-1', forceRedeploymentReason: '', version: '0.1.0' } });
          await admin.create<V1ConfigMap>(resources.configMaps, { metadata: { name: 'config', namespace: NS }, data: { 'config.yaml': '{"a":1}' } });
        },
      },
      (ctx) => [
        createRevisionController(ctx, {
          inputs: [
            { kind: 'configmap', name: 'kube-apiserver-pod' },
            { kind: 'configmap', name: 'config' },
            { kind: 'secret', name: 'encryption-config', optional: true },
          ],
        }),
      ],
    );
    client = rc.client;
  });
  after(() => rc?.stop());

  it('cuts revision 1 from the rendered inputs', async () => {
    await until('latestAvailableRevision 1', async () => (await latest()) === 1, SLOW);
    const status = await cm('revision-status-1');
    assert.deepEqual(status.data, { revision: '1', reason: 'configmaps "kube-apiserver-pod-0" not found' });
    assert.equal(status.metadata?.annotations?.['operator.openshift.io/revision-ready'], 'true');
    assert.equal(status.metadata?.labels?.['operator.openshift.io/controller-instance-name'], 'kube-apiserver-RevisionController');
    for (const name of ['kube-apiserver-pod', 'config']) {
      const copy = await cm(`${name}-1`);
      assert.deepEqual(copy.data, (await cm(name)).data, name);
      assert.deepEqual(copy.metadata?.ownerReferences?.map((r) => [r.kind, r.name, r.uid]), [['ConfigMap', 'revision-status-1', status.metadata?.uid]]);
      assert.equal(copy.metadata?.labels?.['operator.openshift.io/controller-instance-name'], 'kube-apiserver-RevisionController');
    }
    await assert.rejects(client.get(resources.secrets, NS, 'encryption-config-1'), /not found/, 'an absent optional input is not copied');
    const want = 'new revision 1 triggered by "configmaps \\"kube-apiserver-pod-0\\" not found"';
    await until('events', async () => (await events('RevisionTriggered')).includes(want), SLOW);
    assert.ok((await events('StartingNewRevision')).includes(want));
    assert.ok((await events('ConfigMapCreated')).includes(`Created ConfigMap/config-1 -n ${NS} because it was missing`));
    const cond = await until('condition', degraded);
    assert.equal(cond.status, 'False');
    assert.equal(cond.reason, 'AsExpected');
  });

  it('cuts nothing while the inputs are unchanged (labels and annotations are not content)', async () => {
    const obj = await cm('config');
    await client.update(resources.configMaps, { ...obj, metadata: { ...obj.metadata, labels: { touched: 'yes' } } });
    // A later, unrelated change proves the controller has processed the label change by then.
    await setData('kube-apiserver-pod', { 'pod.yaml': 'pod-2', forceRedeploymentReason: 'r', version: '0.1.0' });
    await until('revision 2', async () => (await latest()) === 2, SLOW);
    assert.equal((await cm('revision-status-2')).data?.reason, 'required configmap/kube-apiserver-pod has changed');
    assert.deepEqual((await cm('kube-apiserver-pod-2')).data, { 'pod.yaml': 'pod-2', forceRedeploymentReason: 'r', version: '0.1.0' });
    assert.deepEqual((await cm('kube-apiserver-pod-1')).data?.['pod.yaml'], 'pod-1', 'an older revision is immutable');
    await assert.rejects(cm('revision-status-3'), /not found/);
  });

  it('a missing required input blocks: RevisionControllerDegraded=True SyncError, no revision; back to False once it returns', async () => {
    await client.delete(resources.configMaps, NS, 'config');
    const cond = await until('Degraded', async () => {
      const c = await degraded();
      return c?.status === 'True' ? c : undefined;
    }, SLOW);
    assert.equal(cond.reason, 'SyncError');
    assert.equal(cond.message, 'configmaps "config" not found');
    assert.equal(await latest(), 2);
    await client.create<V1ConfigMap>(resources.configMaps, { metadata: { name: 'config', namespace: NS }, data: { 'config.yaml': '{"a":2}' } });
    await until('revision 3', async () => (await latest()) === 3, SLOW);
    assert.equal((await cm('revision-status-3')).data?.reason, 'required configmap/config has changed');
    assert.equal((await until('False', async () => ((await degraded())?.status === 'False' ? degraded() : undefined), SLOW))?.reason, 'AsExpected');
  });

  it('an optional Secret appearing cuts a revision, and is copied as a Secret', async () => {
    await client.create<V1Secret>(resources.secrets, { metadata: { name: 'encryption-config', namespace: NS }, type: 'Opaque', data: { key: 'c2VjcmV0' } });
    await until('revision 4', async () => (await latest()) === 4, SLOW);
    assert.equal((await cm('revision-status-4')).data?.reason, 'optional secret/encryption-config has been created');
    const copy = await client.get<V1Secret>(resources.secrets, NS, 'encryption-config-4');
    assert.deepEqual(copy.data, { key: 'c2VjcmV0' });
    assert.equal(copy.type, 'Opaque');
  });

  it('a ready revision-status beyond the recorded latest is recorded first, and the inputs compared with it', async () => {
    // As if a previous operator cut revision 5 and died before writing the status.
    const status = await client.create<V1ConfigMap>(resources.configMaps, {
      metadata: { name: 'revision-status-5', namespace: NS, annotations: { 'operator.openshift.io/revision-ready': 'false' } },
      data: { revision: '5', reason: 'elsewhere' },
    });
    const owner = [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'revision-status-5', uid: status.metadata!.uid! }];
    for (const name of ['kube-apiserver-pod', 'config']) {
      await client.create<V1ConfigMap>(resources.configMaps, { metadata: { name: `${name}-5`, namespace: NS, ownerReferences: owner }, data: (await cm(name)).data });
    }
    await client.create<V1Secret>(resources.secrets, { metadata: { name: 'encryption-config-5', namespace: NS, ownerReferences: owner }, data: { key: 'c2VjcmV0' } });
    // Ready last, as a cutter marks it: an unready status is no revision, so nothing is cut meanwhile.
    await client.update(resources.configMaps, { ...(await cm('revision-status-5')), metadata: { ...(await cm('revision-status-5')).metadata, annotations: { 'operator.openshift.io/revision-ready': 'true' } } });
    await until('latestAvailableRevision 5', async () => (await latest()) === 5, SLOW);
    // Touch an input without changing its data: still no revision 6.
    const obj = await cm('config');
    await client.update(resources.configMaps, { ...obj, metadata: { ...obj.metadata, annotations: { touched: 'again' } } });
    await setData('config', { 'config.yaml': '{"a":3}' });
    await until('revision 6', async () => (await latest()) === 6, SLOW);
    assert.equal((await cm('revision-status-6')).data?.reason, 'required configmap/config has changed');
  });
});
