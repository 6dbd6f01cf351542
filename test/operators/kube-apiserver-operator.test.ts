/**
 * The kube-apiserver operator (issue 17) started in-process as its pod starts it
 * (`cluster-kube-apiserver-operator operator`, a Lease of its own), against a real API server
 * that enforces RBAC, running as its ServiceAccount with only the role the payload ships. The
 * cluster's facts (host-etcd, cluster-config-v1, the config singletons) and two master Nodes are
 * written here; the test plays the kubelet (installer pods' phase, the mirror pods). It checks the
 * whole pipeline: observed config written, revision 1 cut, an installer pod of the operator's
 * own image for the first master, then the second, ClusterOperator `kube-apiserver` Available
 * with the version once both run revision 1, the story told by events in the operator namespace
 * and again in the legacy one, and `/metrics` on the pod's IP.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { parse as parseYaml } from 'yaml';
import type { CoreV1Event, V1ConfigMap, V1Endpoints, V1Pod } from '@kubernetes/client-node';
import { configCRDs, Image, Infrastructure, Network, type ClusterOperator } from '../../src/api/config/index.ts';
import { KubeAPIServer, operatorCRDs } from '../../src/api/operator/index.ts';
import { formatTimestamp } from '../../src/api/time.ts';
import { start } from '../../src/operators/kube-apiserver/component.ts';
import { ApiClient } from '../../src/runtime/client.ts';
import { ClientConfig } from '../../src/runtime/kubeconfig.ts';
import { refOf, resources } from '../../src/runtime/resources.ts';
import { createEstablishedCRDs } from '../support/rbac.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { serviceAccountKubeconfig } from '../support/service-account.ts';
import { until } from '../support/until.ts';

const OPERATOR_NS = 'openshift-kube-apiserver-operator';
const LEGACY_NS = 'openshift-cluster-kube-apiserver-operator';
const NS = 'openshift-kube-apiserver';
const MASTERS = ['master-0', 'master-1'];
const VERSION = '0.1.0';
const OPERAND_IMAGE = 'shipyard.local/kube-apiserver:v0.1.0';
const OPERATOR_IMAGE = 'shipyard.local/cluster-kube-apiserver-operator:v0.1.0';
// An address of the loopback range no other test uses, standing in for the pod's IP.
const POD_IP = '127.93.47.17';
const SLOW = { timeoutMs: 60_000 };
const staged = (f: string) => new URL(`../../src/release/payload/manifests/0000_20_kube-apiserver-operator_${f}`, import.meta.url).pathname;
export const kubeAPIServerOperatorManifests = ['00_namespace.yaml', '02_rbac.yaml', '03_installer-rbac.yaml', '04_config.cr.yaml', '07_clusteroperator.yaml'].map(staged);

describe('kube-apiserver operator against a real API server, as its ServiceAccount', { timeout: 180_000 }, () => {
  let ts: TestServer;
  let admin: ApiClient;
  let dir: string;
  const stop = new AbortController();
  let running: Promise<void> | undefined;

  const cr = () => admin.get<KubeAPIServer>(refOf(KubeAPIServer), undefined, 'cluster');
  const node = async (name: string) => (await cr()).status?.nodeStatuses?.find((n) => n.nodeName === name);
  const pod = (name: string) => admin.getIfExists<V1Pod>(resources.pods, NS, name);
  const co = () => admin.get<ClusterOperator>(resources.clusterOperators, undefined, 'kube-apiserver');
  const coCondition = async (type: string) => (await co()).status?.conditions?.find((c) => c.type === type);
  const reasons = async (namespace: string): Promise<Set<string>> => new Set((await admin.list<CoreV1Event>(resources.events, namespace)).items.map((e) => e.reason ?? ''));
  const setPodStatus = async (name: string, status: V1Pod['status']) => {
    const p = await admin.get<V1Pod>(resources.pods, NS, name);
    await admin.updateStatus(resources.pods, { ...p, status });
  };
  /** What the kubelet does once the installer wrote the manifest: the static pod's mirror pod, Ready. */
  const kubeletRuns = async (nodeName: string, revision: number) => {
    await setPodStatus(`installer-${revision}-${nodeName}`, { phase: 'Succeeded' });
    const name = `kube-apiserver-${nodeName}`;
    await admin.create<V1Pod>(resources.pods, {
      metadata: { name, namespace: NS, labels: { apiserver: 'true', revision: String(revision) }, annotations: { 'kubernetes.io/config.mirror': 'x' } },
      spec: { nodeName, containers: [{ name: 'kube-apiserver', image: OPERAND_IMAGE }] },
    });
    await setPodStatus(name, { phase: 'Running', conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: formatTimestamp(Date.now()) as unknown as Date }] });
  };

  before(async () => {
    ts = await startTestServer();
    dir = mkdtempSync(join(tmpdir(), 'shipyard-kaso-'));
    const config = new ClientConfig();
    config.loadFromFile(ts.server.kubeconfigPath);
    admin = new ApiClient(config);

    const crds = [...operatorCRDs(), ...configCRDs().filter((c) => ['Infrastructure', 'Network', 'Image', 'ClusterOperator'].includes(c.spec.names.kind))];
    await createEstablishedCRDs(admin, crds);
    const applied = await until('the payload manifests applied', async () => {
      const r = await ts.kubectl(['apply', ...kubeAPIServerOperatorManifests.flatMap((f) => ['-f', f])]);
      return r.code === 0 ? r : undefined;
    }, SLOW);
    assert.equal(applied.code, 0);

    // The cluster's facts, as the installer writes them.
    const singleton = async (ref: ReturnType<typeof refOf>, kind: string, spec: object, status: object) => {
      // Network has no status subresource (as in OpenShift): its status is written with the object.
      if (kind === 'Network') return void (await admin.create(ref, { apiVersion: 'config.openshift.io/v1', kind, metadata: { name: 'cluster' }, spec, status } as never));
      const created = await admin.create<{ metadata?: object }>(ref, { apiVersion: 'config.openshift.io/v1', kind, metadata: { name: 'cluster' }, spec } as never);
      await admin.updateStatus(ref, { ...created, status } as never);
    };
    await singleton(refOf(Infrastructure), 'Infrastructure', { platformSpec: { type: 'None' } }, { apiServerURL: 'https://127.0.0.1:16443', platform: 'None', infrastructureName: 'test' });
    await singleton(refOf(Network), 'Network', { serviceNetwork: ['127.64.0.0/16'] }, { serviceNetwork: ['127.64.0.0/16'], clusterNetwork: [{ cidr: '127.128.0.0/9', hostPrefix: 24 }] });
    await singleton(refOf(Image), 'Image', {}, { internalRegistryHostname: 'shipyard.local' });
    await admin.create<V1Endpoints>(resources.endpoints, { metadata: { name: 'host-etcd', namespace: 'kube-system', annotations: { 'storage.shipyard.io/sqlite-store': '/var/lib/shipyard/store' } } });
    await admin.create<V1ConfigMap>(resources.configMaps, { metadata: { name: 'cluster-config-v1', namespace: 'kube-system' }, data: { 'install-config': 'networking:\n  podCIDR: 127.128.0.0/9\n  serviceCIDR: 127.64.0.0/16\n' } });
    for (const name of MASTERS) await admin.create(resources.nodes, { apiVersion: 'v1', kind: 'Node', metadata: { name, labels: { 'node-role.kubernetes.io/master': '' } } });
    await admin.create(resources.nodes, { apiVersion: 'v1', kind: 'Node', metadata: { name: 'worker-0', labels: { 'node-role.kubernetes.io/worker': '' } } });

    // The operator's own credential, as its pod has it.
    await serviceAccountKubeconfig(ts, admin, OPERATOR_NS, 'kube-apiserver-operator', join(dir, 'kubeconfig'));
    running = start({
      signal: stop.signal,
      // As the Deployment's container has it: the binary's name, then the program.
      args: ['cluster-kube-apiserver-operator', 'operator', '--kubeconfig', join(dir, 'kubeconfig'), '--min-ready-seconds=0', '--leader-elect-lease-duration=15s'],
      env: { IMAGE: OPERAND_IMAGE, OPERATOR_IMAGE, OPERATOR_IMAGE_VERSION: VERSION, POD_IP, HOSTNAME: 'kube-apiserver-operator-6f7c-q8z2', SHIPYARD_LOG_LEVEL: process.env.SHIPYARD_TEST_LOG ?? 'silent' },
    });
    running.catch(() => {});
  });

  after(async () => {
    stop.abort();
    await running?.catch(() => {});
    admin?.close();
    await ts?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('leads on its Lease and writes the observed config from the cluster\'s facts', async () => {
    const observed = await until('observedConfig', async () => (await cr()).spec?.observedConfig as Record<string, unknown> | undefined, SLOW);
    assert.deepEqual((observed.storageConfig as { urls: string[] }).urls, ['file:///var/lib/shipyard/store']);
    assert.equal(observed.servicesSubnet, '127.64.0.0/16');
    assert.deepEqual(observed.imagePolicyConfig, { internalRegistryHostname: 'shipyard.local' });
    // A write that lost a race with another controller's status write is retried: False in the end.
    await until('ConfigObservationDegraded False', async () => (await cr()).status?.conditions?.find((c) => c.type === 'ConfigObservationDegraded')?.status === 'False', SLOW);
    const lease = await admin.get<{ metadata?: object; spec?: { holderIdentity?: string } }>(resources.leases, OPERATOR_NS, 'kube-apiserver-operator-lock');
    assert.equal(lease.spec?.holderIdentity, 'kube-apiserver-operator-6f7c-q8z2');
  });

  it('renders the operand\'s ConfigMaps and cuts revision 1 from them', async () => {
    await until('latestAvailableRevision 1', async () => (await cr()).status?.latestAvailableRevision === 1, SLOW);
    const podCm = await admin.get<V1ConfigMap>(resources.configMaps, NS, 'kube-apiserver-pod-1');
    const operand = (parseYaml(podCm.data?.['pod.yaml'] ?? '') as V1Pod).spec!.containers[0]!;
    assert.equal(operand.image, OPERAND_IMAGE);
    assert.ok(operand.args?.includes('--advertise-url=https://127.0.0.1:16443'), String(operand.args));
    // Each master serves on 6443 whatever port the load balancer listens on (shipyard up --api-port).
    assert.ok(operand.args?.includes('--secure-port=6443'), String(operand.args));
    assert.ok(operand.args?.includes('--tls-san=127.64.0.1'), String(operand.args));
    assert.equal(podCm.data?.version, VERSION);
    const configCm = await admin.get<V1ConfigMap>(resources.configMaps, NS, 'config-1');
    assert.match(configCm.data?.['config.yaml'] ?? '', /file:\/\/\/var\/lib\/shipyard\/store/);
    const status = await admin.get<V1ConfigMap>(resources.configMaps, NS, 'revision-status-1');
    assert.equal(status.data?.revision, '1');
    const missing = (await admin.list<CoreV1Event>(resources.events, OPERATOR_NS)).items.filter((e) => e.reason === 'ConfigMissing');
    assert.ok(missing.every((e) => /^(storageConfig\.urls|admissionPluginConfig\..*) missing from config$/.test(e.message ?? '')), 'nothing rendered before the observed config');
  });

  it('installs revision 1 one master at a time with installer pods of its own image, then reports Available with its version', async () => {
    const first = await until('installer-1-master-0', () => pod('installer-1-master-0'), SLOW);
    const c = first.spec!.containers[0]!;
    assert.equal(c.image, OPERATOR_IMAGE);
    assert.deepEqual(c.command, ['cluster-kube-apiserver-operator', 'installer']);
    assert.equal(first.spec?.serviceAccountName, 'installer-sa');
    assert.equal(await pod('installer-1-master-1'), undefined, 'one master at a time');
    const progressing = await until('Progressing', async () => {
      const p = await coCondition('Progressing');
      return p?.status === 'True' ? p : undefined;
    }, SLOW);
    assert.equal(progressing.reason, 'NodeInstaller');

    await kubeletRuns('master-0', 1);
    await until('master-0 at revision 1', async () => (await node('master-0'))?.currentRevision === 1, SLOW);
    await until('installer-1-master-1', () => pod('installer-1-master-1'), SLOW);
    await kubeletRuns('master-1', 1);
    await until('master-1 at revision 1', async () => (await node('master-1'))?.currentRevision === 1, SLOW);

    const available = await until('Available', async () => {
      const a = await coCondition('Available');
      return a?.status === 'True' ? a : undefined;
    }, SLOW);
    assert.equal(available.status, 'True');
    await until('Progressing False', async () => (await coCondition('Progressing'))?.status === 'False', SLOW);
    const versions = await until('versions', async () => {
      const v = (await co()).status?.versions;
      return v?.some((x) => x.name === 'operator') ? v : undefined;
    }, SLOW);
    assert.deepEqual(versions.find((v) => v.name === 'operator')?.version, VERSION);
    assert.equal((await cr()).status?.nodesAtLatestRevision, '2/2');
    const staticPods = await until('StaticPodsDegraded', async () => (await cr()).status?.conditions?.find((c) => c.type === 'StaticPodsDegraded'), SLOW);
    assert.equal(staticPods.status, 'False', staticPods.message);
  });

  it('tells the story in the operator namespace and again in the legacy one', async () => {
    const story = ['ObservedConfigChanged', 'ConfigMapCreated', 'StartingNewRevision', 'RevisionTriggered', 'MasterNodeObserved', 'NodeTargetRevisionChanged', 'PodCreated', 'NodeCurrentRevisionChanged', 'OperatorStatusChanged'];
    for (const namespace of [OPERATOR_NS, LEGACY_NS]) {
      let seen = new Set<string>();
      await until(`the events in ${namespace}`, async () => {
        seen = await reasons(namespace);
        return story.every((s) => seen.has(s));
      }, SLOW).catch(() => {});
      assert.deepEqual(story.filter((s) => !seen.has(s)), [], `missing in ${namespace}`);
    }
    const legacy = await admin.list<CoreV1Event>(resources.events, LEGACY_NS);
    const triggered = legacy.items.find((e) => e.reason === 'RevisionTriggered');
    assert.equal(triggered?.involvedObject.kind, 'Deployment');
    assert.equal(triggered?.involvedObject.name, 'kube-apiserver-operator');
    assert.equal(triggered?.message, 'new revision 1 triggered by "configmaps \\"kube-apiserver-pod-0\\" not found"');
  });

  it('serves /metrics on its pod IP: the revisions and every controller\'s reconciles', async () => {
    const text = await until('metrics', async () => {
      const t = await (await fetch(`http://${POD_IP}:8443/metrics`)).text();
      return t.includes('kube_apiserver_operator_node_current_revision{node="master-1"} 1') ? t : undefined;
    }, SLOW);
    assert.match(text, /^kube_apiserver_operator_latest_available_revision 1$/m);
    assert.match(text, /^kube_apiserver_operator_node_current_revision\{node="master-0"\} 1$/m);
    assert.match(text, /^kube_apiserver_operator_node_target_revision\{node="master-0"\} 0$/m);
    assert.match(text, /^kube_apiserver_operator_operator_condition\{type="StaticPodsAvailable",status="True"\} 1$/m);
    for (const controller of ['ConfigObserver', 'target-config', 'revision', 'installer', 'status', 'prune', 'static-pod-state']) {
      // The observer asks to run again every minute: its syncs count as requeues.
      assert.match(text, new RegExp(`^kube_apiserver_operator_reconcile_total\\{controller="${controller}",result="(success|requeue)"\\} [1-9]`, 'm'), controller);
    }
  });
});
