/**
 * The Machine API operator (issue 16, item 1) started in-process as its pod starts it (`start`
 * with the payload's flags and images.json, a Lease of its own), against a real API server with
 * RBAC enforced, running as its ServiceAccount with only the payload's role: on platform None it
 * deploys nothing and reports NoOp; on platform Shipyard it deploys machine-api-controllers and
 * heals it (deleted → re-created, edited or scaled → reverted), rolls it when images.json
 * changes, reports Degraded SyncingFailed with the cause when the file is broken, and reports
 * Available with the release's version only once the Deployment is available and, while the
 * cluster comes up, its worker Machines run. The Deployment's and Machines' status are written
 * here as their controllers would; no kubelet runs.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { CoreV1Event, V1Deployment } from '@kubernetes/client-node';
import { parse as parseYaml } from 'yaml';
import { configCRDs, Infrastructure, type ClusterOperator } from '../../src/api/config/index.ts';
import { Machine, machineAPICRDs, MachineSet } from '../../src/api/machine/index.ts';
import { start } from '../../src/operators/machine-api/operator/component.ts';
import { ApiClient } from '../../src/runtime/client.ts';
import { ClientConfig } from '../../src/runtime/kubeconfig.ts';
import { objectPath, refOf, resources } from '../../src/runtime/resources.ts';
import { createEstablishedCRDs } from '../support/rbac.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { serviceAccountKubeconfig } from '../support/service-account.ts';
import { until } from '../support/until.ts';

const NS = 'openshift-machine-api';
const manifest = (f: string) => new URL(`../../src/release/payload/manifests/${f}`, import.meta.url).pathname;
const PAYLOAD = ['0000_30_machine-api-operator_00_namespace.yaml', '0000_30_machine-api-operator_09_operator-rbac.yaml'].map(manifest);
const VERSION = '0.1.0';
const MAO_IMAGE = 'shipyard.local/machine-api-operator:v0.1.0';
const PROVIDER_IMAGE = 'shipyard.local/machine-controller:v0.1.0';
// An address of the loopback range no other test uses, standing in for the pod's IP.
const POD_IP = '127.93.41.7';

describe('machine-api operator against a real API server', { timeout: 180_000 }, () => {
  let ts: TestServer;
  let admin: ApiClient;
  let dir: string;
  let imagesFile: string;
  const stop = new AbortController();
  let running: Promise<void> | undefined;

  const co = () => admin.getIfExists<ClusterOperator>(resources.clusterOperators, undefined, 'machine-api');
  const cond = (o: ClusterOperator | undefined, type: string) => o?.status?.conditions?.find((c) => c.type === type);
  const controllers = () => admin.getIfExists<V1Deployment>(resources.deployments, NS, 'machine-api-controllers');
  const imageOf = (d: V1Deployment | undefined, container: string) => d?.spec?.template.spec?.containers.find((c) => c.name === container)?.image;
  const setPlatform = async (type: string) => {
    const infra = await admin.get<Infrastructure>(refOf(Infrastructure), undefined, 'cluster');
    await admin.request('PUT', objectPath(refOf(Infrastructure), undefined, 'cluster', 'status'), { body: { ...infra, status: { ...infra.status, platform: type === 'Shipyard' ? 'None' : type, platformStatus: { type } } } });
  };
  const writeImages = (images: Record<string, string> | string) => writeFileSync(imagesFile, typeof images === 'string' ? images : JSON.stringify(images));
  /** What the deployment controller would write once the pod runs. */
  const markAvailable = async () => {
    const d = (await controllers())!;
    await admin.updateStatus(resources.deployments, { ...d, status: { observedGeneration: d.metadata?.generation, replicas: 1, updatedReplicas: 1, readyReplicas: 1, availableReplicas: 1, conditions: [{ type: 'Available', status: 'True', reason: 'MinimumReplicasAvailable', lastTransitionTime: new Date().toISOString() as unknown as Date }] } } as V1Deployment);
  };

  before(async () => {
    ts = await startTestServer();
    dir = mkdtempSync(join(tmpdir(), 'shipyard-mao-'));
    const config = new ClientConfig();
    config.loadFromFile(ts.server.kubeconfigPath);
    admin = new ApiClient(config);

    const crds = [...machineAPICRDs(), ...configCRDs().filter((c) => ['Infrastructure', 'ClusterOperator'].includes(c.spec.names.kind))];
    await createEstablishedCRDs(admin, crds);
    const applied = await ts.kubectl(['apply', ...PAYLOAD.flatMap((f) => ['-f', f])]);
    assert.equal(applied.code, 0, applied.stderr);
    await until('Infrastructure created', () => admin.create(refOf(Infrastructure), { apiVersion: Infrastructure.apiVersion, kind: 'Infrastructure', metadata: { name: 'cluster' }, spec: { platformSpec: { type: 'None' } } } as never), { retryErrors: true });
    await setPlatform('None');

    // The operator's own credential and its images.json, as its pod has them.
    await serviceAccountKubeconfig(ts, admin, NS, 'machine-api-operator', join(dir, 'kubeconfig'));
    const imagesCm = parseYaml(readFileSync(manifest('0000_30_machine-api-operator_01_images.configmap.yaml'), 'utf8')) as { data: { 'images.json': string } };
    imagesFile = join(dir, 'images.json');
    writeImages(imagesCm.data['images.json']);
    running = start({
      signal: stop.signal,
      args: ['start', '--kubeconfig', join(dir, 'kubeconfig'), `--images-json=${imagesFile}`, '--leader-elect-lease-duration=15s'],
      env: { RELEASE_VERSION: VERSION, POD_IP, HOSTNAME: 'machine-api-operator-7d9f-x2v4' },
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

  it('platform None: nothing deployed, Available in NoOp mode with the release\'s version; leading on its Lease', async () => {
    const noop = await until('NoOp Available', async () => {
      const o = await co();
      return cond(o, 'Available')?.status === 'True' ? o : undefined;
    }, 30_000);
    assert.deepEqual(cond(noop, 'Available')?.reason, 'AsExpected');
    assert.equal(cond(noop, 'Available')?.message, 'Cluster Machine API Operator is in NoOp mode');
    assert.equal(cond(noop, 'Progressing')?.status, 'False');
    assert.equal(cond(noop, 'Degraded')?.status, 'False');
    assert.equal(cond(noop, 'Upgradeable')?.status, 'True');
    assert.deepEqual(noop.status?.versions, [{ name: 'operator', version: VERSION }]);
    assert.ok(noop.status?.relatedObjects?.some((r) => r.group === 'machine.openshift.io' && r.resource === 'machines' && r.namespace === NS));
    assert.equal(await controllers(), undefined);
    const lease = await admin.get<{ metadata?: object; spec?: { holderIdentity?: string } }>(resources.leases, NS, 'machine-api-operator');
    assert.equal(lease.spec?.holderIdentity?.startsWith('machine-api-operator-7d9f-x2v4'), true, 'campaigned under its pod\'s name');
  });

  it('serves /metrics on its pod IP', async () => {
    const res = await fetch(`http://${POD_IP}:9445/metrics`);
    assert.equal(res.status, 200);
    assert.match(await res.text(), /machine_api_operator_reconcile_total\{controller="machine-api-operator"/);
  });

  it('platform Shipyard: deploys machine-api-controllers from images.json, and records it in its namespace', async () => {
    await setPlatform('Shipyard');
    const d = await until('the controllers Deployment', controllers, 30_000);
    assert.deepEqual(d.spec?.template.spec?.containers.map((c) => [c.name, c.image]), [
      ['machineset-controller', MAO_IMAGE],
      ['machine-controller', PROVIDER_IMAGE],
      ['nodelink-controller', MAO_IMAGE],
      ['machine-healthcheck-controller', MAO_IMAGE],
    ]);
    assert.equal(d.metadata?.annotations?.['machine.openshift.io/owned'], '');
    assert.equal(d.spec?.template.spec?.serviceAccountName, 'machine-api-controllers');
    const events = await until('a DeploymentCreated event', async () => {
      const list = await admin.list<CoreV1Event>(resources.events, NS);
      return list.items.find((e) => e.reason === 'DeploymentCreated');
    });
    assert.equal(events.involvedObject.name, 'machine-api-operator');
    assert.equal(events.message, 'Created Deployment.apps/machine-api-controllers -n openshift-machine-api because it was missing');
  });

  it('heals: a deleted Deployment is re-created, an edited image and a scaled replica count reverted', async () => {
    const before = (await controllers())!;
    await admin.deleteIfExists(resources.deployments, NS, 'machine-api-controllers');
    const recreated = await until('re-created', async () => {
      const d = await controllers();
      return d && d.metadata?.uid !== before.metadata?.uid ? d : undefined;
    }, 30_000);
    assert.equal(recreated.spec?.replicas, 1);

    const edited = await ts.kubectl(['-n', NS, 'set', 'image', 'deployment/machine-api-controllers', 'nodelink-controller=example.test/nodelink:dev']);
    assert.equal(edited.code, 0, edited.stderr);
    await until('the image reverted', async () => imageOf(await controllers(), 'nodelink-controller') === MAO_IMAGE, 30_000);
    const scaled = await ts.kubectl(['-n', NS, 'scale', 'deployment/machine-api-controllers', '--replicas=0']);
    assert.equal(scaled.code, 0, scaled.stderr);
    await until('the replica count reverted', async () => (await controllers())?.spec?.replicas === 1, 30_000);
  });

  it('while coming up: Initializing, Progressing towards the release, and not Available before the worker Machines run', async () => {
    // Back to a cluster that has never been Available, as on a first install.
    const o = (await co())!;
    await admin.updateStatus(resources.clusterOperators, { ...o, status: { conditions: [], versions: [] } } as ClusterOperator);
    const init = await until('Initializing', async () => {
      const c = await co();
      return cond(c, 'Available')?.reason === 'Initializing' ? c : undefined;
    }, 30_000);
    assert.equal(cond(init, 'Available')?.status, 'False');
    assert.equal(cond(init, 'Available')?.message, 'Operator is initializing');
    assert.deepEqual([cond(init, 'Progressing')?.status, cond(init, 'Progressing')?.reason, cond(init, 'Progressing')?.message], ['True', 'SyncingResources', `Progressing towards operator: ${VERSION}`]);
    assert.deepEqual(init.status?.versions ?? [], []);

    // A worker MachineSet of two with none of its Machines yet.
    const labels = { 'machine.openshift.io/cluster-api-cluster': 'shipyard-x', 'machine.openshift.io/cluster-api-machineset': 'shipyard-x-worker-a' };
    await admin.create(refOf(MachineSet), { apiVersion: MachineSet.apiVersion, kind: 'MachineSet', metadata: { name: 'shipyard-x-worker-a', namespace: NS }, spec: { replicas: 2, selector: { matchLabels: labels }, template: { metadata: { labels }, spec: { providerSpec: { value: {} } } } } } as never);
    await markAvailable();
    const degraded = await until('Degraded on the missing workers', async () => {
      const c = await co();
      return cond(c, 'Degraded')?.status === 'True' ? c : undefined;
    }, 30_000);
    assert.equal(cond(degraded, 'Degraded')?.reason, 'SyncingFailed');
    assert.equal(cond(degraded, 'Degraded')?.message, `Failed when progressing towards operator: ${VERSION} because could not determine running Machines in MachineSet "shipyard-x-worker-a": replicas not satisfied for MachineSet: expected 2 replicas, got 0 current replicas`);
    assert.equal(cond(degraded, 'Available')?.status, 'False');

    for (const name of ['shipyard-x-worker-a-1', 'shipyard-x-worker-a-2']) {
      const m = await admin.create<Machine>(refOf(Machine), { apiVersion: Machine.apiVersion, kind: 'Machine', metadata: { name, namespace: NS, labels }, spec: { providerSpec: { value: {} } } } as never);
      await admin.updateStatus(refOf(Machine), { ...m, status: { phase: 'Running' } } as never);
    }
    const available = await until('Available once both workers run', async () => {
      const c = await co();
      return cond(c, 'Available')?.status === 'True' ? c : undefined;
    }, 30_000);
    assert.equal(cond(available, 'Available')?.message, `Cluster Machine API Operator is available at operator: ${VERSION}`);
    assert.deepEqual([cond(available, 'Progressing')?.status, cond(available, 'Degraded')?.status], ['False', 'False']);
    assert.deepEqual(available.status?.versions, [{ name: 'operator', version: VERSION }]);
  });

  it('images.json changed: the Deployment rolls to the new image; broken: Degraded SyncingFailed with the cause, until fixed', async () => {
    writeImages({ machineAPIOperator: 'example.test/machine-api-operator:dev', clusterAPIControllerShipyard: 'example.test/machine-controller:dev' });
    const rolled = await until('the new images', async () => {
      const d = await controllers();
      return imageOf(d, 'machine-controller') === 'example.test/machine-controller:dev' ? d : undefined;
    }, 30_000);
    assert.equal(imageOf(rolled, 'machineset-controller'), 'example.test/machine-api-operator:dev');

    writeImages('{ "machineAPIOperator": ');
    const degraded = await until('Degraded', async () => {
      const c = await co();
      return cond(c, 'Degraded')?.status === 'True' ? c : undefined;
    }, 30_000);
    assert.equal(cond(degraded, 'Degraded')?.reason, 'SyncingFailed');
    assert.match(cond(degraded, 'Degraded')!.message!, new RegExp(`^Failed to resync for operator: ${VERSION.replaceAll('.', '\\.')} because ${imagesFile.replaceAll('/', '\\/')}: not valid JSON`));
    assert.equal(cond(degraded, 'Available')?.status, 'True', 'a failing resync does not take Available away');
    const warning = await until('a SyncingFailed event', async () => (await admin.list<CoreV1Event>(resources.events, NS)).items.find((e) => e.reason === 'SyncingFailed'));
    assert.equal(warning.type, 'Warning');

    writeImages({ machineAPIOperator: MAO_IMAGE, clusterAPIControllerShipyard: PROVIDER_IMAGE });
    await until('rolled back to the payload\'s images', async () => imageOf(await controllers(), 'machine-controller') === PROVIDER_IMAGE, 30_000);
    assert.equal(cond(await co(), 'Degraded')?.status, 'True', 'Degraded until a sync succeeds, and that needs the rollout done');
    await markAvailable();
    await until('Degraded cleared', async () => cond(await co(), 'Degraded')?.status === 'False', 30_000);
  });

  it('back to platform None: NoOp again, and the Deployment is left as it is', async () => {
    await setPlatform('None');
    await until('NoOp', async () => cond(await co(), 'Available')?.message === 'Cluster Machine API Operator is in NoOp mode', 30_000);
    assert.ok(await controllers(), 'OpenShift\'s operator removes nothing in NoOp mode');
  });
});
