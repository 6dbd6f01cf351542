/**
 * The kube-apiserver operator's installer controller (issue 17, item 5) against a real API
 * server, on a FakeClock: one nodeStatuses entry per master; revision 1 installed one node at a
 * time (the test plays the kubelet: it writes the installer pod's phase and the mirror pod);
 * the next node only after the minimum ready time; the installer pod's spec; a failed installer
 * recorded with its termination message and retried under the next name only after the
 * backoff; the conditions and events with upstream's texts.
 */
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, it } from 'node:test';
import type { CoreV1Event, V1ConfigMap, V1Pod } from '@kubernetes/client-node';
import { formatTimestamp } from '../../src/api/time.ts';
import { KubeAPIServer, operatorCRDs } from '../../src/api/operator/index.ts';
import { createInstallerController } from '../../src/operators/kube-apiserver/installer/controller.ts';
import { renderedRevisionInputs } from '../../src/operators/kube-apiserver/revision/controller.ts';
import { isAlreadyExists, type ApiClient } from '../../src/runtime/client.ts';
import { FakeClock } from '../../src/runtime/clock.ts';
import { refOf, resources } from '../../src/runtime/resources.ts';
import { startControllers, type RunningControllers } from '../support/controllers.ts';
import { until } from '../support/until.ts';

const NS = 'openshift-kube-apiserver';
const OPERATOR_NS = 'openshift-kube-apiserver-operator';
const CRS = refOf(KubeAPIServer);
const SLOW = { timeoutMs: 60_000 };
const MASTERS = ['master-0', 'master-1'];

