/**
 * The machine-config operator (issue 15, item 5) started in-process as its pod starts it
 * (`start` with the payload's flags and images.json), against a real API server with RBAC
 * enforced, running as its own ServiceAccount with only the payload's role: it writes the
 * ControllerConfig from the cluster's configuration, creates the pools, deploys the controller,
 * daemon and server, issues their Secrets from the signer, and heals them (a deleted
 * Deployment comes back, an edited image and a scaled replica count are reverted, a deleted
 * Secret is issued again). Its ClusterOperator says Bootstrapping until the operands have
 * rolled out, the ControllerConfig is rendered and the master pool is Updated, then reports the
 * release's versions, and goes Degraded only once a degraded pool has lasted past the deadline.
 * The operands' and pools' status are written here as their controllers would write them; no
 * kubelet runs.
 */
import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { KubernetesObject, V1DaemonSet, V1Deployment, V1Secret } from '@kubernetes/client-node';
import { parse as parseYaml } from 'yaml';
import { configCRDs, Infrastructure, Network, type ClusterOperator } from '../../src/api/config/index.ts';
import { machineConfigurationCRDs, type ControllerConfig, type MachineConfigPool } from '../../src/api/machineconfiguration/index.ts';
import { splitPemBundle } from '../../src/api/x509.ts';
import { start } from '../../src/operators/machine-config/operator/component.ts';
import { issueSigner, signerSecret } from '../../src/operators/machine-config/operator/serving-certs.ts';
import { ApiClient } from '../../src/runtime/client.ts';
import { ClientConfig } from '../../src/runtime/kubeconfig.ts';
import { objectPath, refOf, resources } from '../../src/runtime/resources.ts';
import { createEstablishedCRDs } from '../support/rbac.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { serviceAccountKubeconfig } from '../support/service-account.ts';
import { until } from '../support/until.ts';

const NS = 'openshift-machine-config-operator';
const manifest = (f: string) => new URL(`../../src/release/payload/manifests/${f}`, import.meta.url).pathname;
const RBAC = ['0000_80_machine-config_00_namespace.yaml', '0000_80_machine-config_02_operator-rbac.yaml'].map(manifest);
const VERSION = '0.1.0';
const LB = '127.0.0.1';
const MASTER_IP = '127.1.0.2';
const WORKER_IP = '127.1.0.5';

