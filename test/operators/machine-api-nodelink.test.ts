/**
 * The nodelink controller (issue 16, item 5) against a real API server with RBAC enforced,
 * running as a ServiceAccount holding only the rules its README lists, on a FakeClock (the
 * `lastUpdated` it writes is the clock's). Nodes and Machines are written by the test as the
 * kubelet and the machine controller would. Covered: a link by providerID and one by InternalIP
 * (Machine first, then Node, and the other way round); `status.nodeRef` and `lastUpdated`; the
 * Node's annotation, the Machine's labels, annotations and taints added while everything the
 * Node had stays (a taint of the same key and effect is not added again, a label removed from the
 * Machine stays on the Node); the nodeRef rewritten when readiness flips, and only then.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { V1Node, V1Taint } from '@kubernetes/client-node';
import { machineAnnotations, type Machine } from '../../src/api/machine/index.ts';
import { formatTimestamp } from '../../src/api/time.ts';
import { createNodeLinkController, MACHINES } from '../../src/operators/machine-api/nodelink/controller.ts';
import type { ApiClient } from '../../src/runtime/client.ts';
import { FakeClock } from '../../src/runtime/clock.ts';
import { resources } from '../../src/runtime/resources.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { until } from '../support/until.ts';
import { adminOf, NS, prepare, runController, type Rule, type RunningController } from './machine-api-controllers-support.ts';

/** What the README says the controller needs (besides its Lease), and no more. */
const rules: Rule[] = [
  { apiGroups: ['machine.openshift.io'], resources: ['machines'], verbs: ['list', 'watch'] },
  { apiGroups: ['machine.openshift.io'], resources: ['machines/status'], verbs: ['patch'] },
  { apiGroups: [''], resources: ['nodes'], verbs: ['list', 'watch', 'patch'] },
];

const SLOW = { timeoutMs: 30_000 };

