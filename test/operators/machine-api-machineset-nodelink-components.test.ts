/**
 * The machineset-controller and nodelink-controller components as their containers start them
 * (`start(ctx)` with the flags the operator's Deployment passes: `--v=3 --leader-elect=true
 * --leader-elect-lease-duration=... --namespace=openshift-machine-api --metrics-bind-address=...`),
 * each under its own ServiceAccount with the README's rules and the Lease rules, against a real
 * API server: each takes its Lease under its pod's name, serves `/metrics`, does its job (a
 * MachineSet gets its Machine, that Machine gets its Node), and stops when its signal aborts.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { V1Lease, V1Node } from '@kubernetes/client-node';
import { machineLabels, type Machine, type MachineSet } from '../../src/api/machine/index.ts';
import { start as startMachineSet } from '../../src/operators/machine-api/machineset/component.ts';
import { MACHINES, MACHINE_SETS } from '../../src/operators/machine-api/machineset/controller.ts';
import { start as startNodeLink } from '../../src/operators/machine-api/nodelink/component.ts';
import type { ApiClient } from '../../src/runtime/client.ts';
import { resources } from '../../src/runtime/resources.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { until } from '../support/until.ts';
import { adminOf, leaseRules, NS, prepare, type Rule } from './machine-api-controllers-support.ts';

const machineSetRules: Rule[] = [
  { apiGroups: ['machine.openshift.io'], resources: ['machinesets'], verbs: ['get', 'list', 'watch'] },
  { apiGroups: ['machine.openshift.io'], resources: ['machinesets/status'], verbs: ['update'] },
  { apiGroups: ['machine.openshift.io'], resources: ['machinesets/finalizers'], verbs: ['update'] },
  { apiGroups: ['machine.openshift.io'], resources: ['machines'], verbs: ['list', 'watch', 'create', 'patch', 'delete'] },
  { apiGroups: [''], resources: ['nodes'], verbs: ['list', 'watch'] },
  { apiGroups: ['', 'events.k8s.io'], resources: ['events'], verbs: ['create', 'patch'] },
  ...leaseRules,
];
const nodeLinkRules: Rule[] = [
  { apiGroups: ['machine.openshift.io'], resources: ['machines'], verbs: ['list', 'watch'] },
  { apiGroups: ['machine.openshift.io'], resources: ['machines/status'], verbs: ['patch'] },
  { apiGroups: [''], resources: ['nodes'], verbs: ['list', 'watch', 'patch'] },
  ...leaseRules,
];

const SLOW = { timeoutMs: 60_000 };

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

describe('machineset-controller and nodelink-controller components', { timeout: 180_000 }, () => {
  let ts: TestServer;
  let admin: ApiClient;
  let dir: string;
  const stop = new AbortController();
  const running: Promise<void>[] = [];
  const ports: Record<string, number> = {};

  before(async () => {
    ts = await startTestServer();
    admin = adminOf(ts);
    dir = mkdtempSync(join(tmpdir(), 'shipyard-mapi-components-'));
    const components = [
      { name: 'machineset-controller', start: startMachineSet, rules: machineSetRules },
      { name: 'nodelink-controller', start: startNodeLink, rules: nodeLinkRules },
    ];
    for (const c of components) {
      const kubeconfig = await prepare(ts, admin, dir, c.name, c.rules);
      ports[c.name] = await freePort();
      const run = c.start({
        signal: stop.signal,
        args: ['--kubeconfig', kubeconfig, '--v=3', '--logtostderr=true', '--leader-elect=true', '--leader-elect-lease-duration=15s', `--namespace=${NS}`, `--metrics-bind-address=127.0.0.1:${ports[c.name]}`],
        env: { HOSTNAME: `machine-api-controllers-5c7d-${c.name}`, SHIPYARD_LOG_LEVEL: process.env.SHIPYARD_TEST_LOG ?? 'silent' },
      });
      run.catch(() => {});
      running.push(run);
    }
  });
  after(async () => {
    stop.abort();
    await Promise.allSettled(running);
    admin?.close();
    await ts?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('each takes its Lease under its pod\'s name and serves /metrics', async () => {
    for (const [component, lease] of [['machineset-controller', 'cluster-api-provider-machineset-leader'], ['nodelink-controller', 'cluster-api-provider-nodelink-leader']] as const) {
      const held = await until(`${lease} held`, async () => {
        const l = await admin.get<V1Lease>(resources.leases, NS, lease);
        return l.spec?.holderIdentity ? l : undefined;
      }, { ...SLOW, retryErrors: true });
      assert.equal(held.spec?.holderIdentity, `machine-api-controllers-5c7d-${component}`);
      const metrics = await until(`${component} metrics`, async () => {
        const res = await httpGet(`http://127.0.0.1:${ports[component]}/metrics`);
        return res.status === 200 ? res.body : undefined;
      }, { ...SLOW, retryErrors: true });
      assert.match(metrics, new RegExp(`^${component.replace('-', '_')}_workqueue_depth`, 'm'));
    }
  });

  it('a MachineSet gets its Machine, and the Machine its Node', async () => {
    const labels = { [machineLabels.cluster]: 'c', [machineLabels.machineSet]: 'c-worker-a' };
    await admin.create<MachineSet>(MACHINE_SETS, {
      apiVersion: 'machine.openshift.io/v1beta1',
      kind: 'MachineSet',
      metadata: { name: 'c-worker-a', namespace: NS },
      spec: { replicas: 1, selector: { matchLabels: labels }, template: { metadata: { labels }, spec: { metadata: { labels: { 'node-role.kubernetes.io/worker': '' } } } } },
    });
    const machine = await until('the MachineSet made its Machine', async () => (await admin.list<Machine>(MACHINES, NS)).items.find((m) => m.metadata?.name?.startsWith('c-worker-a-')), SLOW);
    const providerID = 'shipyard://local/a/i-components';
    await admin.patch(MACHINES, NS, machine.metadata?.name ?? '', { spec: { providerID } });
    await admin.create<V1Node>(resources.nodes, { apiVersion: 'v1', kind: 'Node', metadata: { name: 'c-worker-a-node' }, spec: { providerID } });
    const linked = await until('the Machine linked to its Node', async () => (await admin.get<Machine>(MACHINES, NS, machine.metadata?.name ?? '')).status?.nodeRef, SLOW);
    assert.equal(linked.name, 'c-worker-a-node');
    const node = await until('the Node labelled', async () => {
      const n = await admin.get<V1Node>(resources.nodes, undefined, 'c-worker-a-node');
      return n.metadata?.labels?.['node-role.kubernetes.io/worker'] === '' ? n : undefined;
    }, SLOW);
    assert.equal(node.metadata?.annotations?.['machine.openshift.io/machine'], `${NS}/${machine.metadata?.name}`);
  });

  it('stops when its signal aborts', async () => {
    stop.abort();
    const results = await Promise.allSettled(running);
    assert.deepEqual(results.map((r) => r.status), ['fulfilled', 'fulfilled']);
  });
});