describe('machine-config operator against a real API server', { timeout: 180_000 }, () => {
  let ts: TestServer;
  let admin: ApiClient;
  let dir: string;
  const stop = new AbortController();
  let running: Promise<void> | undefined;
  let operatorImage = '';

  const get = <T extends KubernetesObject>(ref: Parameters<ApiClient['get']>[0], ns: string | undefined, name: string) => admin.get<T>(ref, ns, name);
  const co = () => admin.getIfExists<ClusterOperator>(resources.clusterOperators, undefined, 'machine-config');
  const cond = (o: ClusterOperator | undefined, type: string) => o?.status?.conditions?.find((c) => c.type === type);

  before(async () => {
    ts = await startTestServer();
    dir = mkdtempSync(join(tmpdir(), 'shipyard-mco-'));
    const config = new ClientConfig();
    config.loadFromFile(ts.server.kubeconfigPath);
    admin = new ApiClient(config);

    const crds = [...machineConfigurationCRDs(), ...configCRDs().filter((c) => ['Infrastructure', 'Network', 'ClusterOperator'].includes(c.spec.names.kind))];
    await createEstablishedCRDs(admin, crds);
    const applied = await ts.kubectl(['apply', ...RBAC.flatMap((f) => ['-f', f])]);
    assert.equal(applied.code, 0, applied.stderr);

    // What the installer writes: the singletons, the root CA, the signer; and two nodes.
    await until('Infrastructure created', () => admin.create(refOf(Infrastructure), { apiVersion: Infrastructure.apiVersion, kind: 'Infrastructure', metadata: { name: 'cluster' }, spec: { platformSpec: { type: 'None' } } } as never), { retryErrors: true });
    const infra = await get<Infrastructure>(refOf(Infrastructure), undefined, 'cluster');
    await admin.request('PUT', objectPath(refOf(Infrastructure), undefined, 'cluster', 'status'), { body: { ...infra, status: { platform: 'None', platformStatus: { type: 'None' }, apiServerURL: `https://${LB}:6443`, apiServerInternalURI: `https://${LB}:6443` } } });
    await admin.create(refOf(Network), { apiVersion: Network.apiVersion, kind: 'Network', metadata: { name: 'cluster' }, spec: { serviceNetwork: ['127.64.0.0/16'], networkType: 'ShipyardLoopback' }, status: { serviceNetwork: ['127.64.0.0/16'], networkType: 'ShipyardLoopback' } } as never);
    const root = { certPem: readFileSync(join(ts.dataDir, 'pki', 'ca.crt'), 'utf8'), keyPem: readFileSync(join(ts.dataDir, 'pki', 'ca.key'), 'utf8') };
    await admin.create(resources.configMaps, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'root-ca', namespace: 'kube-system' }, data: { 'ca.crt': root.certPem } } as never);
    await admin.create(resources.secrets, signerSecret(await issueSigner(root, Date.now())) as never);
    for (const [name, ip, role] of [['master-0', MASTER_IP, 'master'], ['worker-0', WORKER_IP, 'worker']] as const) {
      const node = await admin.create<KubernetesObject>(resources.nodes, { apiVersion: 'v1', kind: 'Node', metadata: { name, labels: { [`node-role.kubernetes.io/${role}`]: '' } } } as never);
      await admin.request('PUT', objectPath(resources.nodes, undefined, name, 'status'), { body: { ...node, status: { addresses: [{ type: 'InternalIP', address: ip }] } } });
    }

    // The operator's own credential and its images.json, as its pod has them.
    await serviceAccountKubeconfig(ts, admin, NS, 'machine-config-operator', join(dir, 'kubeconfig'));
    const imagesCm = parseYaml(readFileSync(manifest('0000_80_machine-config_02_images.configmap.yaml'), 'utf8')) as { data: { 'images.json': string } };
    const images = imagesCm.data['images.json'].replace('0.0.1-snapshot', VERSION);
    operatorImage = (JSON.parse(images) as { machineConfigOperator: string }).machineConfigOperator;
    writeFileSync(join(dir, 'images.json'), images);
    running = start({
      signal: stop.signal,
      args: ['start', '--kubeconfig', join(dir, 'kubeconfig'), `--images-json=${join(dir, 'images.json')}`, '--release-image=shipyard.local/release:0.1.0', '--leader-elect=false'],
      env: { RELEASE_VERSION: VERSION },
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

  it('writes the ControllerConfig from the cluster configuration, and creates the pools', async () => {
    const cc = await until('the ControllerConfig', () => admin.getIfExists<ControllerConfig>(resources.controllerConfigs, undefined, 'machine-config-controller'), 30_000);
    assert.equal(cc.spec.clusterDNSIP, '127.64.0.10');
    assert.equal(Buffer.from(cc.spec.rootCAData, 'base64').toString(), readFileSync(join(ts.dataDir, 'pki', 'ca.crt'), 'utf8'));
    assert.equal(cc.spec.releaseImage, 'shipyard.local/release:0.1.0');
    assert.equal(cc.spec.infra?.status?.apiServerInternalURI, `https://${LB}:6443`);
    assert.equal(cc.metadata?.annotations?.['machineconfiguration.openshift.io/generated-by-version'], VERSION);
    const pools = await until('both pools', async () => {
      const list = (await admin.list<MachineConfigPool>(resources.machineConfigPools)).items;
      return list.length === 2 ? list : undefined;
    });
    assert.deepEqual(pools.map((p) => [p.metadata?.name, p.spec?.nodeSelector?.matchLabels]), [['master', { 'node-role.kubernetes.io/master': '' }], ['worker', { 'node-role.kubernetes.io/worker': '' }]]);
  });

  it('deploys the controller, daemon and server, with their Secrets issued from the signer', async () => {
    const deployment = await until('the controller Deployment', () => admin.getIfExists<V1Deployment>(resources.deployments, NS, 'machine-config-controller'), 30_000);
    assert.equal(deployment.spec?.template.spec?.containers[0]?.image, 'shipyard.local/machine-config-controller:v0.1.0');
    const daemon = await until('the daemon DaemonSet', () => admin.getIfExists<V1DaemonSet>(resources.daemonSets, NS, 'machine-config-daemon'));
    assert.deepEqual(daemon.spec?.template.spec?.containers.map((c) => c.name), ['machine-config-daemon', 'oauth-proxy']);
    const server = await until('the server DaemonSet', () => admin.getIfExists<V1DaemonSet>(resources.daemonSets, NS, 'machine-config-server'));
    assert.equal(server.spec?.template.spec?.hostNetwork, true);

    const root = new X509Certificate(readFileSync(join(ts.dataDir, 'pki', 'ca.crt'), 'utf8'));
    const leafOf = async (name: string) => {
      const s = await until(`Secret ${name}`, () => admin.getIfExists<V1Secret>(resources.secrets, NS, name));
      const [leaf, signer] = splitPemBundle(Buffer.from(s.data!['tls.crt']!, 'base64').toString()).map((p) => new X509Certificate(p));
      assert.ok(signer!.checkIssued(root) && leaf!.checkIssued(signer!) && leaf!.verify(signer!.publicKey), `${name} chains to the cluster CA`);
      return leaf!;
    };
    assert.equal((await leafOf('machine-config-server-tls')).subjectAltName, `IP Address:${LB}, IP Address:${MASTER_IP}`);
    assert.equal((await leafOf('proxy-tls')).subjectAltName, `IP Address:${MASTER_IP}, IP Address:${WORKER_IP}`);
    const token = await get<V1Secret>(resources.secrets, NS, 'machine-config-server-bootstrap-token');
    assert.ok(Buffer.from(token.data!.token!, 'base64').toString().length >= 32);
  });

  it('heals: a deleted Deployment comes back, an edited image and a scaled replica count are reverted, a deleted Secret is issued again', async () => {
    const before = await get<V1Deployment>(resources.deployments, NS, 'machine-config-controller');
    await admin.deleteIfExists(resources.deployments, NS, 'machine-config-controller');
    const recreated = await until('the Deployment re-created', async () => {
      const d = await admin.getIfExists<V1Deployment>(resources.deployments, NS, 'machine-config-controller');
      return d && d.metadata?.uid !== before.metadata?.uid ? d : undefined;
    }, 30_000);
    assert.equal(recreated.spec?.replicas, 1);

    const scaled = await ts.kubectl(['-n', NS, 'scale', 'deployment/machine-config-controller', '--replicas=3']);
    assert.equal(scaled.code, 0, scaled.stderr);
    await until('the replica count reverted', async () => (await get<V1Deployment>(resources.deployments, NS, 'machine-config-controller')).spec?.replicas === 1, 30_000);

    const edited = await ts.kubectl(['-n', NS, 'set', 'image', 'daemonset/machine-config-daemon', 'machine-config-daemon=example.test/evil:1']);
    assert.equal(edited.code, 0, edited.stderr);
    await until('the daemon image reverted', async () => (await get<V1DaemonSet>(resources.daemonSets, NS, 'machine-config-daemon')).spec?.template.spec?.containers[0]?.image === 'shipyard.local/machine-config-daemon:v0.1.0', 30_000);

    const oldTls = await get<V1Secret>(resources.secrets, NS, 'machine-config-server-tls');
    await admin.deleteIfExists(resources.secrets, NS, 'machine-config-server-tls');
    await until('the serving certificate issued again', async () => {
      const s = await admin.getIfExists<V1Secret>(resources.secrets, NS, 'machine-config-server-tls');
      return s && s.metadata?.uid !== oldTls.metadata?.uid;
    }, 30_000);
  });

  it('reports Bootstrapping until everything has rolled out and the master pool is Updated; then the release\'s versions', async () => {
    // Created, then its status written in a second request: waited for with its conditions.
    const bootstrapping = await until('the ClusterOperator written', async () => {
      const c = await co();
      return c && cond(c, 'Available') ? c : undefined;
    }, 30_000);
    assert.equal(cond(bootstrapping, 'Available')?.status, 'False');
    assert.equal(cond(bootstrapping, 'Available')?.reason, 'Bootstrapping');
    assert.equal(cond(bootstrapping, 'Progressing')?.message, `Cluster is bootstrapping ${VERSION}`);
    assert.equal(cond(bootstrapping, 'Degraded')?.status, 'False');
    assert.deepEqual(bootstrapping.status?.versions ?? [], []);

    // What the kube controllers and the MCO's own controllers would write.
    const d = await get<V1Deployment>(resources.deployments, NS, 'machine-config-controller');
    await admin.updateStatus(resources.deployments, { ...d, status: { observedGeneration: d.metadata?.generation, replicas: 1, updatedReplicas: 1, readyReplicas: 1, availableReplicas: 1, conditions: [{ type: 'Available', status: 'True' }] } } as V1Deployment);
    for (const name of ['machine-config-daemon', 'machine-config-server']) {
      const ds = await get<V1DaemonSet>(resources.daemonSets, NS, name);
      const n = name === 'machine-config-server' ? 1 : 2;
      await admin.updateStatus(resources.daemonSets, { ...ds, status: { observedGeneration: ds.metadata?.generation, desiredNumberScheduled: n, currentNumberScheduled: n, updatedNumberScheduled: n, numberReady: n, numberAvailable: n, numberUnavailable: 0, numberMisscheduled: 0 } } as V1DaemonSet);
    }
    const cc = await get<ControllerConfig>(resources.controllerConfigs, undefined, 'machine-config-controller');
    await admin.updateStatus(resources.controllerConfigs, { ...cc, status: { observedGeneration: cc.metadata?.generation, conditions: [{ type: 'TemplateControllerCompleted', status: 'True', lastTransitionTime: new Date().toISOString() }] } } as ControllerConfig);
    const waiting = await until('waiting on the master pool', async () => {
      const o = await co();
      return /required MachineConfigPool master is not ready/.test(cond(o, 'Available')?.message ?? '') ? o : undefined;
    }, 30_000);
    assert.equal(cond(waiting, 'Available')?.status, 'False');

    const master = await get<MachineConfigPool>(resources.machineConfigPools, undefined, 'master');
    const updated = await admin.update<MachineConfigPool>(resources.machineConfigPools, { ...master, spec: { ...master.spec, configuration: { name: 'rendered-master-0123' } } });
    await admin.updateStatus(resources.machineConfigPools, { ...updated, status: { observedGeneration: updated.metadata?.generation, configuration: { name: 'rendered-master-0123' }, machineCount: 1, readyMachineCount: 1, updatedMachineCount: 1, unavailableMachineCount: 0, degradedMachineCount: 0, conditions: [{ type: 'Updated', status: 'True' }, { type: 'Degraded', status: 'False' }] } } as MachineConfigPool);
    const available = await until('Available at the release', async () => {
      const o = await co();
      return cond(o, 'Available')?.status === 'True' ? o : undefined;
    }, 30_000);
    assert.deepEqual(available.status?.versions, [{ name: 'operator', version: VERSION }, { name: 'operator-image', version: operatorImage }]);
    assert.equal(cond(available, 'Available')?.message, `Cluster has deployed [{operator ${VERSION}} {operator-image ${operatorImage}}]`);
    assert.equal(cond(available, 'Progressing')?.status, 'False');
    assert.equal(cond(available, 'Progressing')?.message, `Cluster version is ${VERSION}`);
    assert.equal(cond(available, 'Degraded')?.status, 'False');
    assert.equal(cond(available, 'Upgradeable')?.status, 'True');
  });

  it('a degraded pool makes it not Upgradeable at once, with the versions kept; a sync with nothing to change writes nothing', async () => {
    const versionsOf = async () => [
      (await get(resources.controllerConfigs, undefined, 'machine-config-controller')).metadata?.resourceVersion,
      (await get(resources.deployments, NS, 'machine-config-controller')).metadata?.resourceVersion,
      ...(await Promise.all(['machine-config-daemon', 'machine-config-server'].map(async (n) => (await get(resources.daemonSets, NS, n)).metadata?.resourceVersion))),
      ...(await Promise.all(['machine-config-server-tls', 'proxy-tls', 'machine-config-server-bootstrap-token'].map(async (n) => (await get(resources.secrets, NS, n)).metadata?.resourceVersion))),
      ...(await Promise.all(['master', 'worker'].map(async (n) => (await get(resources.machineConfigPools, undefined, n)).metadata?.generation))),
    ];
    const unchanged = await versionsOf();
    const worker = await get<MachineConfigPool>(resources.machineConfigPools, undefined, 'worker');
    await admin.updateStatus(resources.machineConfigPools, { ...worker, status: { machineCount: 1, degradedMachineCount: 1, conditions: [{ type: 'Degraded', status: 'True', message: 'Node worker-0 is reporting: "failed to drain node worker-0"' }] } } as MachineConfigPool);
    const notUpgradeable = await until('Upgradeable=False', async () => {
      const o = await co();
      return cond(o, 'Upgradeable')?.status === 'False' ? o : undefined;
    }, 30_000);
    assert.equal(cond(notUpgradeable, 'Upgradeable')?.reason, 'DegradedPool');
    assert.equal(cond(notUpgradeable, 'Available')?.status, 'True');
    assert.equal(cond(notUpgradeable, 'Degraded')?.status, 'False', 'not yet: only past the deadline');
    assert.equal(notUpgradeable.status?.versions?.[0]?.version, VERSION);
    assert.deepEqual(await versionsOf(), unchanged, 'the sync that saw the pool rewrote none of the operands, Secrets or the ControllerConfig');
  });
});
