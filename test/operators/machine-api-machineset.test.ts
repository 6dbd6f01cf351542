/**
 * The MachineSet controller (issue 16, item 4) against a real API server with RBAC enforced,
 * running as a ServiceAccount that holds only the rules its README lists, on a FakeClock. No
 * machine controller runs: Machines are created and deleted as objects, and a test links one to
 * a Node by writing its `status.nodeRef` as the nodelink controller would. Covered: creation from
 * the template (labels, annotations, spec, generated name, controller reference, events, status);
 * no second create while the cache has not seen the first (the Machine informer held back);
 * adoption of matching orphans only; scale-down under Oldest, Newest and Random, the annotated
 * Machine first and an empty annotation value ignored; ready and available counts, available
 * only once minReadySeconds have passed on the clock.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { KubernetesObject, V1Node } from '@kubernetes/client-node';
import { machineAnnotations, machineLabels, type Machine, type MachineSet } from '../../src/api/machine/index.ts';
import { formatTimestamp } from '../../src/api/time.ts';
import { createMachineSetController, MACHINES, MACHINE_SETS } from '../../src/operators/machine-api/machineset/controller.ts';
import type { ApiClient } from '../../src/runtime/client.ts';
import { FakeClock } from '../../src/runtime/clock.ts';
import { resources } from '../../src/runtime/resources.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { until } from '../support/until.ts';
import { adminOf, eventsAbout, GatedInformer, NS, prepare, runController, type Rule, type RunningController } from './machine-api-controllers-support.ts';

/** What the README says the controller needs (besides its Lease), and no more. */
const rules: Rule[] = [
  { apiGroups: ['machine.openshift.io'], resources: ['machinesets'], verbs: ['get', 'list', 'watch'] },
  { apiGroups: ['machine.openshift.io'], resources: ['machinesets/status'], verbs: ['update'] },
  { apiGroups: ['machine.openshift.io'], resources: ['machinesets/finalizers'], verbs: ['update'] },
  { apiGroups: ['machine.openshift.io'], resources: ['machines'], verbs: ['list', 'watch', 'create', 'patch', 'delete'] },
  { apiGroups: [''], resources: ['nodes'], verbs: ['list', 'watch'] },
  { apiGroups: ['', 'events.k8s.io'], resources: ['events'], verbs: ['create', 'patch'] },
];

const SLOW = { timeoutMs: 30_000 };
const CLUSTER = 'test-cluster';

function machineSet(name: string, o: { replicas: number; deletePolicy?: MachineSet['spec']['deletePolicy']; minReadySeconds?: number }): MachineSet {
  const labels = { [machineLabels.cluster]: CLUSTER, [machineLabels.machineSet]: name };
  return {
    apiVersion: 'machine.openshift.io/v1beta1',
    kind: 'MachineSet',
    metadata: { name, namespace: NS },
    spec: {
      replicas: o.replicas,
      ...(o.deletePolicy ? { deletePolicy: o.deletePolicy } : {}),
      ...(o.minReadySeconds ? { minReadySeconds: o.minReadySeconds } : {}),
      selector: { matchLabels: labels },
      template: {
        metadata: { labels: { ...labels, [machineLabels.role]: 'worker' }, annotations: { 'example.com/note': name } },
        spec: { metadata: { labels: { 'node-role.kubernetes.io/worker': '' } }, providerSpec: { value: { instanceType: 's.large', zone: 'a' } } },
      },
    },
  };
}

function orphan(name: string, setName: string, o: { owner?: { name: string; uid: string }; labels?: Record<string, string> } = {}): Machine {
  return {
    apiVersion: 'machine.openshift.io/v1beta1',
    kind: 'Machine',
    metadata: {
      name,
      namespace: NS,
      labels: o.labels ?? { [machineLabels.cluster]: CLUSTER, [machineLabels.machineSet]: setName },
      ...(o.owner ? { ownerReferences: [{ apiVersion: 'machine.openshift.io/v1beta1', kind: 'MachineSet', name: o.owner.name, uid: o.owner.uid, controller: true }] } : {}),
    },
    spec: { providerSpec: { value: {} } },
  };
}

