/**
 * The kube-apiserver operator's target-config controller (issue 17, item 3) against a real API
 * server with the KubeAPIServer CRD: it renders `config` and `kube-apiserver-pod`; a spec change
 * that alters neither leaves them unwritten; a valid override and forceRedeploymentReason reach
 * them; an invalid override writes nothing and sets TargetConfigControllerDegraded=True
 * InvalidConfig with layer and path, and UnsupportedConfigOverridesUpgradeable=False; removing
 * it recovers; an edit by hand is rendered back.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { V1ConfigMap } from '@kubernetes/client-node';
import { parse } from 'yaml';
import { KubeAPIServer, operatorCRDs } from '../../src/api/operator/index.ts';
import { createTargetConfigController } from '../../src/operators/kube-apiserver/targetconfig/controller.ts';
import { isAlreadyExists, type ApiClient } from '../../src/runtime/client.ts';
import { refOf, resources } from '../../src/runtime/resources.ts';
import { startControllers, type RunningControllers } from '../support/controllers.ts';
import { until } from '../support/until.ts';

const NS = 'openshift-kube-apiserver';
const OPERATOR_NS = 'openshift-kube-apiserver-operator';
const CRS = refOf(KubeAPIServer);
const SLOW = { timeoutMs: 30_000 };

describe('kube-apiserver target-config controller (API server)', () => {
  let rc: RunningControllers;
  let client: ApiClient;

  const cr = () => client.get<KubeAPIServer>(CRS, undefined, 'cluster');
  const cm = (name: string) => client.get<V1ConfigMap>(resources.configMaps, NS, name);
  const maybeCm = (name: string) => cm(name).catch(() => undefined);
  const condition = async (type: string) => (await cr()).status?.conditions?.find((c) => c.type === type);
  const patchSpec = (spec: Record<string, unknown>) => client.patch(CRS, undefined, 'cluster', { spec });
  const configJson = async () => JSON.parse((await cm('config')).data?.['config.yaml'] ?? '{}') as { apiServerArguments?: Record<string, string[]> };

  before(async () => {
    rc = await startControllers(
      {
        userAgent: 'kas-targetconfig-test',
        eventsAs: 'kube-apiserver-operator-target-config',
        seed: async (admin) => {
          for (const crd of operatorCRDs()) await admin.create(resources.customResourceDefinitions, crd as never);
          await until('kubeapiservers served', () => admin.list(CRS).then(() => true), { retryErrors: true, ...SLOW });
          for (const name of [NS, OPERATOR_NS]) {
            await admin.create(resources.namespaces, { apiVersion: 'v1', kind: 'Namespace', metadata: { name } }).catch((e) => {
              if (!isAlreadyExists(e)) throw e;
            });
          }
          await admin.create(CRS, { apiVersion: KubeAPIServer.apiVersion, kind: 'KubeAPIServer', metadata: { name: 'cluster' }, spec: { managementState: 'Managed' } });
        },
      },
      (ctx) => [createTargetConfigController(ctx, { operatorVersion: '0.1.0', pod: { image: 'shipyard.local/kube-apiserver:v0.1.0', securePort: 6443 } })],
    );
    client = rc.client;
  });
  after(() => rc?.stop());

  it('renders config and kube-apiserver-pod, with both conditions good', async () => {
    await until('rendered ConfigMaps', async () => (await maybeCm('config')) !== undefined && (await maybeCm('kube-apiserver-pod')) !== undefined, SLOW);
    assert.equal((await configJson()).apiServerArguments?.v?.[0], '2');
    const podData = (await cm('kube-apiserver-pod')).data ?? {};
    assert.equal(podData.version, '0.1.0');
    assert.equal(podData.forceRedeploymentReason, '');
    const manifest = parse(podData['pod.yaml']!) as { metadata: { labels: Record<string, string> } };
    assert.equal(manifest.metadata.labels.revision, 'REVISION');
    await until('conditions written', async () => (await condition('TargetConfigControllerDegraded'))?.status === 'False', SLOW);
    assert.equal((await condition('TargetConfigControllerDegraded'))?.reason, 'AsExpected');
    assert.equal((await condition('UnsupportedConfigOverridesUpgradeable'))?.reason, 'NoUnsupportedConfigOverrides');
  });

  it('a spec change that renders the same config leaves config unwritten', async () => {
    const before = (await cm('config')).metadata?.resourceVersion;
    await patchSpec({ operatorLogLevel: 'Debug' });
    await patchSpec({ forceRedeploymentReason: 'first' });
    await until('reason rendered', async () => (await cm('kube-apiserver-pod')).data?.forceRedeploymentReason === 'first', SLOW);
    assert.equal((await cm('config')).metadata?.resourceVersion, before);
  });

  it('a valid override reaches config and makes the operator not upgradeable', async () => {
    await patchSpec({ unsupportedConfigOverrides: { apiServerArguments: { v: ['4'] } } });
    await until('override rendered', async () => (await configJson()).apiServerArguments?.v?.[0] === '4', SLOW);
    await until('not upgradeable', async () => (await condition('UnsupportedConfigOverridesUpgradeable'))?.status === 'False', SLOW);
    const c = await condition('UnsupportedConfigOverridesUpgradeable');
    assert.equal(c?.reason, 'UnsupportedConfigOverridesSet');
    assert.equal(c?.message, 'setting: [apiServerArguments.v.0]');
  });

  it('an invalid override writes nothing and is Degraded with its layer and path; removing it recovers', async () => {
    const config = await cm('config');
    const podCm = await cm('kube-apiserver-pod');
    await patchSpec({ unsupportedConfigOverrides: { servingInfo: { bindAddres: '127.0.0.1:6443' } }, forceRedeploymentReason: 'second' });
    await until('degraded', async () => (await condition('TargetConfigControllerDegraded'))?.status === 'True', SLOW);
    const d = await condition('TargetConfigControllerDegraded');
    assert.equal(d?.reason, 'InvalidConfig');
    assert.equal(d?.message, 'unsupportedConfigOverrides: servingInfo.bindAddres: unknown field');
    assert.equal((await cm('config')).metadata?.resourceVersion, config.metadata?.resourceVersion);
    // Not even the pod ConfigMap: a revision cut from half a render would roll nothing good.
    assert.equal((await cm('kube-apiserver-pod')).metadata?.resourceVersion, podCm.metadata?.resourceVersion);

    await patchSpec({ unsupportedConfigOverrides: null });
    await until('recovered', async () => (await condition('TargetConfigControllerDegraded'))?.status === 'False', SLOW);
    await until('reason rendered', async () => (await cm('kube-apiserver-pod')).data?.forceRedeploymentReason === 'second', SLOW);
    assert.equal((await configJson()).apiServerArguments?.v?.[0], '2');
    assert.equal((await condition('UnsupportedConfigOverridesUpgradeable'))?.status, 'True');
  });

  it('an edit by hand is rendered back', async () => {
    const live = await cm('config');
    const rendered = live.data?.['config.yaml'];
    await client.update(resources.configMaps, { ...live, data: { 'config.yaml': '{}' } });
    await until('rendered back', async () => (await cm('config')).data?.['config.yaml'] === rendered, SLOW);
  });
});
