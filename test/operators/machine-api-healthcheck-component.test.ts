/**
 * The machine-healthcheck component as its container starts it (`start(ctx)` with the flags the
 * operator's Deployment passes: `--v=3 --leader-elect=true --leader-elect-lease-duration=...
 * --namespace=openshift-machine-api --metrics-bind-address=...`), under a ServiceAccount with
 * only the health check's rules and the Lease rules, against a real API server: it takes its
 * Lease under its pod's name, serves `/metrics`, reports on a health check and deletes a Failed
 * Machine its MachineSet controls, and stops when its signal aborts.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { V1Lease } from '@kubernetes/client-node';
import type { Machine, MachineHealthCheck, MachineSet } from '../../src/api/machine/index.ts';
import { LEASE_NAME, start } from '../../src/operators/machine-api/healthcheck/component.ts';
import { HEALTH_CHECKS, LEGACY_HEALTH_CHECKS, MACHINES, MACHINE_SETS } from '../../src/operators/machine-api/healthcheck/controller.ts';
import { isNotFound, type ApiClient } from '../../src/runtime/client.ts';
import { resources } from '../../src/runtime/resources.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { until } from '../support/until.ts';
import { adminOf, leaseRules, NS, prepare, type Rule } from './machine-api-controllers-support.ts';

/** The health check's rules, as machine-api-healthcheck.test.ts holds them, and its Lease's. */
const rules: Rule[] = [
  { apiGroups: ['machine.openshift.io'], resources: ['machinehealthchecks'], verbs: ['get', 'list', 'watch'] },
  { apiGroups: ['machine.openshift.io'], resources: ['machinehealthchecks/status'], verbs: ['update'] },
  { apiGroups: ['healthchecking.openshift.io'], resources: ['machinehealthchecks'], verbs: ['list', 'watch'] },
  { apiGroups: ['machine.openshift.io'], resources: ['machines'], verbs: ['list', 'watch', 'delete'] },
  { apiGroups: ['machine.openshift.io'], resources: ['machinesets'], verbs: ['list', 'watch'] },
  { apiGroups: [''], resources: ['nodes'], verbs: ['get', 'list', 'watch'] },
  { apiGroups: [''], resources: ['configmaps'], verbs: ['list', 'watch'] },
  { apiGroups: ['', 'events.k8s.io'], resources: ['events'], verbs: ['create', 'patch'] },
  ...leaseRules,
];

const SLOW = { timeoutMs: 60_000 };
const POD = 'machine-api-controllers-5c7d-hc';

const freePort = (): Promise<number> =>
  new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as AddressInfo;
      s.close(() => resolve(port));
    });
  });

const httpGet = (url: string): Promise<{ status: number; body: string }> =>
  new Promise((resolve, reject) => {
    request(url, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
    })
      .on('error', reject)
      .end();
  });

describe('machine-healthcheck component', { timeout: 180_000 }, () => {
  let ts: TestServer;
  let admin: ApiClient;
  let dir: string;
  let port: number;
  const stop = new AbortController();
  let running: Promise<void> | undefined;

  before(async () => {
    ts = await startTestServer();
    admin = adminOf(ts);
    dir = mkdtempSync(join(tmpdir(), 'shipyard-mapi-healthcheck-'));
    const kubeconfig = await prepare(ts, admin, dir, 'machine-healthcheck', rules);
    for (const ref of [HEALTH_CHECKS, LEGACY_HEALTH_CHECKS]) {
      await until(`${ref.group} ${ref.resource} served`, () => admin.list(ref, NS).then(() => true), { retryErrors: true, timeoutMs: 30_000 });
    }
    port = await freePort();
    running = start({
      signal: stop.signal,
      args: ['--kubeconfig', kubeconfig, '--v=3', '--leader-elect=true', '--leader-elect-lease-duration=15s', `--namespace=${NS}`, `--metrics-bind-address=127.0.0.1:${port}`],
      env: { HOSTNAME: POD, SHIPYARD_LOG_LEVEL: process.env.SHIPYARD_TEST_LOG ?? 'silent' },
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

  it('takes its Lease under its pod\'s name and serves /metrics', async () => {
    const held = await until(`${LEASE_NAME} held`, async () => {
      const l = await admin.get<V1Lease>(resources.leases, NS, LEASE_NAME);
      return l.spec?.holderIdentity ? l : undefined;
    }, { ...SLOW, retryErrors: true });
    assert.equal(held.spec?.holderIdentity, POD);
    const metrics = await until('metrics', async () => {
      const res = await httpGet(`http://127.0.0.1:${port}/metrics`);
      return res.status === 200 ? res.body : undefined;
    }, { ...SLOW, retryErrors: true });
    assert.match(metrics, /^machinehealthcheck_controller_workqueue_depth/m);
  });

  it('reports on a health check and deletes a Failed Machine its MachineSet controls', async () => {
    const labels = { 'machine.openshift.io/cluster-api-machineset': 'c-worker-a' };
    const set = await admin.create<MachineSet>(MACHINE_SETS, {
      apiVersion: 'machine.openshift.io/v1beta1',
      kind: 'MachineSet',
      metadata: { name: 'c-worker-a', namespace: NS },
      spec: { replicas: 1, selector: { matchLabels: labels }, template: { metadata: { labels } } },
    });
    const machine = await admin.create<Machine>(MACHINES, {
      apiVersion: 'machine.openshift.io/v1beta1',
      kind: 'Machine',
      metadata: { name: 'c-worker-a-x1', namespace: NS, labels, ownerReferences: [{ apiVersion: 'machine.openshift.io/v1beta1', kind: 'MachineSet', name: 'c-worker-a', uid: set.metadata!.uid!, controller: true }] },
      spec: {},
    });
    await admin.updateStatus(MACHINES, { ...machine, status: { phase: 'Failed', errorMessage: "can't find created instance" } });
    await admin.create<MachineHealthCheck>(HEALTH_CHECKS, {
      apiVersion: 'machine.openshift.io/v1beta1',
      kind: 'MachineHealthCheck',
      metadata: { name: 'workers', namespace: NS },
      spec: { selector: { matchLabels: labels } },
    });
    await until('the Failed Machine deleted', () =>
      admin.get(MACHINES, NS, 'c-worker-a-x1').then(
        () => false,
        (err: unknown) => isNotFound(err),
      ), SLOW);
    const status = await until('the check\'s status', async () => (await admin.get<MachineHealthCheck>(HEALTH_CHECKS, NS, 'workers')).status, SLOW);
    assert.equal(status.conditions?.find((c) => c.type === 'RemediationAllowed')?.status, 'True');
  });

  it('stops when its signal aborts', async () => {
    stop.abort();
    const [result] = await Promise.allSettled([running]);
    assert.equal(result?.status, 'fulfilled');
  });
});