describe('MachineSet controller (real API server, FakeClock)', { timeout: 180_000 }, () => {
  let ts: TestServer;
  let admin: ApiClient;
  let dir: string;
  let controller: RunningController;
  let gate: GatedInformer<KubernetesObject> | undefined;
  // Wall time an hour ahead of the server's, so every Machine's creation time is in the clock's past.
  const clock = new FakeClock(0, { wall: Date.now() + 3600_000 });

  /** Waits with the clock moving a little on each look, so a retry backed off on the clock is not stranded. */
  const settle = <T>(what: string, probe: () => Promise<T | undefined | false>) =>
    until(what, () => {
      clock.advance(10);
      return probe();
    }, SLOW);

  const setNamed = (name: string) => admin.get<MachineSet>(MACHINE_SETS, NS, name);
  const machinesOf = async (setName: string): Promise<Machine[]> =>
    (await admin.list<Machine>(MACHINES, NS, { labelSelector: `${machineLabels.machineSet}=${setName}` })).items.filter((m) => !m.metadata?.deletionTimestamp);
  const names = (ms: readonly Machine[]) => ms.map((m) => m.metadata?.name ?? '').sort();
  const scale = (name: string, replicas: number) => admin.patch(MACHINE_SETS, NS, name, { spec: { replicas } });
  const statusOf = async (name: string) => (await setNamed(name)).status;

  before(async () => {
    ts = await startTestServer();
    admin = adminOf(ts);
    dir = mkdtempSync(join(tmpdir(), 'shipyard-machineset-'));
    const kubeconfig = await prepare(ts, admin, dir, 'machineset-controller', rules);
    controller = await runController(kubeconfig, clock, (ctx) => createMachineSetController(ctx, { namespace: NS }), (ref, informer) =>
      ref.resource === 'machines' ? (gate = new GatedInformer(informer)) : informer,
    );
  });
  after(async () => {
    await controller?.stop();
    admin?.close();
    await ts?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('creates Machines from the template, with events, and reports the counts', async () => {
    const created = await admin.create(MACHINE_SETS, machineSet('make', { replicas: 3 }));
    const machines = await settle('3 machines', async () => {
      const ms = await machinesOf('make');
      return ms.length >= 3 ? ms : undefined;
    });
    assert.equal(machines.length, 3);
    const template = created.spec.template!;
    for (const m of machines) {
      assert.match(m.metadata?.name ?? '', /^make-[a-z0-9]+$/);
      assert.deepEqual(m.metadata?.labels, template.metadata?.labels);
      assert.deepEqual(m.metadata?.annotations, template.metadata?.annotations);
      assert.deepEqual(m.spec, template.spec);
      assert.deepEqual(m.metadata?.ownerReferences, [
        { apiVersion: 'machine.openshift.io/v1beta1', kind: 'MachineSet', name: 'make', uid: created.metadata?.uid, controller: true, blockOwnerDeletion: true },
      ]);
    }
    const status = await settle('status counts 3', async () => {
      const s = await statusOf('make');
      return s?.replicas === 3 ? s : undefined;
    });
    assert.deepEqual(status, {
      replicas: 3,
      fullyLabeledReplicas: 3,
      readyReplicas: 0,
      availableReplicas: 0,
      labelSelector: `${machineLabels.cluster}=${CLUSTER},${machineLabels.machineSet}=make`,
      observedGeneration: created.metadata?.generation,
    });
    const events = await settle('three SuccessfulCreate events', async () => {
      const e = (await eventsAbout(admin, 'MachineSet', 'make')).filter((x) => x.startsWith('SuccessfulCreate'));
      return e.length === 3 ? e : undefined;
    });
    assert.deepEqual(events.sort(), names(machines).map((n) => `SuccessfulCreate: Created machine "${n}"`));
  });

  it('does not create again while its cache has not yet seen the Machines it created', async () => {
    assert.ok(gate);
    gate.hold();
    try {
      await admin.create(MACHINE_SETS, machineSet('expect', { replicas: 2 }));
      await settle('2 machines on the server', async () => (await machinesOf('expect')).length >= 2);
      // Two more passes over the set while the cache still shows no Machine at all.
      for (const poke of ['1', '2']) {
        const before = await controller.reconciles();
        await admin.patch(MACHINE_SETS, NS, 'expect', { metadata: { annotations: { poke } } });
        await settle(`a pass after poke ${poke}`, async () => (await controller.reconciles()) > before);
      }
      assert.equal((await machinesOf('expect')).length, 2, 'no Machine created twice');
    } finally {
      gate.release();
    }
    await settle('status counts 2', async () => (await statusOf('expect'))?.replicas === 2);
    const before = await controller.reconciles();
    await admin.patch(MACHINE_SETS, NS, 'expect', { metadata: { annotations: { poke: '3' } } });
    await settle('a pass once the cache caught up', async () => (await controller.reconciles()) > before);
    assert.equal((await machinesOf('expect')).length, 2);
  });

  it('adopts the orphans its selector matches, and nothing else', async () => {
    await admin.create(MACHINES, orphan('adopt-orphan', 'adopt'));
    await admin.create(MACHINES, orphan('adopt-foreign', 'adopt', { owner: { name: 'someone-else', uid: '6c1b6a3e-0000-4000-8000-000000000001' } }));
    await admin.create(MACHINES, orphan('adopt-other-labels', 'adopt', { labels: { [machineLabels.cluster]: CLUSTER, [machineLabels.machineSet]: 'not-adopt' } }));
    const created = await admin.create(MACHINE_SETS, machineSet('adopt', { replicas: 2 }));
    const owned = await settle('2 machines controlled by the set', async () => {
      const all = (await admin.list<Machine>(MACHINES, NS)).items;
      const mine = all.filter((m) => m.metadata?.ownerReferences?.some((r) => r.controller && r.uid === created.metadata?.uid));
      return mine.length >= 2 ? mine : undefined;
    });
    assert.equal(owned.length, 2, 'the orphan and one new Machine');
    assert.ok(owned.some((m) => m.metadata?.name === 'adopt-orphan'));
    const foreign = await admin.get<Machine>(MACHINES, NS, 'adopt-foreign');
    assert.deepEqual(foreign.metadata?.ownerReferences?.map((r) => r.name), ['someone-else']);
    const other = await admin.get<Machine>(MACHINES, NS, 'adopt-other-labels');
    assert.equal(other.metadata?.ownerReferences, undefined);
    await settle('status counts 2', async () => (await statusOf('adopt'))?.replicas === 2);
  });

  it('scales down by deletePolicy: Oldest, Newest, Random (no Node first), an annotated Machine before all', async () => {
    // Three rounds a second apart, so creation times differ (they have whole seconds); names
    // are not in age order: c is the oldest, then a, then b.
    for (const [i, suffix] of ['c', 'a', 'b'].entries()) {
      if (i > 0) await new Promise((r) => setTimeout(r, 1100));
      await admin.create(MACHINES, orphan(`old-${suffix}`, 'old'));
      await admin.create(MACHINES, orphan(`new-${suffix}`, 'new'));
    }
    await admin.create(MACHINE_SETS, machineSet('old', { replicas: 3, deletePolicy: 'Oldest' }));
    await admin.create(MACHINE_SETS, machineSet('new', { replicas: 3, deletePolicy: 'Newest' }));
    for (const name of ['old', 'new']) await settle(`${name} counts its 3 adopted machines`, async () => (await statusOf(name))?.replicas === 3);
    assert.deepEqual(names(await machinesOf('old')), ['old-a', 'old-b', 'old-c'], 'adopted, none created');

    const after = async (name: string, count: number) =>
      names(await settle(`${name} down to ${count}`, async () => {
        const ms = await machinesOf(name);
        return ms.length === count ? ms : undefined;
      }));

    await scale('old', 2);
    assert.deepEqual(await after('old', 2), ['old-a', 'old-b'], 'Oldest: the oldest goes');
    await admin.patch(MACHINES, NS, 'old-b', { metadata: { annotations: { [machineAnnotations.deleteMachine]: 'true' } } });
    await scale('old', 1);
    assert.deepEqual(await after('old', 1), ['old-a'], 'the annotated (newest) Machine goes before the oldest');

    await scale('new', 2);
    assert.deepEqual(await after('new', 2), ['new-a', 'new-c'], 'Newest: the newest goes');
    // An empty value does not mark a Machine (as upstream): the newest of the rest still goes.
    await admin.patch(MACHINES, NS, 'new-c', { metadata: { annotations: { [machineAnnotations.deleteMachine]: '' } } });
    await scale('new', 1);
    assert.deepEqual(await after('new', 1), ['new-c']);

    await admin.create(MACHINE_SETS, machineSet('rnd', { replicas: 3 }));
    const three = names(await settle('rnd has 3 machines', async () => {
      const ms = await machinesOf('rnd');
      return ms.length === 3 ? ms : undefined;
    }));
    // The last by name has no Node; the other two have one.
    for (const name of three.slice(0, 2)) {
      await admin.patch(MACHINES, NS, name, { status: { nodeRef: { kind: 'Node', name: `node-${name}` } } }, { type: 'merge', subresource: 'status' });
    }
    await scale('rnd', 2);
    assert.deepEqual(await after('rnd', 2), three.slice(0, 2), 'Random: the Machine without a Node goes first');
    await scale('rnd', 1);
    assert.deepEqual(await after('rnd', 1), [three[1]], 'Random: then by name');
    const deletes = await settle('SuccessfulDelete events', async () => {
      const e = (await eventsAbout(admin, 'MachineSet', 'rnd')).filter((x) => x.startsWith('SuccessfulDelete'));
      return e.length === 2 ? e : undefined;
    });
    assert.deepEqual(deletes.sort(), [`SuccessfulDelete: Deleted machine "${three[0]}"`, `SuccessfulDelete: Deleted machine "${three[2]}"`].sort());
  });

  it('counts Machines whose Node is Ready, and available ones once minReadySeconds have passed', async () => {
    const MIN_READY = 600;
    await admin.create(MACHINE_SETS, machineSet('avail', { replicas: 2, minReadySeconds: MIN_READY }));
    const machines = await settle('2 machines', async () => {
      const ms = await machinesOf('avail');
      return ms.length === 2 ? ms : undefined;
    });
    const readySince = formatTimestamp(clock.wallNow());
    for (const [i, m] of machines.entries()) {
      const nodeName = `avail-node-${i}`;
      await admin.create<V1Node>(resources.nodes, { apiVersion: 'v1', kind: 'Node', metadata: { name: nodeName } });
      await admin.patch(resources.nodes, undefined, nodeName, { status: { conditions: [{ type: 'Ready', status: 'True', reason: 'KubeletReady', lastHeartbeatTime: readySince, lastTransitionTime: readySince }] } }, { type: 'merge', subresource: 'status' });
      await admin.patch(MACHINES, NS, m.metadata?.name ?? '', { status: { nodeRef: { kind: 'Node', name: nodeName } } }, { type: 'merge', subresource: 'status' });
    }
    const ready = await settle('2 ready', async () => {
      const s = await statusOf('avail');
      return s?.readyReplicas === 2 ? s : undefined;
    });
    assert.equal(ready.availableReplicas, 0, 'not before minReadySeconds');

    clock.advance(MIN_READY * 1000 + 1000);
    await settle('2 available', async () => (await statusOf('avail'))?.availableReplicas === 2);

    const nowTime = formatTimestamp(clock.wallNow());
    await admin.patch(resources.nodes, undefined, 'avail-node-0', { status: { conditions: [{ type: 'Ready', status: 'False', reason: 'KubeletNotReady', lastHeartbeatTime: nowTime, lastTransitionTime: nowTime }] } }, { type: 'merge', subresource: 'status' });
    const after = await settle('1 ready', async () => {
      const s = await statusOf('avail');
      return s?.readyReplicas === 1 ? s : undefined;
    });
    assert.equal(after.availableReplicas, 1);
    assert.equal(after.replicas, 2);
  });
});

