/**
 * Seed 003's dev loop: the Machine API operator run on the host, outside the cluster, as
 * `shipyard component machine-api-operator start --kubeconfig K --images-json F` (F relative to
 * the working directory, no pod environment: no RELEASE_VERSION, POD_IP or rootfs), drives the
 * cluster's controllers as the in-cluster one would, and stops cleanly on SIGTERM. A real
 * process of the `shipyard` command against an in-process API server.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { V1Deployment } from '@kubernetes/client-node';
import { configCRDs, Infrastructure, type ClusterOperator } from '../../src/api/config/index.ts';
import { machineAPICRDs } from '../../src/api/machine/index.ts';
import { ApiClient } from '../../src/runtime/client.ts';
import { ClientConfig } from '../../src/runtime/kubeconfig.ts';
import { objectPath, refOf, resources } from '../../src/runtime/resources.ts';
import { createEstablishedCRDs } from '../support/rbac.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { until } from '../support/until.ts';

const NS = 'openshift-machine-api';
const shipyard = new URL('../../bin/shipyard.js', import.meta.url).pathname;
const namespaceManifest = new URL('../../src/release/payload/manifests/0000_30_machine-api-operator_00_namespace.yaml', import.meta.url).pathname;

describe('machine-api operator run from the host (seed 003)', { timeout: 180_000 }, () => {
  let ts: TestServer;
  let admin: ApiClient;
  let dir: string;
  let child: ChildProcess | undefined;
  let exited: Promise<number | null> | undefined;
  let output = '';

  before(async () => {
    ts = await startTestServer();
    dir = mkdtempSync(join(tmpdir(), 'shipyard-mao-host-'));
    const config = new ClientConfig();
    config.loadFromFile(ts.server.kubeconfigPath);
    admin = new ApiClient(config);
    const crds = [...machineAPICRDs(), ...configCRDs().filter((c) => ['Infrastructure', 'ClusterOperator'].includes(c.spec.names.kind))];
    await createEstablishedCRDs(admin, crds);
    const applied = await ts.kubectl(['apply', '-f', namespaceManifest]);
    assert.equal(applied.code, 0, applied.stderr);
    const infra = await until('Infrastructure created', () => admin.create<Infrastructure>(refOf(Infrastructure), { apiVersion: Infrastructure.apiVersion, kind: 'Infrastructure', metadata: { name: 'cluster' }, spec: { platformSpec: { type: 'None' } } } as never), { retryErrors: true });
    await admin.request('PUT', objectPath(refOf(Infrastructure), undefined, 'cluster', 'status'), { body: { ...infra, status: { platform: 'None', platformStatus: { type: 'Shipyard' } } } });
    writeFileSync(join(dir, 'images.json'), JSON.stringify({ machineAPIOperator: 'example.test/mao:dev', clusterAPIControllerShipyard: 'example.test/machine-controller:dev' }));
  });

  after(async () => {
    if (child && child.exitCode === null) child.kill('SIGKILL');
    await exited;
    admin?.close();
    await ts?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('deploys the controllers from the host\'s images.json with the admin\'s kubeconfig, and stops cleanly', async () => {
    const env: Record<string, string | undefined> = { ...process.env, SHIPYARD_LOG_LEVEL: 'info' };
    // A shell on the host, not a pod.
    for (const k of ['RELEASE_VERSION', 'POD_IP', 'SHIPYARD_ROOTFS', 'KUBERNETES_SERVICE_HOST']) delete env[k];
    child = spawn(process.execPath, [shipyard, 'component', 'machine-api-operator', 'start', '--kubeconfig', ts.server.kubeconfigPath, '--images-json', 'images.json', '--leader-elect-lease-duration=15s'], { cwd: dir, env, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout!.setEncoding('utf8').on('data', (d: string) => (output += d));
    child.stderr!.setEncoding('utf8').on('data', (d: string) => (output += d));
    exited = new Promise((resolve) => child!.once('exit', (code) => resolve(code)));

    const d = await until('the controllers Deployment', async () => {
      if (child?.exitCode !== null) throw new Error(`the operator exited: ${output}`);
      return admin.getIfExists<V1Deployment>(resources.deployments, NS, 'machine-api-controllers');
    }, 90_000);
    assert.deepEqual(d.spec?.template.spec?.containers.map((c) => c.image), ['example.test/mao:dev', 'example.test/machine-controller:dev', 'example.test/mao:dev', 'example.test/mao:dev']);
    // Created first, then given its status: wait for the status.
    const co = await until('its ClusterOperator\'s status', async () => {
      const o = await admin.getIfExists<ClusterOperator>(resources.clusterOperators, undefined, 'machine-api');
      return o?.status?.conditions?.length ? o : undefined;
    }, 30_000);
    assert.equal(co.status?.conditions?.find((c) => c.type === 'Available')?.reason, 'Initializing');
    assert.deepEqual(co.status?.versions ?? [], [], 'no RELEASE_VERSION, no versions, as OpenShift\'s operator');
    const lease = await admin.get<{ metadata?: object; spec?: { holderIdentity?: string } }>(resources.leases, NS, 'machine-api-operator');
    assert.ok(lease.spec?.holderIdentity, 'leading on the same Lease as the in-cluster operator');

    child.kill('SIGTERM');
    assert.equal(await exited, 0, output);
  });
});
