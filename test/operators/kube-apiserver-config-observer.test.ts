/**
 * The config-observer runner (runtime/config-observer.ts) with the kube-apiserver operator's
 * observers, against a real API server: it writes `spec.observedConfig` of an operator resource
 * with an `ObservedConfigChanged` Event whose message is the diff, rewrites it when an input
 * changes, keeps an observer's previous values and sets `ConfigObservationDegraded=True`
 * (reason Error, errors sorted, one per line) when inputs break, reports two observers that
 * claim one path, and goes back to False when all is well.
 *
 * The operator resource is a stand-in kind declared here, with the fields the runner uses
 * (operator.openshift.io/v1 KubeAPIServer is another slice's), so this test depends on nothing
 * but the runner and the observers.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { CoreV1Event, V1ConfigMap, V1Endpoints, KubernetesObject } from '@kubernetes/client-node';
import { defineCustomResource } from '../../src/api/crd/define.ts';
import { required, s } from '../../src/api/crd/schema-builder.ts';
import type { Image } from '../../src/api/config/image.ts';
import { kubeAPIServerConfigObservers, type ConfigObservationListers } from '../../src/operators/kube-apiserver/configobserver/observers.ts';
import { restrictedEndpointsAdmission } from '../../src/operators/kube-apiserver/configobserver/network.ts';
import { ObjectCache } from '../../src/runtime/cache.ts';
import { isAlreadyExists, type ApiClient } from '../../src/runtime/client.ts';
import { createConfigObserverController, type ConfigObserverFunc } from '../../src/runtime/config-observer.ts';
import type { ControllerContext } from '../../src/runtime/context.ts';
import { refOf, resources } from '../../src/runtime/resources.ts';
import { setPath, type SparseConfig } from '../../src/runtime/sparse-config.ts';
import { startControllers, type RunningControllers } from '../support/controllers.ts';
import { until } from '../support/until.ts';

const TestOperator = defineCustomResource({
  group: 'observertest.shipyard.io',
  version: 'v1',
  kind: 'TestOperator',
  plural: 'testoperators',
  scope: 'Cluster',
  spec: s.object({ observedConfig: s.nullable(s.unknownObject()) }),
  status: s.object({
    conditions: s.array(s.object({ type: required(s.string()), status: required(s.string()), lastTransitionTime: s.time(), reason: s.string(), message: s.string() }), { listType: 'map', listMapKeys: ['type'] }),
  }),
});
const OPERATOR = refOf(TestOperator);
const OPERATOR_NS = 'openshift-kube-apiserver-operator';
const deployment = { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'kube-apiserver-operator', namespace: OPERATOR_NS, uid: 'd0000000-0000-0000-0000-000000000001' } };

interface Operator extends KubernetesObject {
  spec: { observedConfig?: SparseConfig | null };
  status?: { conditions?: Array<{ type: string; status: string; reason?: string; message?: string; lastTransitionTime?: string }> };
}

const installConfig = (serviceCIDR: string): string => `networking:\n  podCIDR: 127.128.0.0/9\n  serviceCIDR: ${serviceCIDR}\n`;

/** A test observer that claims servicesSubnet too while ConfigMap `kube-system/conflict` exists: two owners of one path. */
const conflicting: ConfigObserverFunc<ConfigObservationListers> = function conflicting(listers) {
  const cm = listers.configMaps.get('kube-system/conflict');
  const config: SparseConfig = {};
  if (cm?.data?.servicesSubnet) setPath(config, ['servicesSubnet'], cm.data.servicesSubnet);
  return { config, errors: [] };
};