describe('nodelink controller (real API server, FakeClock)', { timeout: 180_000 }, () => {
  let ts: TestServer;
  let admin: ApiClient;
  let dir: string;
  let controller: RunningController;
  const clock = new FakeClock();

  const settle = <T>(what: string, probe: () => Promise<T | undefined | false>) =>
    until(what, () => {
      clock.advance(10);
      return probe();
    }, SLOW);
  const machineNamed = (name: string) => admin.get<Machine>(MACHINES, NS, name);
  const nodeNamed = (name: string) => admin.get<V1Node>(resources.nodes, undefined, name);

  async function createMachine(name: string, o: { providerID?: string; ip?: string; spec?: Partial<Machine['spec']> }): Promise<void> {
    await admin.create<Machine>(MACHINES, {
      apiVersion: 'machine.openshift.io/v1beta1',
      kind: 'Machine',
      metadata: { name, namespace: NS },
      spec: { ...(o.providerID ? { providerID: o.providerID } : {}), ...o.spec },
    });
    if (o.ip) await admin.patch(MACHINES, NS, name, { status: { addresses: [{ type: 'InternalIP', address: o.ip }, { type: 'Hostname', address: name }] } }, { type: 'merge', subresource: 'status' });
  }

  async function createNode(name: string, o: { providerID?: string; ip?: string; labels?: Record<string, string>; taints?: V1Taint[]; ready?: 'True' | 'False' }): Promise<V1Node> {
    const node = await admin.create<V1Node>(resources.nodes, {
      apiVersion: 'v1',
      kind: 'Node',
      metadata: { name, ...(o.labels ? { labels: o.labels } : {}) },
      spec: { ...(o.providerID ? { providerID: o.providerID } : {}), ...(o.taints ? { taints: o.taints } : {}) },
    });
    await setNodeStatus(name, { ip: o.ip, ready: o.ready ?? 'False' });
    return node;
  }

  async function setNodeStatus(name: string, o: { ip?: string; ready: 'True' | 'False' }): Promise<void> {
    const at = formatTimestamp(clock.wallNow());
    await admin.patch(resources.nodes, undefined, name, {
      status: {
        ...(o.ip ? { addresses: [{ type: 'InternalIP', address: o.ip }, { type: 'Hostname', address: name }] } : {}),
        conditions: [{ type: 'Ready', status: o.ready, reason: o.ready === 'True' ? 'KubeletReady' : 'KubeletNotReady', lastHeartbeatTime: at, lastTransitionTime: at }],
      },
    }, { type: 'merge', subresource: 'status' });
  }

  const linked = (machine: string) =>
    settle(`${machine} linked`, async () => {
      const m = await machineNamed(machine);
      return m.status?.nodeRef ? m : undefined;
    });

  before(async () => {
    ts = await startTestServer();
    admin = adminOf(ts);
    dir = mkdtempSync(join(tmpdir(), 'shipyard-nodelink-'));
    const kubeconfig = await prepare(ts, admin, dir, 'nodelink-controller', rules);
    controller = await runController(kubeconfig, clock, (ctx) => createNodeLinkController(ctx, { namespace: NS }));
  });
  after(async () => {
    await controller?.stop();
    admin?.close();
    await ts?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('links by providerID and copies the Machine\'s labels, annotations and taints onto the Node, removing nothing', async () => {
    await createMachine('by-id', {
      providerID: 'shipyard://local/a/i-0001',
      // Not the Node's InternalIP: the providerID alone links them.
      ip: '127.1.0.99',
      spec: {
        metadata: { labels: { 'node-role.kubernetes.io/worker': '', tier: 'gold' }, annotations: { 'example.com/owner': 'team-a' } },
        taints: [
          { key: 'dedicated', value: 'gpu', effect: 'NoSchedule' },
          { key: 'dedicated', value: 'gpu', effect: 'NoExecute' },
        ],
      },
    });
    const node = await createNode('node-by-id', {
      providerID: 'shipyard://local/a/i-0001',
      ip: '127.1.0.10',
      labels: { 'kubernetes.io/hostname': 'node-by-id', tier: 'silver' },
      taints: [{ key: 'dedicated', value: 'other', effect: 'NoSchedule' }],
    });
    const m = await linked('by-id');
    assert.deepEqual(m.status?.nodeRef, { kind: 'Node', name: 'node-by-id', uid: node.metadata?.uid });
    // The FakeClock's wall time (it starts at 2024-01-01T00:00:00Z and has moved only by milliseconds), not the machine's.
    assert.match(String(m.status?.lastUpdated), /^2024-01-01T00:00:\d\dZ$/);

    const updated = await settle('node updated', async () => {
      const n = await nodeNamed('node-by-id');
      return n.metadata?.annotations?.[machineAnnotations.nodeMachine] ? n : undefined;
    });
    assert.equal(updated.metadata?.annotations?.[machineAnnotations.nodeMachine], `${NS}/by-id`);
    assert.equal(updated.metadata?.annotations?.['example.com/owner'], 'team-a');
    assert.deepEqual(updated.metadata?.labels, { 'kubernetes.io/hostname': 'node-by-id', 'node-role.kubernetes.io/worker': '', tier: 'gold' });
    assert.deepEqual(updated.spec?.taints, [
      { key: 'dedicated', value: 'other', effect: 'NoSchedule' },
      { key: 'dedicated', value: 'gpu', effect: 'NoExecute' },
    ]);

    // A label dropped from the Machine stays on the Node; a changed one is updated; a new taint is added.
    await admin.patch(MACHINES, NS, 'by-id', {
      spec: { metadata: { labels: { 'node-role.kubernetes.io/worker': null, tier: 'platinum' } }, taints: [{ key: 'dedicated', value: 'gpu', effect: 'NoSchedule' }, { key: 'extra', effect: 'PreferNoSchedule' }] },
    });
    const again = await settle('node updated again', async () => {
      const n = await nodeNamed('node-by-id');
      return n.metadata?.labels?.tier === 'platinum' && n.spec?.taints?.length === 3 ? n : undefined;
    });
    assert.deepEqual(again.metadata?.labels, { 'kubernetes.io/hostname': 'node-by-id', 'node-role.kubernetes.io/worker': '', tier: 'platinum' });
    assert.deepEqual(again.spec?.taints?.map((t) => `${t.key}=${t.value ?? ''}:${t.effect}`), ['dedicated=other:NoSchedule', 'dedicated=gpu:NoExecute', 'extra=:PreferNoSchedule']);
  });

  it('links by InternalIP when the Node has no matching providerID, whichever comes first', async () => {
    await createNode('node-by-ip', { ip: '127.1.0.12' });
    await createMachine('by-ip', { ip: '127.1.0.12', spec: { metadata: { labels: { joined: 'by-ip' } } } });
    const m = await linked('by-ip');
    assert.equal(m.status?.nodeRef?.name, 'node-by-ip');
    await settle('node labelled', async () => (await nodeNamed('node-by-ip')).metadata?.labels?.joined === 'by-ip');

    await createMachine('ip-first', { ip: '127.1.0.13' });
    await createNode('node-ip-later', { providerID: 'shipyard://local/b/i-unmatched', ip: '127.1.0.13' });
    assert.equal((await linked('ip-first')).status?.nodeRef?.name, 'node-ip-later');
    const annotation = await settle('node annotated', async () => (await nodeNamed('node-ip-later')).metadata?.annotations?.[machineAnnotations.nodeMachine]);
    assert.equal(annotation, `${NS}/ip-first`);
  });

  it('rewrites the nodeRef (and lastUpdated) when the Node\'s readiness flips, and only then', async () => {
    await createMachine('flip', { providerID: 'shipyard://local/a/i-flip' });
    await createNode('node-flip', { providerID: 'shipyard://local/a/i-flip', ready: 'False' });
    const first = (await linked('flip')).status?.lastUpdated;
    assert.ok(first);

    // A change that is not readiness: the Node is reconciled, the Machine not written.
    clock.advance(60_000);
    const before = await controller.reconciles();
    await admin.patch(resources.nodes, undefined, 'node-flip', { metadata: { labels: { poke: '1' } } });
    await settle('a pass over the node', async () => (await controller.reconciles()) > before);
    assert.equal((await machineNamed('flip')).status?.lastUpdated, first);

    clock.advance(60_000);
    await setNodeStatus('node-flip', { ready: 'True' });
    const flipped = await settle('lastUpdated moved', async () => {
      const m = await machineNamed('flip');
      return m.status?.lastUpdated !== first ? m : undefined;
    });
    assert.ok(Date.parse(String(flipped.status?.lastUpdated)) > Date.parse(String(first)));
    assert.equal(flipped.status?.nodeRef?.name, 'node-flip');
  });
});