describe('kube-apiserver installer controller (API server, FakeClock)', () => {
  let rc: RunningControllers;
  let client: ApiClient;
  const clock = new FakeClock(0, { wall: Date.parse('2026-03-01T10:00:00Z') });

  const cr = () => client.get<KubeAPIServer>(CRS, undefined, 'cluster');
  const node = async (name: string) => (await cr()).status?.nodeStatuses?.find((n) => n.nodeName === name);
  const condition = async (type: string) => (await cr()).status?.conditions?.find((c) => c.type === type);
  const pod = (name: string) => client.get<V1Pod>(resources.pods, NS, name).catch(() => undefined);
  const events = async (reason: string): Promise<string[]> =>
    (await client.list<CoreV1Event>(resources.events, OPERATOR_NS)).items
      .filter((e) => e.reason === reason)
      .sort((a, b) => String(a.metadata?.creationTimestamp).localeCompare(String(b.metadata?.creationTimestamp)) || (a.metadata?.name ?? '').localeCompare(b.metadata?.name ?? ''))
      .map((e) => e.message ?? '');
  const setPodStatus = async (name: string, status: V1Pod['status']) => {
    const p = await client.get<V1Pod>(resources.pods, NS, name);
    await client.updateStatus(resources.pods, { ...p, status });
  };
  /** What the kubelet does once the installer has written the manifest: the static pod's mirror, Ready now. */
  const mirrorReady = async (nodeName: string, revision: number) => {
    const name = `kube-apiserver-${nodeName}`;
    await client.create<V1Pod>(resources.pods, {
      metadata: { name, namespace: NS, labels: { apiserver: 'true', revision: String(revision) }, annotations: { 'kubernetes.io/config.mirror': 'x' } },
      spec: { nodeName, containers: [{ name: 'kube-apiserver', image: 'shipyard/kube-apiserver' }] },
    });
    await setPodStatus(name, { phase: 'Running', conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: formatTimestamp(clock.wallNow()) as unknown as Date }] });
  };

  before(async () => {
    rc = await startControllers(
      {
        userAgent: 'kas-installer-test',
        eventsAs: 'kube-apiserver-operator-installer',
        clock,
        seed: async (admin) => {
          for (const crd of operatorCRDs()) await admin.create(resources.customResourceDefinitions, crd as never);
          await until('kubeapiservers served', () => admin.list(CRS).then(() => true), { retryErrors: true, ...SLOW });
          for (const name of [NS, OPERATOR_NS]) {
            await admin.create(resources.namespaces, { apiVersion: 'v1', kind: 'Namespace', metadata: { name } }).catch((e) => {
              if (!isAlreadyExists(e)) throw e;
            });
          }
          await admin.create(resources.serviceAccounts, { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'installer-sa', namespace: NS } }).catch((e) => {
            if (!isAlreadyExists(e)) throw e;
          });
          for (const name of MASTERS) await admin.create(resources.nodes, { apiVersion: 'v1', kind: 'Node', metadata: { name, labels: { 'node-role.kubernetes.io/master': '' } } });
          await admin.create(resources.nodes, { apiVersion: 'v1', kind: 'Node', metadata: { name: 'worker-0', labels: { 'node-role.kubernetes.io/worker': '' } } });
          await admin.create<V1ConfigMap>(resources.configMaps, { metadata: { name: 'revision-status-1', namespace: NS }, data: { revision: '1', reason: 'test' } });
          for (const name of ['kube-apiserver-pod-1', 'config-1']) await admin.create<V1ConfigMap>(resources.configMaps, { metadata: { name, namespace: NS }, data: {} });
          const created = await admin.create<KubeAPIServer>(CRS, { apiVersion: KubeAPIServer.apiVersion, kind: 'KubeAPIServer', metadata: { name: 'cluster' }, spec: { managementState: 'Managed', logLevel: 'Debug' } });
          await admin.updateStatus(CRS, { ...created, status: { latestAvailableRevision: 1 } });
        },
      },
      (ctx) => [createInstallerController(ctx, { image: 'shipyard/cluster-kube-apiserver-operator:test', inputs: renderedRevisionInputs })],
    );
    client = rc.client;
  });
  after(() => rc?.stop());

  it('keeps one nodeStatuses entry per master', async () => {
    const statuses = await until('nodeStatuses', async () => ((await cr()).status?.nodeStatuses?.length === 2 ? (await cr()).status?.nodeStatuses : undefined), SLOW);
    assert.deepEqual(statuses?.map((n) => n.nodeName), MASTERS);
    await until('MasterNodeObserved', async () => (await events('MasterNodeObserved')).length === 2, SLOW);
    assert.deepEqual((await events('MasterNodeObserved')).sort(), ['Observed new master node master-0', 'Observed new master node master-1']);
  });

  it('starts revision 1 on the first master with an installer pod as upstream specs it', async () => {
    const p = await until('installer-1-master-0', () => pod('installer-1-master-0'), SLOW);
    assert.equal((await node('master-0'))?.targetRevision, 1);
    // Events are written by the recorder after the pod, asynchronously: wait for it rather than look once.
    await until('NodeTargetRevisionChanged for master-0', async () => (await events('NodeTargetRevisionChanged')).includes('Updating node "master-0" from revision 0 to 1 because node master-0 static pod not found'), SLOW);
    const status = await client.get<V1ConfigMap>(resources.configMaps, NS, 'revision-status-1');
    assert.deepEqual(p.metadata?.labels, { app: 'installer' });
    assert.deepEqual(p.metadata?.ownerReferences?.map((r) => [r.kind, r.name, r.uid]), [['ConfigMap', 'revision-status-1', status.metadata?.uid]]);
    assert.equal(p.spec?.nodeName, 'master-0');
    assert.equal(p.spec?.serviceAccountName, 'installer-sa');
    assert.equal(p.spec?.restartPolicy, 'Never');
    assert.equal(p.spec?.priorityClassName, 'system-node-critical');
    assert.deepEqual(p.spec?.tolerations, [{ operator: 'Exists' }]);
    const c = p.spec!.containers[0]!;
    assert.equal(c.image, 'shipyard/cluster-kube-apiserver-operator:test');
    assert.deepEqual(c.command, ['cluster-kube-apiserver-operator', 'installer']);
    assert.deepEqual(c.args, [
      '-v=4',
      '--revision=1',
      `--namespace=${NS}`,
      '--pod=kube-apiserver-pod',
      '--resource-dir=/etc/kubernetes/static-pod-resources',
      '--pod-manifest-dir=/etc/kubernetes/manifests',
      '--configmaps=kube-apiserver-pod',
      '--configmaps=config',
    ]);
    assert.equal(c.terminationMessagePolicy, 'FallbackToLogsOnError');
    assert.deepEqual(p.spec?.volumes?.[0]?.hostPath?.path, '/etc/kubernetes/');
    assert.equal(await pod('installer-1-master-1'), undefined, 'one master at a time');
    const progressing = await condition('NodeInstallerProgressing');
    assert.equal(progressing?.status, 'True');
    assert.equal(progressing?.message, '2 nodes are at revision 0; 0 nodes have achieved new revision 1');
    assert.equal((await condition('StaticPodsAvailable'))?.reason, 'ZeroNodesActive');
  });

  it('marks the master current once its installer succeeded and its mirror pod runs the revision Ready, then starts the next, which has no replica to take down', async () => {
    await setPodStatus('installer-1-master-0', { phase: 'Succeeded' });
    await mirrorReady('master-0', 1);
    // The fake clock does not move: no minimum ready time stands between a Ready replica and
    // its node's status, nor before a master that has no replica yet (the wait before one that
    // has is state.test.ts's).
    await until('master-0 at 1', async () => (await node('master-0'))?.currentRevision === 1, SLOW);
    await until('NodeCurrentRevisionChanged', async () => (await events('NodeCurrentRevisionChanged')).includes('Updated node "master-0" from revision 0 to 1 because static pod is ready'), SLOW);
    assert.equal((await condition('StaticPodsAvailable'))?.status, 'True');
    await until('installer-1-master-1', () => pod('installer-1-master-1'), SLOW);
    assert.equal((await node('master-1'))?.targetRevision, 1);
    assert.equal((await node('master-0'))?.targetRevision ?? 0, 0);
    assert.equal((await cr()).status?.nodesAtLatestRevision, '1/2');
    await until('NodeTargetRevisionChanged for master-1', async () => (await events('NodeTargetRevisionChanged')).some((m) => m.startsWith('Updating node "master-1" from revision 0 to 1 because')), SLOW);
  });

  it('records a failed installer with its termination message, and retries it only after the backoff', async () => {
    await setPodStatus('installer-1-master-1', {
      phase: 'Failed',
      containerStatuses: [
        {
          name: 'installer',
          image: 'shipyard/cluster-kube-apiserver-operator:test',
          imageID: '',
          ready: false,
          restartCount: 0,
          state: { terminated: { exitCode: 1, reason: 'Error', message: 'configmaps "config-1" not found' } },
        },
      ],
    });
    const failed = await until('master-1 failed', async () => ((await node('master-1'))?.lastFailedRevision === 1 ? node('master-1') : undefined), SLOW);
    assert.equal(failed?.lastFailedReason, 'InstallerFailed');
    assert.equal(failed?.lastFailedCount, 1);
    assert.equal(failed?.targetRevision, 1, 'the target is kept: retried forever');
    assert.deepEqual(failed?.lastFailedRevisionErrors, ['installer: configmaps "config-1" not found']);
    assert.equal(failed?.lastFailedTime, formatTimestamp(clock.wallNow()));
    const degraded = await until('NodeInstallerDegraded', async () => ((await condition('NodeInstallerDegraded'))?.status === 'True' ? condition('NodeInstallerDegraded') : undefined), SLOW);
    assert.equal(degraded?.reason, 'InstallerPodFailed');
    assert.equal(degraded?.message, '1 nodes are failing on revision 1:\ninstaller: configmaps "config-1" not found');
    await until('InstallerPodFailed event', async () => (await events('InstallerPodFailed')).includes('installer errors: installer: configmaps "config-1" not found'), SLOW);

    // Backoff 10 s × 1.5^lastFailedCount = 15 s after lastFailedTime.
    clock.advance(14_000);
    await sleep(300);
    assert.equal(await pod('installer-1-retry-1-master-1'), undefined, 'no retry before the backoff');
    clock.advance(1_000);
    const retry = await until('installer-1-retry-1-master-1', () => pod('installer-1-retry-1-master-1'), SLOW);
    assert.equal(retry.spec?.nodeName, 'master-1');
  });

  it('the retry succeeding makes the master current and clears its failure', async () => {
    await setPodStatus('installer-1-retry-1-master-1', { phase: 'Succeeded' });
    await mirrorReady('master-1', 1);
    await until('master-1 at 1', async () => (await node('master-1'))?.currentRevision === 1, SLOW);
    const n = await node('master-1');
    assert.equal(n?.lastFailedRevision, undefined);
    assert.equal(n?.lastFailedRevisionErrors, undefined);
    const progressing = await until('AllNodesAtLatestRevision', async () => ((await condition('NodeInstallerProgressing'))?.status === 'False' ? condition('NodeInstallerProgressing') : undefined), SLOW);
    assert.equal(progressing?.reason, 'AllNodesAtLatestRevision');
    assert.equal(progressing?.message, '2 nodes are at revision 1');
    assert.equal((await condition('StaticPodsAvailable'))?.message, '2 nodes are active; 2 nodes are at revision 1');
    assert.equal((await condition('NodeInstallerDegraded'))?.status, 'False');
    assert.equal((await cr()).status?.nodesAtLatestRevision, '2/2');
  });

  it('drops the entry of a master that goes away', async () => {
    await client.delete(resources.nodes, undefined, 'master-1');
    await until('master-1 removed', async () => (await cr()).status?.nodeStatuses?.length === 1, SLOW);
    assert.deepEqual((await cr()).status?.nodeStatuses?.map((n) => n.nodeName), ['master-0']);
    await until('MasterNodeRemoved', async () => (await events('MasterNodeRemoved')).includes('Removed master node master-1'), SLOW);
  });
  it('starts no installer while a required copy of the latest revision is missing: InstallerControllerDegraded, RequiredInstallerResourcesMissing', async () => {
    await client.create<V1ConfigMap>(resources.configMaps, { metadata: { name: 'revision-status-2', namespace: NS }, data: { revision: '2', reason: 'test' } });
    await client.create<V1ConfigMap>(resources.configMaps, { metadata: { name: 'kube-apiserver-pod-2', namespace: NS }, data: {} });
    const obj = await cr();
    await client.updateStatus(CRS, { ...obj, status: { ...obj.status, latestAvailableRevision: 2 } });
    const degraded = await until('InstallerControllerDegraded', async () => ((await condition('InstallerControllerDegraded'))?.status === 'True' ? condition('InstallerControllerDegraded') : undefined), SLOW);
    assert.equal(degraded?.reason, 'Error');
    assert.equal(degraded?.message, 'missing required resources: [configmaps: config-2]');
    await until('RequiredInstallerResourcesMissing', async () => (await events('RequiredInstallerResourcesMissing')).includes('missing required resources: [configmaps: config-2]'), SLOW);
    // The conditions are still written from the node statuses: progressing towards 2.
    await until('progressing', async () => (await condition('NodeInstallerProgressing'))?.message === '1 node is at revision 1; 0 nodes have achieved new revision 2', SLOW);
    assert.equal(await pod('installer-2-master-0'), undefined);
    assert.equal((await node('master-0'))?.targetRevision ?? 0, 0);
    // master-0 has a replica to take down, so the replicas must have been Ready for the minimum ready time.
    clock.advance(30_000);
    await client.create<V1ConfigMap>(resources.configMaps, { metadata: { name: 'config-2', namespace: NS }, data: {} });
    await until('installer-2-master-0', () => pod('installer-2-master-0'), SLOW);
    assert.equal((await condition('InstallerControllerDegraded'))?.status, 'False');
  });
});