describe('config observer runner with the kube-apiserver observers (API server)', () => {
  let rc: RunningControllers;
  let client: ApiClient;

  const operator = () => client.get<Operator>(OPERATOR, undefined, 'cluster');
  const degraded = async () => (await operator()).status?.conditions?.find((c) => c.type === 'ConfigObservationDegraded');
  const events = async (reason: string): Promise<CoreV1Event[]> =>
    (await client.list<CoreV1Event>(resources.events, OPERATOR_NS)).items.filter((e) => e.reason === reason && e.involvedObject.name === deployment.metadata.name);

  before(async () => {
    rc = await startControllers(
      {
        userAgent: 'config-observer-test',
        eventsAs: 'kube-apiserver-operator-config-observer',
        seed: async (admin) => {
          await admin.create(resources.customResourceDefinitions, TestOperator.crd as never);
          await until('testoperators served', () => admin.list(OPERATOR).then(() => true), { retryErrors: true, timeoutMs: 30_000 });
          await admin.create(resources.namespaces, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: OPERATOR_NS } }).catch((e) => {
            if (!isAlreadyExists(e)) throw e;
          });
          await admin.create<Operator>(OPERATOR, { apiVersion: TestOperator.apiVersion, kind: TestOperator.kind, metadata: { name: 'cluster' }, spec: {} });
          await admin.create<V1Endpoints>(resources.endpoints, { metadata: { name: 'host-etcd', namespace: 'kube-system', annotations: { 'storage.shipyard.io/sqlite-store': '/var/lib/shipyard/store' } } });
          await admin.create<V1ConfigMap>(resources.configMaps, { metadata: { name: 'cluster-config-v1', namespace: 'kube-system' }, data: { 'install-config': installConfig('127.64.0.0/16') } });
        },
      },
      (ctx: ControllerContext) => {
        const endpoints = ctx.informers.informer<V1Endpoints>(resources.endpoints, { namespace: 'kube-system' });
        const configMaps = ctx.informers.informer<V1ConfigMap>(resources.configMaps, { namespace: 'kube-system' });
        // No Image CRD on this server (its informer would never sync): the image observer sees no Image.
        const listers: ConfigObservationListers = { endpoints: endpoints.store, configMaps: configMaps.store, images: new ObjectCache<Image>() };
        return [
          createConfigObserverController(ctx, {
            operator: OPERATOR,
            observers: [...kubeAPIServerConfigObservers, conflicting],
            listers,
            inputs: [endpoints, configMaps],
            eventSubject: deployment,
          }),
        ];
      },
    );
    client = rc.client;
  });
  after(() => rc?.stop());

  it('writes the observed config, with an ObservedConfigChanged Event showing the diff, and ConfigObservationDegraded=False', async () => {
    const want = {
      storageConfig: { urls: ['file:///var/lib/shipyard/store'] },
      admissionPluginConfig: { [restrictedEndpointsAdmission]: { configuration: { restrictedCIDRs: ['127.128.0.0/9', '127.64.0.0/16'] } } },
      servicesSubnet: '127.64.0.0/16',
    };
    const written = await until('observedConfig written', async () => (await operator()).spec.observedConfig);
    assert.deepEqual(written, want, 'written whole, in one update');
    const cond = await until('condition', degraded);
    assert.equal(cond.status, 'False');
    const [event] = await until('ObservedConfigChanged', async () => ((await events('ObservedConfigChanged')).length ? events('ObservedConfigChanged') : undefined));
    assert.equal(event!.type, 'Normal');
    assert.match(event!.message!, /^Writing updated observed config: @@ -1,1 \+1,\d+ @@\n-\{\}\n\+\{\n/);
    assert.ok(event!.message!.includes('\n+  "servicesSubnet": "127.64.0.0/16",'), event!.message);
    assert.ok(event!.message!.includes('\n+      "file:///var/lib/shipyard/store"'), event!.message);
  });

  it('an input change rewrites the observed config, and the Event shows just that change', async () => {
    const cm = await client.get<V1ConfigMap>(resources.configMaps, 'kube-system', 'cluster-config-v1');
    await client.update(resources.configMaps, { ...cm, data: { 'install-config': installConfig('127.65.0.0/16') } });
    await until('servicesSubnet observed', async () => (await operator()).spec.observedConfig?.servicesSubnet === '127.65.0.0/16');
    const diff = await until('second ObservedConfigChanged', async () => (await events('ObservedConfigChanged')).find((e) => e.message?.includes('127.65.0.0/16')));
    assert.ok(diff.message!.includes('\n-  "servicesSubnet": "127.64.0.0/16",\n+  "servicesSubnet": "127.65.0.0/16",'), diff.message);
    assert.ok(!diff.message!.includes('\n+  "storageConfig"'), 'unchanged parts are not in the diff');
  });

  it('broken inputs: previous values kept, Degraded=True reason Error with the sorted errors, one per line; then recovery', async () => {
    const before = (await operator()).spec.observedConfig;
    await client.delete(resources.endpoints, 'kube-system', 'host-etcd');
    const cm = await client.get<V1ConfigMap>(resources.configMaps, 'kube-system', 'cluster-config-v1');
    await client.update(resources.configMaps, { ...cm, data: { 'install-config': 'networking:\n  podCIDR: 127.128.0.0/9\n' } });
    const cond = await until('Degraded with both errors', async () => {
      const c = await degraded();
      return c?.status === 'True' && c.message?.includes('\n') ? c : undefined;
    });
    assert.equal(cond.reason, 'Error');
    assert.equal(cond.message, ['configmap/cluster-config-v1.kube-system: install-config/networking/serviceCIDR not found', 'endpoints/host-etcd.kube-system: not found'].join('\n'));
    assert.deepEqual((await operator()).spec.observedConfig, before, "each observer kept what it owned");

    await client.create<V1Endpoints>(resources.endpoints, { metadata: { name: 'host-etcd', namespace: 'kube-system', annotations: { 'storage.shipyard.io/sqlite-store': '/var/lib/shipyard/store' } } });
    const fresh = await client.get<V1ConfigMap>(resources.configMaps, 'kube-system', 'cluster-config-v1');
    await client.update(resources.configMaps, { ...fresh, data: { 'install-config': installConfig('127.65.0.0/16') } });
    const healed = await until('Degraded=False again', async () => ((await degraded())?.status === 'False' ? degraded() : undefined));
    assert.equal(healed!.reason, undefined);
    assert.equal(healed!.message, undefined);
  });

  it('two observers claiming one path: the non-determinism error', async () => {
    await client.create<V1ConfigMap>(resources.configMaps, { metadata: { name: 'conflict', namespace: 'kube-system' }, data: { servicesSubnet: '127.66.0.0/16' } });
    const cond = await until('non-determinism reported', async () => {
      const c = await degraded();
      return c?.status === 'True' ? c : undefined;
    });
    assert.equal(cond.reason, 'Error');
    assert.equal(cond.message, 'non-deterministic config observation detected');
    await client.delete(resources.configMaps, 'kube-system', 'conflict');
    await until('Degraded=False after the conflict goes', async () => (await degraded())?.status === 'False');
  });
});
