/**
 * The kube-apiserver operator's status controller (issue 17, item 7) against a real API server,
 * on a FakeClock: the ClusterOperator `kube-apiserver` is created with raw-internal only and the
 * relatedObjects, OperatorStatusChanged is recorded in the operator namespace and its legacy
 * name; once every node is at the latest revision it is Available with the operator and
 * kube-apiserver versions and the CR shows NODES AT LATEST; a Degraded condition reaches the
 * ClusterOperator and the CR's Degraded only after its inertia, by the controller's own requeue.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { CoreV1Event } from '@kubernetes/client-node';
import { ClusterOperator, configCRDs } from '../../src/api/config/index.ts';
import { KubeAPIServer, operatorCRDs } from '../../src/api/operator/index.ts';
import { formatTimestamp } from '../../src/api/time.ts';
import { createStatusController } from '../../src/operators/kube-apiserver/status/controller.ts';
import { isAlreadyExists, type ApiClient } from '../../src/runtime/client.ts';
import { FakeClock } from '../../src/runtime/clock.ts';
import { refOf, resources } from '../../src/runtime/resources.ts';
import { startControllers, type RunningControllers } from '../support/controllers.ts';
import { until } from '../support/until.ts';

const OPERATOR_NS = 'openshift-kube-apiserver-operator';
const LEGACY_NS = 'openshift-cluster-kube-apiserver-operator';
const CRS = refOf(KubeAPIServer);
const COS = refOf(ClusterOperator);
const SLOW = { timeoutMs: 30_000 };

describe('kube-apiserver status controller (API server, FakeClock)', () => {
  let rc: RunningControllers;
  let client: ApiClient;
  const clock = new FakeClock();

  const cr = () => client.get<KubeAPIServer>(CRS, undefined, 'cluster');
  const co = () => client.get<ClusterOperator>(COS, undefined, 'kube-apiserver').catch(() => undefined);
  const coCondition = async (type: string) => (await co())?.status?.conditions?.find((c) => c.type === type);
  const crCondition = async (type: string) => (await cr()).status?.conditions?.find((c) => c.type === type);
  const events = async (ns: string, reason: string): Promise<string[]> =>
    (await client.list<CoreV1Event>(resources.events, ns)).items.filter((e) => e.reason === reason).map((e) => e.message ?? '');
  const setStatus = async (change: (s: NonNullable<KubeAPIServer['status']>) => void) => {
    const obj = await cr();
    const status = structuredClone(obj.status ?? {});
    change(status);
    await client.updateStatus(CRS, { ...obj, status });
  };
  const now = () => formatTimestamp(clock.wallNow());

  before(async () => {
    rc = await startControllers(
      {
        userAgent: 'kas-status-test',
        eventsAs: 'kube-apiserver-operator-status',
        clock,
        seed: async (admin) => {
          for (const crd of [...operatorCRDs(), ...configCRDs()]) {
            await admin.create(resources.customResourceDefinitions, crd as never).catch((e) => {
              if (!isAlreadyExists(e)) throw e;
            });
          }
          await until('kinds served', () => Promise.all([admin.list(CRS), admin.list(COS)]).then(() => true), { retryErrors: true, ...SLOW });
          for (const name of [OPERATOR_NS, LEGACY_NS]) {
            await admin.create(resources.namespaces, { apiVersion: 'v1', kind: 'Namespace', metadata: { name } }).catch((e) => {
              if (!isAlreadyExists(e)) throw e;
            });
          }
          await admin.create(CRS, { apiVersion: KubeAPIServer.apiVersion, kind: 'KubeAPIServer', metadata: { name: 'cluster' }, spec: { managementState: 'Managed' } });
        },
      },
      (ctx) => [createStatusController(ctx, { operatorVersion: '0.1.0', operandVersion: '1.30.0' })],
    );
    client = rc.client;
  });
  after(() => rc?.stop());

  it('creates the ClusterOperator with raw-internal and relatedObjects, and says so in both namespaces', async () => {
    await until('ClusterOperator written', async () => ((await co())?.status?.versions ?? []).length > 0, SLOW);
    const status = (await co())!.status!;
    assert.deepEqual(status.versions, [{ name: 'raw-internal', version: '0.1.0' }]);
    assert.ok(status.relatedObjects?.some((r) => r.resource === 'kubeapiservers' && r.name === 'cluster'));
    assert.ok(status.relatedObjects?.some((r) => r.resource === 'namespaces' && r.name === 'openshift-kube-apiserver'));
    assert.equal(status.conditions?.find((c) => c.type === 'Available')?.reason, 'NoData');
    for (const ns of [OPERATOR_NS, LEGACY_NS]) {
      await until(`event in ${ns}`, async () => (await events(ns, 'OperatorStatusChanged')).length > 0, SLOW);
      assert.match((await events(ns, 'OperatorStatusChanged'))[0]!, /^Status for clusteroperator\/kube-apiserver changed: .*status\.versions changed from \[\] to \[\{"raw-internal" "0\.1\.0"\}\]/);
    }
  });

  it('every node at the latest revision: Available, versions, NODES AT LATEST', async () => {
    await setStatus((s) => {
      s.latestAvailableRevision = 1;
      s.nodeStatuses = [{ nodeName: 'm0' }, { nodeName: 'm1' }];
    });
    await until('nodesAtLatestRevision 0/2', async () => (await cr()).status?.nodesAtLatestRevision === '0/2', SLOW);
    await setStatus((s) => {
      s.nodeStatuses = [
        { nodeName: 'm0', currentRevision: 1 },
        { nodeName: 'm1', currentRevision: 1 },
      ];
      s.conditions = [
        { type: 'StaticPodsAvailable', status: 'True', lastTransitionTime: now(), reason: '', message: '2 nodes are active; 2 nodes are at revision 1' },
        { type: 'NodeInstallerProgressing', status: 'False', lastTransitionTime: now(), reason: 'AllNodesAtLatestRevision', message: '2 nodes are at revision 1' },
      ];
    });
    await until('Available', async () => (await coCondition('Available'))?.status === 'True', SLOW);
    await until('versions', async () => ((await co())?.status?.versions ?? []).length === 3, SLOW);
    assert.deepEqual((await co())?.status?.versions, [
      { name: 'raw-internal', version: '0.1.0' },
      { name: 'operator', version: '0.1.0' },
      { name: 'kube-apiserver', version: '1.30.0' },
    ]);
    assert.equal((await coCondition('Progressing'))?.status, 'False');
    // The CR's status is written after the ClusterOperator's, in the same pass: waited for, not read once.
    await until('nodesAtLatestRevision 2/2', async () => (await cr()).status?.nodesAtLatestRevision === '2/2', SLOW);
    await until('OperatorVersionChanged', async () => (await events(OPERATOR_NS, 'OperatorVersionChanged')).some((m) => m === 'clusteroperator/kube-apiserver version "operator" changed from "" to "0.1.0"'), SLOW);
  });

  it('a Degraded condition counts after its inertia, by the controller’s own requeue', async () => {
    const message = 'unsupportedConfigOverrides: servingInfo.bindAddres: unknown field';
    const since = clock.wallNow();
    await setStatus((s) => {
      s.conditions = [...(s.conditions ?? []), { type: 'TargetConfigControllerDegraded', status: 'True', lastTransitionTime: formatTimestamp(since), reason: 'InvalidConfig', message }];
    });
    // Seen, not yet counted: the union is still good and carries its message.
    await until('seen', async () => ((await crCondition('Degraded'))?.message ?? '').includes(message), SLOW);
    assert.equal((await crCondition('Degraded'))?.status, 'False');
    assert.equal((await coCondition('Degraded'))?.status, 'False');

    // Nothing else changes: only the requeue after the inertia can turn it.
    await until(
      'Degraded after the inertia',
      async () => {
        clock.advance(5_000);
        return (await coCondition('Degraded'))?.status === 'True';
      },
      SLOW,
    );
    assert.ok(clock.wallNow() - since > 2 * 60_000, 'counted only after two minutes');
    const d = await coCondition('Degraded');
    assert.equal(d?.reason, 'TargetConfigController_InvalidConfig');
    assert.equal(d?.message, `TargetConfigControllerDegraded: ${message}`);
    await until('CR Degraded', async () => (await crCondition('Degraded'))?.status === 'True', SLOW);
    assert.equal((await crCondition('Degraded'))?.reason, 'TargetConfigController_InvalidConfig');
    await until('event', async () => (await events(LEGACY_NS, 'OperatorStatusChanged')).some((m) => m.includes('Degraded changed from False to True')), SLOW);
  });
});
