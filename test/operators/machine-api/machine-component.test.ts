/**
 * The machine-controller component as its container runs it (`start(ctx)` with the Deployment's
 * flags) against a real API server and the real simulated cloud: the provider chosen from the
 * Infrastructure's platform (None refused, naming what it serves), leader election on
 * `cluster-api-provider-shipyard-leader`, metrics, and the Shipyard provider end to end — a Machine
 * becomes an instance and Provisioned, an invalid providerSpec goes Failed naming the field and
 * launches nothing, a deleted Machine's instance is terminated and the Machine released.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { V1Lease } from '@kubernetes/client-node';
import { configCRDs, Infrastructure } from '../../../src/api/config/index.ts';
import { machineAPICRDs, machineAPINamespace, machineLabels, type Machine } from '../../../src/api/machine/index.ts';
import { createCloud, type Cloud } from '../../../src/cloud/cloud.ts';
import { startCloudServer, type CloudServer } from '../../../src/cloud/server.ts';
import { LEASE_NAME, start } from '../../../src/operators/machine-api/machine/component.ts';
import { machinesRef } from '../../../src/operators/machine-api/machine/controller.ts';
import { cloudCredentialsSecret, providerSpecFor, userDataSecret } from '../../../src/operators/machine-api/providers/shipyard/install.ts';
import type { ApiClient } from '../../../src/runtime/client.ts';
import { refOf, resources } from '../../../src/runtime/resources.ts';
import { startTestServer, type TestServer } from '../../support/server.ts';
import { until } from '../../support/until.ts';
import { adminOf } from '../machine-api-controllers-support.ts';

const NS = machineAPINamespace;
const SLOW = { timeoutMs: 60_000 };
const infrastructures = refOf(Infrastructure);

const freePort = (): Promise<number> =>
  new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as AddressInfo;
      s.close(() => resolve(port));
    });
  });

const httpGet = (url: string): Promise<string> =>
  new Promise((resolve, reject) => {
    request(url, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
      res.on('error', reject);
    })
      .on('error', reject)
      .end();
  });

function machine(name: string, value: Record<string, unknown>): Machine {
  return {
    apiVersion: 'machine.openshift.io/v1beta1',
    kind: 'Machine',
    metadata: { name, namespace: NS, labels: { [machineLabels.cluster]: 'shipyard-test' } },
    spec: { providerSpec: { value } },
  } as Machine;
}

describe('machine-controller component (real API server, real cloud)', { timeout: 180_000 }, () => {
  let ts: TestServer;
  let admin: ApiClient;
  let dir: string;
  let cloud: Cloud;
  let cloudServer: CloudServer;

  const setPlatform = async (type: string) => {
    await admin.patch(infrastructures, undefined, 'cluster', { status: { platform: type, platformStatus: { type } } }, { subresource: 'status' });
  };
  const get = (name: string) => admin.getIfExists<Machine>(machinesRef, NS, name);
  const env = { HOSTNAME: 'machine-api-controllers-7c9d-x2x4z', SHIPYARD_LOG_LEVEL: process.env.SHIPYARD_TEST_LOG ?? 'silent' };

  before(async () => {
    ts = await startTestServer();
    admin = adminOf(ts);
    dir = mkdtempSync(join(tmpdir(), 'shipyard-machine-component-'));
    for (const crd of [...configCRDs(), ...machineAPICRDs()]) await admin.create(resources.customResourceDefinitions, crd as never);
    await until('CRDs served', async () => (await admin.list(infrastructures).then(() => true)) && admin.list(machinesRef, NS).then(() => true), { retryErrors: true, timeoutMs: 30_000 });
    await admin.create(resources.namespaces, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } });
    await admin.create(infrastructures, { apiVersion: Infrastructure.apiVersion, kind: Infrastructure.kind, metadata: { name: 'cluster' }, spec: {} } as never);
    cloud = await createCloud({ dataDir: dir, hooks: { boot: async () => {}, stop: async () => {} }, bootDelayMs: 0 });
    cloudServer = await startCloudServer({ cloud, dataDir: dir, token: 'component-test-token' });
    await admin.create(resources.secrets, cloudCredentialsSecret(NS, { url: cloudServer.url, token: 'component-test-token' }));
    await admin.create(resources.secrets, userDataSecret(NS, 'worker-user-data', JSON.stringify({ ignition: { version: '3.4.0' } })));
  });
  after(async () => {
    admin?.close();
    await cloudServer?.close();
    await cloud?.close();
    await ts?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('refuses a platform it has no provider for, and a flag it does not know, naming them', async () => {
    await setPlatform('None');
    await assert.rejects(
      start({ signal: new AbortController().signal, args: ['--kubeconfig', ts.server.kubeconfigPath, '--leader-elect=false'], env }),
      /machine-controller: no machine provider for platform "None" \(infrastructure\.config\.openshift\.io\/cluster status\.platformStatus\.type\); this machine controller serves: Shipyard/,
    );
    await assert.rejects(start({ signal: new AbortController().signal, args: ['--kubeconfig', ts.server.kubeconfigPath, '--bogus'], env }), /machine-controller: .*bogus/);
    await assert.rejects(start({ signal: new AbortController().signal, args: ['--kubeconfig', ts.server.kubeconfigPath, '--requeue-after=soon'], env }), /machine-controller: --requeue-after: /);
  });

  it('on platform Shipyard: leads, serves metrics, and drives the cloud', async (t) => {
    await setPlatform('Shipyard');
    const metricsPort = await freePort();
    const stop = new AbortController();
    const running = start({
      signal: stop.signal,
      // As the operator's Deployment runs it, with the delays shortened.
      args: ['/machine-controller-manager', '--v=3', '--leader-elect=true', '--leader-elect-lease-duration=15s', `--namespace=${NS}`, `--metrics-bind-address=127.0.0.1:${metricsPort}`, '--kubeconfig', ts.server.kubeconfigPath, '--requeue-after=200ms'],
      env,
    });
    running.catch(() => {});
    t.after(async () => {
      stop.abort();
      await running;
    });

    const lease = await until('the Lease is held', async () => (await admin.get<V1Lease>(resources.leases, NS, LEASE_NAME).catch(() => undefined))?.spec?.holderIdentity, SLOW);
    assert.equal(lease, env.HOSTNAME);

    await admin.create(machinesRef, machine('worker-1', providerSpecFor({ instanceType: 's.small', zone: 'local-c' })));
    const provisioned = await until('worker-1 Provisioned', async () => {
      const m = await get('worker-1');
      return m?.status?.phase === 'Provisioned' && m;
    }, SLOW);
    const [instance] = cloud.list({ name: 'worker-1' });
    assert.ok(instance);
    assert.equal(provisioned.spec?.providerID, instance.providerID);
    assert.equal(provisioned.metadata?.labels?.[machineLabels.zone], 'local-c');
    assert.deepEqual(provisioned.status?.addresses?.[0], { type: 'InternalIP', address: instance.privateIP });

    await admin.create(machinesRef, machine('worker-bad', providerSpecFor({ instanceType: 'x.huge' })));
    const failed = await until('worker-bad Failed', async () => {
      const m = await get('worker-bad');
      return m?.status?.phase === 'Failed' && m;
    }, SLOW);
    assert.equal(failed.status?.errorReason, 'InvalidConfiguration');
    assert.match(failed.status?.errorMessage ?? '', /^spec\.providerSpec\.value\.instanceType: Unsupported value: "x\.huge": supported values: "s\.small", /);
    assert.equal(cloud.list({ name: 'worker-bad' }).length, 0);

    const metrics = await httpGet(`http://127.0.0.1:${metricsPort}/metrics`);
    assert.match(metrics, /machine_controller_reconcile_total\{controller="machine-controller",result="/);

    await admin.delete(machinesRef, NS, 'worker-1');
    await until('worker-1 released', async () => (await get('worker-1')) === undefined, SLOW);
    assert.equal(cloud.get(instance.id)?.state, 'terminated');
    await admin.delete(machinesRef, NS, 'worker-bad');
    await until('worker-bad released', async () => (await get('worker-bad')) === undefined, SLOW);
  });
});
