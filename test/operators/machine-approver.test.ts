/**
 * The machine approver against a real API server with RBAC enforced, running in-process as its
 * payload ServiceAccount with exactly the payload's role (so a permission it lacks fails the
 * test), on a clock the test drives. Requests are made by real identities with kubectl: the
 * node-bootstrapper ServiceAccount's token, a node (system:node:<name> in system:nodes), the
 * admin. Machines are slice A's CRD, their addresses and nodeRef set through `/status`.
 * Approved: a bootstrap request naming a Machine without a Node, also when the Machine shows
 * up after the request; a node renewing its own name. Pending, with the reason in an event and
 * never Denied: a Node that exists, a Machine already linked, a subject with a SAN, a request
 * from anyone else, a node asking for another node's name, and a cluster with no Machine kind
 * at all (approved once the Machine API arrives). ClusterOperator machine-approver is Available.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { KubernetesObject } from '@kubernetes/client-node';
import pino from 'pino';
import { Registry } from '../../src/api/prometheus.ts';
import { stringify } from 'yaml';
import { configCRDs } from '../../src/api/config/index.ts';
import { Machine, machineAPICRDs } from '../../src/api/machine/index.ts';
import { createCertificateRequest } from '../../src/api/x509.ts';
import { createMachineApprover, createStatusReporter, pendingGauges } from '../../src/operators/machine-approver/controller.ts';
import { approvalCondition } from '../../src/operators/machine-approver/rules.ts';
import { ApiClient, isAlreadyExists } from '../../src/runtime/client.ts';
import { FakeClock } from '../../src/runtime/clock.ts';
import type { ControllerContext } from '../../src/runtime/context.ts';
import { createEventRecorder } from '../../src/runtime/events.ts';
import { InformerFactory } from '../../src/runtime/informer-factory.ts';
import { ClientConfig } from '../../src/runtime/kubeconfig.ts';
import { createComponentMetrics } from '../../src/runtime/metrics.ts';
import { refOf, resources } from '../../src/runtime/resources.ts';
import { createEstablishedCRDs } from '../support/rbac.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { serviceAccountKubeconfig } from '../support/service-account.ts';
import { until } from '../support/until.ts';

const approverNamespace = 'openshift-cluster-machine-approver';
const mcoNamespace = 'openshift-machine-config-operator';
const machineNamespace = 'openshift-machine-api';
const machines = refOf(Machine);
const payload = (f: string) => new URL(`../../src/release/payload/manifests/${f}`, import.meta.url).pathname;
const quiet = () => pino({ level: process.env.SHIPYARD_TEST_LOG ?? 'silent' });

type Json = any;

interface Cluster {
  readonly ts: TestServer;
  readonly admin: ApiClient;
  readonly clock: FakeClock;
  readonly registry: Registry;
  readonly bootstrapToken: string;
  stop(): Promise<void>;
}

async function ignoreExists(p: Promise<unknown>): Promise<void> {
  try {
    await p;
  } catch (err) {
    if (!isAlreadyExists(err)) throw err;
  }
}

/** A server with the approver's payload namespace and RBAC, the node-bootstrapper, and the approver running as its ServiceAccount. */
async function startCluster(opts: { machineApi: boolean }): Promise<Cluster> {
  const ts = await startTestServer();
  const dir = mkdtempSync(join(tmpdir(), 'shipyard-approver-'));
  const adminConfig = new ClientConfig();
  adminConfig.loadFromFile(ts.server.kubeconfigPath);
  const admin = new ApiClient(adminConfig, { userAgent: 'machine-approver-test' });
  await createEstablishedCRDs(admin, configCRDs().filter((c) => c.spec.names.kind === 'ClusterOperator'));
  if (opts.machineApi) await createEstablishedCRDs(admin, machineAPICRDs());
  for (const ns of [mcoNamespace, machineNamespace]) await ignoreExists(admin.create(resources.namespaces, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } }));
  for (const f of ['0000_50_cluster-machine-approver_00_namespace.yaml', '0000_50_cluster-machine-approver_02_rbac.yaml']) {
    const r = await ts.kubectl(['apply', '-f', payload(f)]);
    assert.equal(r.code, 0, r.stderr);
  }
  const bootstrap = await ts.kubectl(['create', 'serviceaccount', 'node-bootstrapper', '-n', mcoNamespace]);
  assert.equal(bootstrap.code, 0, bootstrap.stderr);
  const bind = await ts.kubectl(['create', 'clusterrolebinding', 'node-bootstrapper', '--clusterrole=system:node-bootstrapper', `--serviceaccount=${mcoNamespace}:node-bootstrapper`]);
  assert.equal(bind.code, 0, bind.stderr);
  const bootstrapToken = (await ts.kubectl(['create', 'token', 'node-bootstrapper', '-n', mcoNamespace])).stdout.trim();

  // The approver's own credential: a token of machine-approver-sa, as its pod's projected volume holds.
  const kubeconfig = await serviceAccountKubeconfig(ts, admin, approverNamespace, 'machine-approver-sa', join(dir, 'approver.kubeconfig'));
  const config = new ClientConfig();
  config.loadFromFile(kubeconfig);
  const abort = new AbortController();
  const client = new ApiClient(config, { userAgent: 'machine-approver' });
  const informers = new InformerFactory({ client, signal: abort.signal });
  const registry = new Registry();
  // Wall time starts at now, so the requests' creation times (the server's clock) fall in the approver's windows.
  const clock = new FakeClock(0, { wall: Date.now() });
  const recorder = createEventRecorder({ kubeConfig: config, component: 'machine-approver', signal: abort.signal, retryDelayMs: 100 });
  const ctx: ControllerContext = { client, informers, recorder, logger: quiet(), metrics: createComponentMetrics('machine-approver', registry), clock };
  const controllers = [createMachineApprover(ctx, { gauges: pendingGauges(registry) }), createStatusReporter(ctx, { releaseVersion: '4.99.0' })];
  await informers.waitForSync();
  const running = Promise.all(controllers.map((c) => c.run(abort.signal)));
  return {
    ts,
    admin,
    clock,
    registry,
    bootstrapToken,
    async stop() {
      abort.abort();
      await running;
      await recorder.flush().catch(() => {});
      client.close();
      admin.close();
      await ts.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

function csrYaml(name: string, csrPem: string, usages = ['digital signature', 'client auth']): string {
  return stringify({ apiVersion: 'certificates.k8s.io/v1', kind: 'CertificateSigningRequest', metadata: { name }, spec: { request: Buffer.from(csrPem).toString('base64'), signerName: 'kubernetes.io/kube-apiserver-client-kubelet', usages } });
}

/** Files a request as the given identity (`--token` or `--as`/`--as-group` flags), with kubectl. */
async function fileCsr(c: Cluster, name: string, subject: string, as: readonly string[], opts: { dnsNames?: string[] } = {}): Promise<void> {
  const { csrPem } = await createCertificateRequest(subject, opts);
  const r = await c.ts.kubectl([...as, 'create', '-f', '-'], { input: csrYaml(name, csrPem) });
  assert.equal(r.code, 0, r.stderr);
}

const asBootstrapper = (c: Cluster) => ['--token', c.bootstrapToken];

async function createMachine(c: Cluster, name: string, hostname: string, nodeRef?: string): Promise<void> {
  const created = await c.admin.create<Json>(machines, { apiVersion: 'machine.openshift.io/v1beta1', kind: 'Machine', metadata: { name, namespace: machineNamespace }, spec: {} } as KubernetesObject);
  created.status = { addresses: [{ type: 'InternalIP', address: '127.1.9.9' }, { type: 'Hostname', address: hostname }], ...(nodeRef ? { nodeRef: { kind: 'Node', name: nodeRef } } : {}) };
  await c.admin.updateStatus(machines, created);
}

async function createNode(c: Cluster, name: string): Promise<void> {
  await c.admin.create(resources.nodes, { apiVersion: 'v1', kind: 'Node', metadata: { name } });
}

async function csrOf(c: Cluster, name: string): Promise<Json> {
  return c.admin.get<Json>(resources.certificateSigningRequests, undefined, name);
}

async function approved(c: Cluster, name: string): Promise<Json> {
  return until(`${name} approved`, async () => (await csrOf(c, name)).status?.conditions?.find((x: Json) => x.type === 'Approved'), 30_000);
}

/** The approver's Warning event on the request whose message has `text`. */
async function notApprovedEvent(c: Cluster, name: string, text: string): Promise<Json> {
  return until(
    `an event on ${name} saying "${text}"`,
    async () => {
      const events = await c.admin.list<Json>(resources.events, 'default', { fieldSelector: `involvedObject.name=${name}` });
      return events.items.find((e: Json) => e.reason === 'CSRNotApproved' && e.type === 'Warning' && String(e.message).includes(text));
    },
    30_000,
  );
}

async function assertStillPending(c: Cluster, name: string): Promise<void> {
  const csr = await csrOf(c, name);
  assert.deepEqual(csr.status?.conditions ?? [], [], `${name} is neither approved nor denied`);
}

async function gauge(c: Cluster, name: string): Promise<number> {
  return (await c.registry.getSingleMetric(name)!.get()).values[0]?.value ?? NaN;
}

describe('machine approver, as its ServiceAccount with the payload role', { timeout: 180_000 }, () => {
  let c: Cluster;
  before(async () => {
    c = await startCluster({ machineApi: true });
  });
  after(async () => {
    await c?.stop();
  });

  it('approves the node-bootstrapper\'s request for a Machine that has no Node yet, with OpenShift\'s reason and message', async () => {
    await createMachine(c, 'cluster-worker-a', 'worker-a');
    await fileCsr(c, 'csr-worker-a', 'O=system:nodes, CN=system:node:worker-a', asBootstrapper(c));
    const condition = await approved(c, 'csr-worker-a');
    assert.equal(condition.reason, approvalCondition.reason);
    assert.equal(condition.message, 'This CSR was approved by the Node CSR Approver (cluster-machine-approver)');
    assert.equal(condition.status, 'True');
    const csr = await csrOf(c, 'csr-worker-a');
    assert.equal(csr.spec.username, 'system:serviceaccount:openshift-machine-config-operator:node-bootstrapper');
  });

  it('leaves pending, saying why, a request for a Node that exists, for a Machine already linked, with a SAN, or from anyone else', async () => {
    await createMachine(c, 'cluster-worker-b', 'worker-b');
    await createNode(c, 'worker-b');
    await fileCsr(c, 'csr-worker-b', 'O=system:nodes, CN=system:node:worker-b', asBootstrapper(c));
    await notApprovedEvent(c, 'csr-worker-b', 'node worker-b already exists, cannot approve');

    await createMachine(c, 'cluster-worker-e', 'worker-e', 'worker-e');
    await fileCsr(c, 'csr-worker-e', 'O=system:nodes, CN=system:node:worker-e', asBootstrapper(c));
    await notApprovedEvent(c, 'csr-worker-e', 'machine openshift-machine-api/cluster-worker-e for node worker-e already has node ref worker-e, cannot approve');

    await createMachine(c, 'cluster-worker-f', 'worker-f');
    await fileCsr(c, 'csr-worker-f', 'O=system:nodes, CN=system:node:worker-f', asBootstrapper(c), { dnsNames: ['worker-f.example'] });
    await notApprovedEvent(c, 'csr-worker-f', 'not a node client certificate request: DNS subjectAltNames are not allowed');

    await createMachine(c, 'cluster-worker-g', 'worker-g');
    await fileCsr(c, 'csr-worker-g', 'O=system:nodes, CN=system:node:worker-g', []);
    await notApprovedEvent(c, 'csr-worker-g', 'requested by admin, neither the node-bootstrapper nor the node itself');

    for (const name of ['csr-worker-b', 'csr-worker-e', 'csr-worker-f', 'csr-worker-g']) await assertStillPending(c, name);
  });

  it('approves a request filed before its Machine appeared, once the Machine is there', async () => {
    await fileCsr(c, 'csr-worker-c', 'O=system:nodes, CN=system:node:worker-c', asBootstrapper(c));
    await notApprovedEvent(c, 'csr-worker-c', 'failed to find machine for node worker-c, cannot approve');
    await createMachine(c, 'cluster-worker-c', 'worker-c');
    await assertStillPending(c, 'csr-worker-c');
    // The approver looks again after its retry interval (10 s on its clock).
    c.clock.advance(10_000);
    await approved(c, 'csr-worker-c');
  });

  it('approves a node renewing its own name while its Node exists, not another node\'s', async () => {
    await createNode(c, 'worker-d');
    const asNode = ['--as', 'system:node:worker-d', '--as-group', 'system:nodes', '--as-group', 'system:authenticated'];
    await fileCsr(c, 'csr-worker-d-renewal', 'O=system:nodes, CN=system:node:worker-d', asNode);
    await approved(c, 'csr-worker-d-renewal');
    await fileCsr(c, 'csr-worker-d-for-b', 'O=system:nodes, CN=system:node:worker-b', asNode);
    await notApprovedEvent(c, 'csr-worker-d-for-b', "system:node:worker-d may renew only its own certificate, not system:node:worker-b's");
    await assertStillPending(c, 'csr-worker-d-for-b');
  });

  it('counts recent pending node requests against Machines or Nodes + 100, and keeps ClusterOperator machine-approver Available', async () => {
    const machineCount = (await c.admin.list(machines, machineNamespace)).items.length;
    const nodeCount = (await c.admin.list(resources.nodes)).items.length;
    await until('the gauges are set', async () => (await gauge(c, 'mapi_max_pending_csr')) === Math.max(machineCount, nodeCount) + 100);
    // csr-worker-b, -e, -f and -d-for-b are pending node requests (-g is the admin's, not a node's).
    await fileCsr(c, 'csr-worker-h', 'O=system:nodes, CN=system:node:worker-h', asBootstrapper(c));
    await until('mapi_current_pending_csr counts the pending node requests', async () => (await gauge(c, 'mapi_current_pending_csr')) === 5);
    const co = await until('ClusterOperator machine-approver reports', async () => {
      const got = await c.admin.get<Json>(resources.clusterOperators, undefined, 'machine-approver');
      return got.status?.conditions?.length ? got : undefined;
    }, { retryErrors: true });
    const cond = (type: string) => co.status.conditions.find((x: Json) => x.type === type)?.status;
    assert.deepEqual([cond('Available'), cond('Progressing'), cond('Degraded')], ['True', 'False', 'False']);
    assert.deepEqual(co.status.versions, [{ name: 'operator', version: '4.99.0' }]);
  });
});

describe('machine approver in a cluster without the Machine API', { timeout: 180_000 }, () => {
  let c: Cluster;
  before(async () => {
    c = await startCluster({ machineApi: false });
  });
  after(async () => {
    await c?.stop();
  });

  it('says the Machine API is missing, and approves once it is installed and the Machine exists', async () => {
    await fileCsr(c, 'csr-early', 'O=system:nodes, CN=system:node:early', asBootstrapper(c));
    await notApprovedEvent(c, 'csr-early', 'failed to find machine for node early: the Machine API is not installed');
    await createEstablishedCRDs(c.admin, machineAPICRDs());
    await createMachine(c, 'cluster-early', 'early');
    await assertStillPending(c, 'csr-early');
    c.clock.advance(10_000);
    await approved(c, 'csr-early');
  });
});
