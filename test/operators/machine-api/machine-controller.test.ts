/**
 * The machine controller and its drain controller (issue 16, item 3) against a real API server
 * with RBAC enforced, running as a ServiceAccount that holds only the rules the machine README
 * lists, on a FakeClock, with a test provider (counters, instances the test changes) in place of
 * a cloud. No nodelink controller runs: a test links a Machine to its Node by writing
 * `status.nodeRef`. Covered: the finalizer and phases Provisioning → Provisioned → Running with
 * what the provider reports; a Machine failing validation (event, nothing else); an invalid
 * providerSpec going Failed once, the field in the message, and no provider call after; an
 * instance that vanished; deletion with the drain held by a PodDisruptionBudget (Drained=False
 * DrainError naming pod and budget, the Node cordoned, DaemonSet pod left) and then allowed,
 * the termination waited for, the Node deleted; lifecycle hooks holding the drain and the
 * termination; control-plane nodes one at a time (also two deleted together, with the drains
 * run by several workers), and an unreachable node's drain not waiting on its kubelet;
 * exclude-node-draining; a nodeRef to a Node already gone.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { V1DaemonSet, V1Node, V1OwnerReference, V1Pod, V1PodDisruptionBudget } from '@kubernetes/client-node';
import pino from 'pino';
import { machineAnnotations, machineFinalizer, machineLabels, type Machine } from '../../../src/api/machine/index.ts';
import { machinesRef } from '../../../src/operators/machine-api/machine/controller.ts';
import { machineControllers } from '../../../src/operators/machine-api/machine/controllers.ts';
import { MachineError } from '../../../src/operators/machine-api/providers/provider.ts';
import { ApiClient, isNotFound } from '../../../src/runtime/client.ts';
import { FakeClock } from '../../../src/runtime/clock.ts';
import type { ControllerContext } from '../../../src/runtime/context.ts';
import { createEventRecorder } from '../../../src/runtime/events.ts';
import { InformerFactory } from '../../../src/runtime/informer-factory.ts';
import { ClientConfig } from '../../../src/runtime/kubeconfig.ts';
import type { DeepReadonly } from '../../../src/runtime/readonly.ts';
import { resources } from '../../../src/runtime/resources.ts';
import { startTestServer, type TestServer } from '../../support/server.ts';
import { until } from '../../support/until.ts';
import { adminOf, eventsAbout, NS, prepare, type Rule } from '../machine-api-controllers-support.ts';
import { TestProvider } from './test-provider.ts';

/** What the machine README says the controller needs (besides its Lease and the Infrastructure it reads at start), and no more. */
const rules: Rule[] = [
  { apiGroups: ['machine.openshift.io'], resources: ['machines'], verbs: ['get', 'list', 'watch', 'patch'] },
  { apiGroups: ['machine.openshift.io'], resources: ['machines/status'], verbs: ['update'] },
  { apiGroups: [''], resources: ['nodes'], verbs: ['get', 'list', 'patch', 'delete'] },
  { apiGroups: [''], resources: ['pods'], verbs: ['get', 'list'] },
  { apiGroups: [''], resources: ['pods/eviction'], verbs: ['create'] },
  { apiGroups: ['apps'], resources: ['daemonsets'], verbs: ['get'] },
  { apiGroups: ['policy'], resources: ['poddisruptionbudgets'], verbs: ['list'] },
  { apiGroups: [''], resources: ['secrets'], verbs: ['get'] },
  { apiGroups: [''], resources: ['events'], verbs: ['create', 'patch'] },
];

const SLOW = { timeoutMs: 60_000 };
const CLUSTER = 'test-cluster';

function machine(name: string, o: { labels?: Record<string, string>; annotations?: Record<string, string>; hooks?: { preDrain?: object[]; preTerminate?: object[] } } = {}): Machine {
  return {
    apiVersion: 'machine.openshift.io/v1beta1',
    kind: 'Machine',
    metadata: { name, namespace: NS, labels: o.labels ?? { [machineLabels.cluster]: CLUSTER }, ...(o.annotations ? { annotations: o.annotations } : {}) },
    spec: { providerSpec: { value: { instanceType: 'test.large' } }, ...(o.hooks ? { lifecycleHooks: o.hooks } : {}) },
  } as Machine;
}

const condition = (m: DeepReadonly<Machine> | undefined, type: string) => m?.status?.conditions?.find((c) => c.type === type);

describe('machine controller (real API server, FakeClock, test provider)', { timeout: 180_000 }, () => {
  let ts: TestServer;
  let admin: ApiClient;
  let dir: string;
  const provider = new TestProvider();
  const clock = new FakeClock(0, { wall: Date.now() });
  const stop = new AbortController();
  let running: Promise<unknown> = Promise.resolve();
  let client: ApiClient | undefined;

  /** Waits with the clock moving on each look, so requeues and backoffs on the clock come due. */
  const settle = <T>(what: string, probe: () => Promise<T | undefined | false>, stepMs = 100) =>
    until(what, () => {
      clock.advance(stepMs);
      return probe();
    }, SLOW);

  const get = (name: string) => admin.getIfExists<Machine>(machinesRef, NS, name);
  const gone = (name: string) => get(name).then((m) => m === undefined);
  const nodeOf = (name: string) => admin.getIfExists<V1Node>(resources.nodes, undefined, name);
  const create = (m: Machine) => admin.create(machinesRef, m);
  const touch = (name: string, value: string) => admin.patch(machinesRef, NS, name, { metadata: { labels: { 'example.com/touched': value } } });
  const linkNode = async (name: string, node: string) => {
    const uid = (await nodeOf(node))?.metadata?.uid ?? 'gone-node-uid';
    await admin.patch(machinesRef, NS, name, { status: { nodeRef: { kind: 'Node', name: node, uid } } }, { subresource: 'status' });
  };
  const createNode = (name: string) => admin.create(resources.nodes, { apiVersion: 'v1', kind: 'Node', metadata: { name, labels: { 'node-role.kubernetes.io/worker': '' } } });
  const events = (name: string) => eventsAbout(admin, 'Machine', name);

  /** A Machine through to Running on `node`. */
  const running_ = async (m: Machine, node: string): Promise<void> => {
    await create(m);
    const name = m.metadata!.name!;
    await settle(`${name} Provisioned`, async () => (await get(name))?.status?.phase === 'Provisioned');
    await linkNode(name, node);
    await settle(`${name} Running`, async () => (await get(name))?.status?.phase === 'Running');
  };

  before(async () => {
    ts = await startTestServer({ controllers: true });
    admin = adminOf(ts);
    dir = mkdtempSync(join(tmpdir(), 'shipyard-machine-controller-'));
    const kubeconfig = await prepare(ts, admin, dir, 'machine-controller', rules);
    const config = new ClientConfig();
    config.loadFromFile(kubeconfig);
    client = new ApiClient(config, { userAgent: 'machine-controller-test' });
    const informers = new InformerFactory({ client, signal: stop.signal });
    const ctx: ControllerContext = {
      client,
      informers,
      recorder: createEventRecorder({ kubeConfig: config, component: 'machine-controller', signal: stop.signal, retryDelayMs: 100 }),
      logger: pino({ level: process.env.SHIPYARD_TEST_LOG ?? 'silent' }),
      clock,
    };
    // Several workers, as the component runs them: the control-plane rule must hold across them.
    const controllers = machineControllers(ctx, { provider, namespace: NS, requeueAfterMs: 30_000, drainRequeueAfterMs: 20_000, drainTimeoutMs: 20_000, workers: 4 });
    await informers.waitForSync();
    running = Promise.all(controllers.map((c) => c.run(stop.signal)));
  });
  after(async () => {
    stop.abort();
    await running.catch(() => {});
    client?.close();
    admin?.close();
    await ts?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('adds the finalizer, then Provisioning → Provisioned with what the provider reports → Running once linked', async () => {
    await createNode('worker-1');
    await create(machine('m-1'));
    const provisioned = await settle('m-1 Provisioned', async () => {
      const m = await get('m-1');
      return m?.status?.phase === 'Provisioned' && m;
    });
    assert.deepEqual(provisioned.metadata?.finalizers, [machineFinalizer]);
    assert.equal(provisioned.spec?.providerID, 'test:///m-1');
    assert.equal(provisioned.metadata?.labels?.[machineLabels.instanceType], 'test.large');
    assert.equal(provisioned.metadata?.labels?.[machineLabels.zone], 'test-a');
    assert.equal(provisioned.metadata?.annotations?.[machineAnnotations.instanceState], 'running');
    assert.deepEqual(provisioned.status?.addresses?.map((a) => a.type), ['InternalIP', 'Hostname']);
    assert.deepEqual(provisioned.status?.providerStatus, { instanceState: 'running' });
    assert.equal(condition(provisioned, 'InstanceExists')?.status, 'True');
    assert.equal(condition(provisioned, 'Drainable')?.status, 'True');
    assert.equal(condition(provisioned, 'Terminable')?.status, 'True');
    assert.ok(provisioned.status?.lastUpdated, 'lastUpdated set');
    assert.equal(provisioned.status?.errorMessage, undefined);

    await linkNode('m-1', 'worker-1');
    const runningM = await settle('m-1 Running', async () => {
      const m = await get('m-1');
      return m?.status?.phase === 'Running' && m;
    });
    assert.equal(runningM.status?.nodeRef?.name, 'worker-1');
    assert.equal(provider.calls('m-1').create, 1, 'created once: later passes find the instance');
    await until('Create event', async () => (await events('m-1')).includes('Create: Created Machine m-1'), SLOW);
  });

  it('a new Machine reaches Provisioned in four writes, each a step of its own, a steady one costs none, and its nodeRef makes it Running without a poll', async (t) => {
    const watching = new AbortController();
    t.after(() => watching.abort());
    const informer = new InformerFactory({ client: admin, signal: watching.signal }).informer<Machine>(machinesRef, { namespace: NS });
    await informer.waitForSync();
    // Every version of the Machine, as its watch delivers them, by what each write set.
    const versions: string[] = [];
    const note = (m: DeepReadonly<Machine>) => {
      if (m.metadata?.name !== 'm-writes') return;
      const exists = condition(m, 'InstanceExists');
      versions.push([m.metadata?.finalizers?.length ? 'finalizer' : '-', m.status?.phase ?? '-', m.spec?.providerID ? 'providerID' : '-', exists ? `InstanceExists=${exists.status}` : '-'].join(' '));
    };
    informer.on('add', note);
    informer.on('update', note);
    await create(machine('m-writes'));
    await settle('m-writes Provisioned', async () => (await get('m-writes'))?.status?.phase === 'Provisioned');
    // Polls come due and find nothing to change.
    for (let i = 0; i < 3; i++) {
      clock.advance(30_000);
      await new Promise((r) => setTimeout(r, 50));
    }
    await until('every version seen', async () => versions.at(-1)?.startsWith('finalizer Provisioned'), SLOW);
    assert.deepEqual(versions, [
      '- - - -',
      'finalizer - - -',
      'finalizer Provisioning - InstanceExists=False',
      'finalizer Provisioning providerID InstanceExists=False',
      'finalizer Provisioned providerID InstanceExists=True',
    ]);
    // Provisioned waits for its Node with a whole poll interval, but the nodeRef write brings it back at once: no clock moves here.
    await createNode('worker-w');
    await linkNode('m-writes', 'worker-w');
    await until('m-writes Running without a poll', async () => (await get('m-writes'))?.status?.phase === 'Running', SLOW);
  });

  it('an instance that vanished after provisioning: Failed, InstanceMissing, instance state Unknown', async () => {
    provider.instances.delete('m-1');
    await touch('m-1', 'vanished');
    // The status, then the instance-state annotation: wait for both writes.
    const failed = await settle('m-1 Failed', async () => {
      const m = await get('m-1');
      return m?.status?.phase === 'Failed' && m.metadata?.annotations?.[machineAnnotations.instanceState] === 'Unknown' && m;
    });
    assert.equal(failed.status?.errorMessage, "can't find created instance");
    assert.equal(failed.status?.errorReason, undefined);
    assert.deepEqual(
      { status: condition(failed, 'InstanceExists')?.status, reason: condition(failed, 'InstanceExists')?.reason, severity: condition(failed, 'InstanceExists')?.severity },
      { status: 'False', reason: 'InstanceMissing', severity: 'Warning' },
    );
    assert.equal(failed.metadata?.annotations?.[machineAnnotations.instanceState], 'Unknown');
    assert.deepEqual(failed.status?.providerStatus, { instanceState: 'Unknown' });
  });

  it('an invalid providerSpec: Failed once with the field in the message, and no provider call after', async () => {
    const message = 'spec.providerSpec.value.instanceType: Unsupported value: "x.huge": supported values: "s.small", "s.large"';
    provider.failures.set('m-bad', { create: new MachineError('InvalidConfiguration', message, { field: 'spec.providerSpec.value.instanceType' }) });
    await create(machine('m-bad'));
    // The status, then the instance-state annotation: wait for both writes.
    const failed = await settle('m-bad Failed', async () => {
      const m = await get('m-bad');
      return m?.status?.phase === 'Failed' && m.metadata?.annotations?.[machineAnnotations.instanceState] === 'Unknown' && m;
    });
    assert.equal(failed.status?.errorReason, 'InvalidConfiguration');
    assert.equal(failed.status?.errorMessage, message);
    assert.equal(condition(failed, 'InstanceExists')?.reason, 'InstanceNotCreated');
    assert.equal(failed.metadata?.annotations?.[machineAnnotations.instanceState], 'Unknown');
    assert.equal(provider.calls('m-bad').create, 1);
    const calls = provider.total('m-bad');
    const lastUpdated = failed.status?.lastUpdated;
    // Time passes and the Machine is edited: a Failed Machine is not retried.
    await touch('m-bad', 'edited');
    for (let i = 0; i < 20; i++) {
      clock.advance(60_000);
      await new Promise((r) => setTimeout(r, 10));
    }
    await until('the edit seen', async () => (await get('m-bad'))?.metadata?.labels?.['example.com/touched'] === 'edited');
    assert.equal(provider.total('m-bad'), calls, 'no provider call after Failed');
    assert.equal((await get('m-bad'))?.status?.lastUpdated, lastUpdated);
    const reasons = await until('FailedCreate event', async () => {
      const e = await events('m-bad');
      return e.some((x) => x.startsWith('FailedCreate:')) && e;
    }, SLOW);
    assert.equal(reasons.filter((x) => x.startsWith('FailedCreate:')).length, 1);
    assert.ok(reasons.includes(`FailedCreate: m-bad: reconciler failed to Create machine: ${message}`), reasons.join('\n'));
  });

  it('a Machine failing validation gets a FailedValidate event and nothing else', async () => {
    await create(machine('m-noval', { labels: {} }));
    await until('FailedValidate event', async () =>
      (await events('m-noval')).includes('FailedValidate: m-noval: machine validation failed: spec.labels: Invalid value: {}: missing machine.openshift.io/cluster-api-cluster label.'), SLOW);
    const m = await get('m-noval');
    assert.equal(m?.metadata?.finalizers, undefined);
    assert.equal(m?.status, undefined);
    assert.equal(provider.total('m-noval'), 0);
  });

  it('deletion: the drain held by a PodDisruptionBudget, then allowed; DaemonSet pods left; termination waited for; the Node deleted', async (t) => {
    await createNode('worker-d');
    await running_(machine('m-drain'), 'worker-d');
    const ds = await admin.create<V1DaemonSet>(resources.daemonSets, {
      apiVersion: 'apps/v1',
      kind: 'DaemonSet',
      metadata: { name: 'agent', namespace: 'default' },
      spec: { selector: { matchLabels: { app: 'agent' } }, template: { metadata: { labels: { app: 'agent' } }, spec: { containers: [{ name: 'c', image: 'agent' }] } } },
    });
    const pod = (name: string, labels: Record<string, string>, owner?: V1OwnerReference): V1Pod => ({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name, namespace: 'default', labels, ...(owner ? { ownerReferences: [owner] } : {}) },
      spec: { nodeName: 'worker-d', terminationGracePeriodSeconds: 0, containers: [{ name: 'c', image: 'web' }] },
    });
    await admin.create(resources.pods, pod('web', { app: 'web' }));
    // A budget protects only running pods: a Pending one may always be evicted, as in Kubernetes.
    await admin.patch(resources.pods, 'default', 'web', { status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }] } }, { subresource: 'status' });
    await admin.create(resources.pods, pod('agent-x', { app: 'agent' }, { apiVersion: 'apps/v1', kind: 'DaemonSet', name: 'agent', uid: ds.metadata?.uid ?? '', controller: true }));
    await admin.create(resources.podDisruptionBudgets, { apiVersion: 'policy/v1', kind: 'PodDisruptionBudget', metadata: { name: 'web-pdb', namespace: 'default' }, spec: { minAvailable: 1, selector: { matchLabels: { app: 'web' } } } });
    await until('the budget counted', async () => {
      const s = (await admin.get<V1PodDisruptionBudget>(resources.podDisruptionBudgets, 'default', 'web-pdb')).status;
      return s?.currentHealthy === 1 && s.disruptionsAllowed === 0;
    }, SLOW);
    provider.slowTermination = true;
    t.after(() => {
      provider.slowTermination = false;
    });

    await admin.delete(machinesRef, NS, 'm-drain');
    const blocked = await settle('Drained=False', async () => {
      const m = await get('m-drain');
      return condition(m, 'Drained')?.status === 'False' && m;
    }, 1000);
    assert.equal(blocked.status?.phase, 'Deleting');
    const drained = condition(blocked, 'Drained')!;
    assert.equal(drained.reason, 'DrainError');
    assert.equal(drained.severity, 'Warning');
    assert.match(drained.message ?? '', /^could not drain machine: failed to drain node worker-d: Cannot evict pod default\/web: would violate PodDisruptionBudget default\/web-pdb$/);
    assert.equal((await nodeOf('worker-d'))?.spec?.unschedulable, true, 'cordoned');
    assert.equal(provider.calls('m-drain').delete, 0, 'nothing terminated while the drain is held');
    const seen = await until('drain events', async () => {
      const e = await events('m-drain');
      return e.some((x) => x.startsWith('FailedDrain:')) && e;
    }, SLOW);
    assert.ok(seen.includes('DrainProceeds: Node drain proceeds'), seen.join('\n'));

    await admin.delete(resources.podDisruptionBudgets, 'default', 'web-pdb');
    const done = await settle('Drained=True', async () => {
      const m = await get('m-drain');
      return condition(m, 'Drained')?.status === 'True' && m;
    }, 1000);
    assert.equal(condition(done, 'Drained')?.message, 'Drain finished successfully');
    await until('web evicted', async () => (await admin.get(resources.pods, 'default', 'web').then(() => false, (e: unknown) => isNotFound(e))), SLOW);
    assert.ok(await admin.get(resources.pods, 'default', 'agent-x'), 'the DaemonSet pod is left');
    await settle('termination requested', async () => provider.calls('m-drain').delete > 0);
    // The instance is still terminating: the Machine keeps its finalizer and the Node stays.
    for (let i = 0; i < 5; i++) {
      clock.advance(30_000);
      await new Promise((r) => setTimeout(r, 20));
    }
    assert.ok(await get('m-drain'), 'held while the instance terminates');
    assert.ok(await nodeOf('worker-d'), 'the Node stays until the instance is gone');
    provider.finishTermination('m-drain');
    await settle('m-drain gone', () => gone('m-drain'), 5000);
    assert.equal(await nodeOf('worker-d'), undefined, 'the Node is deleted');
    // Sent through the recorder's queue, apart from the status writes waited for above.
    await until('the Drained event', async () => (await events('m-drain')).includes('Drained: Node "worker-d" drained'), SLOW);
  });

  it('lifecycle hooks: preDrain holds the drain, preTerminate the termination, each until removed', async () => {
    await createNode('worker-h');
    const hooks = { preDrain: [{ name: 'Backup', owner: 'backup-operator' }], preTerminate: [{ name: 'Detach', owner: 'storage-operator' }] };
    await running_(machine('m-hooks', { hooks }), 'worker-h');
    const before_ = (await get('m-hooks'))!;
    assert.deepEqual([condition(before_, 'Drainable')?.status, condition(before_, 'Drainable')?.reason], ['False', 'HookPresent']);
    assert.equal(condition(before_, 'Drainable')?.message, 'Drain operation currently blocked by: [{Name:Backup Owner:backup-operator}]');
    assert.deepEqual([condition(before_, 'Terminable')?.status, condition(before_, 'Terminable')?.reason], ['False', 'HookPresent']);

    await admin.delete(machinesRef, NS, 'm-hooks');
    await settle('DrainBlocked event', async () => (await events('m-hooks')).includes('DrainBlocked: Drain blocked by pre-drain hook'));
    for (let i = 0; i < 5; i++) {
      clock.advance(30_000);
      await new Promise((r) => setTimeout(r, 20));
    }
    assert.equal(condition(await get('m-hooks'), 'Drained'), undefined);
    assert.notEqual((await nodeOf('worker-h'))?.spec?.unschedulable, true, 'not cordoned while the hook holds');

    await admin.patch(machinesRef, NS, 'm-hooks', { spec: { lifecycleHooks: { preDrain: null } } });
    await settle('Drained=True', async () => condition(await get('m-hooks'), 'Drained')?.status === 'True');
    assert.equal((await nodeOf('worker-h'))?.spec?.unschedulable, true, 'cordoned and drained');
    for (let i = 0; i < 5; i++) {
      clock.advance(30_000);
      await new Promise((r) => setTimeout(r, 20));
    }
    assert.equal(provider.calls('m-hooks').delete, 0, 'preTerminate holds the termination');
    assert.equal(condition(await get('m-hooks'), 'Drainable')?.status, 'True');

    await admin.patch(machinesRef, NS, 'm-hooks', { spec: { lifecycleHooks: { preTerminate: null } } });
    await settle('m-hooks gone', () => gone('m-hooks'));
    assert.ok(provider.calls('m-hooks').delete >= 1, 'terminated once the hook was removed');
    assert.equal(await nodeOf('worker-h'), undefined);
  });

  it('control-plane nodes are drained one at a time; an unreachable node is drained without waiting on its kubelet', async () => {
    for (const name of ['cp-1', 'cp-2']) {
      await admin.create(resources.nodes, { apiVersion: 'v1', kind: 'Node', metadata: { name, labels: { 'node-role.kubernetes.io/master': '' } } });
      await running_(machine(`m-${name}`), name);
    }
    // cp-2 is being drained by someone (a machine-config update, say).
    await admin.patch(resources.nodes, undefined, 'cp-2', { spec: { unschedulable: true } });
    await admin.delete(machinesRef, NS, 'm-cp-1');
    const held = await settle('m-cp-1 Drained=False', async () => {
      const m = await get('m-cp-1');
      return condition(m, 'Drained')?.status === 'False' && m;
    }, 1000);
    assert.equal(condition(held, 'Drained')?.message, 'could not drain machine: control plane node cp-2 is already cordoned; control plane nodes are drained one at a time');
    assert.notEqual((await nodeOf('cp-1'))?.spec?.unschedulable, true, 'cp-1 not cordoned while cp-2 is');
    // cp-1's kubelet stops answering, with a pod on it that only a kubelet would finish deleting.
    await admin.patch(resources.nodes, undefined, 'cp-1', { status: { conditions: [{ type: 'Ready', status: 'Unknown', reason: 'NodeStatusUnknown' }] } }, { subresource: 'status' });
    await admin.create(resources.pods, { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'etcd-guard', namespace: 'default', labels: { app: 'guard' } }, spec: { nodeName: 'cp-1', containers: [{ name: 'c', image: 'g' }] } });
    await admin.patch(resources.pods, 'default', 'etcd-guard', { status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }] } }, { subresource: 'status' });
    await admin.patch(resources.nodes, undefined, 'cp-2', { spec: { unschedulable: null } });
    await settle('m-cp-1 gone', () => gone('m-cp-1'), 1000);
    assert.equal(await nodeOf('cp-1'), undefined);
    const guard = await admin.get<V1Pod>(resources.pods, 'default', 'etcd-guard').catch(() => undefined);
    assert.ok(!guard || guard.metadata?.deletionTimestamp, 'the pod was evicted (its deletion left to a kubelet that is not there)');
    if (guard) assert.equal(guard.metadata?.deletionGracePeriodSeconds, 1, 'with a 1 s grace period');
  });

  it('two control-plane Machines deleted together: one drained, the other held until its Node is gone; never both cordoned', async (t) => {
    const cps = ['cp-3', 'cp-4'];
    for (const name of cps) {
      await admin.create(resources.nodes, { apiVersion: 'v1', kind: 'Node', metadata: { name, labels: { 'node-role.kubernetes.io/control-plane': '' } } });
      await running_(machine(`m-${name}`), name);
    }
    // Every state of the two Nodes, as a watch delivers it: a moment with both cordoned would show.
    const watching = new AbortController();
    const nodes = new InformerFactory({ client: admin, signal: watching.signal }).informer<V1Node>(resources.nodes);
    let bothCordoned = false;
    const look = () => {
      if (cps.every((n) => nodes.store.get(n)?.spec?.unschedulable)) bothCordoned = true;
    };
    nodes.on('add', look);
    nodes.on('update', look);
    provider.slowTermination = true;
    t.after(() => {
      provider.slowTermination = false;
      watching.abort();
    });
    await until('the Nodes watched', async () => cps.every((n) => nodes.store.get(n)), SLOW);

    await Promise.all(cps.map((n) => admin.delete(machinesRef, NS, `m-${n}`)));
    const [first, second] = await settle('one drained, the other held', async () => {
      const ms = await Promise.all(cps.map((n) => get(`m-${n}`)));
      const drained = ms.find((m) => condition(m, 'Drained')?.status === 'True');
      const held = ms.find((m) => condition(m, 'Drained')?.status === 'False');
      return drained && held && ([drained, held] as const);
    }, 1000);
    const firstNode = first.status?.nodeRef?.name ?? '';
    assert.equal(condition(second, 'Drained')?.message, `could not drain machine: control plane node ${firstNode} is already cordoned; control plane nodes are drained one at a time`);
    assert.notEqual((await nodeOf(second.status?.nodeRef?.name ?? ''))?.spec?.unschedulable, true, 'the held one is not cordoned');

    await settle('the first one terminating', async () => provider.calls(first.metadata!.name!).delete > 0);
    provider.finishTermination(first.metadata!.name!);
    await settle(`${first.metadata!.name} gone`, () => gone(first.metadata!.name!), 1000);
    await settle('the second one terminating', async () => provider.calls(second.metadata!.name!).delete > 0, 1000);
    provider.finishTermination(second.metadata!.name!);
    await settle(`${second.metadata!.name} gone`, () => gone(second.metadata!.name!), 1000);
    assert.deepEqual(await Promise.all(cps.map(nodeOf)), [undefined, undefined], 'both Nodes deleted');
    assert.equal(bothCordoned, false, 'the two control-plane Nodes were never cordoned at once');
  });

  it('exclude-node-draining skips the drain (a budget would block it); a nodeRef to a Node already gone is fine', async () => {
    await createNode('worker-x');
    await running_(machine('m-excl', { annotations: { [machineAnnotations.excludeNodeDraining]: '' } }), 'worker-x');
    await admin.create(resources.pods, { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'stuck', namespace: 'default', labels: { app: 'stuck' } }, spec: { nodeName: 'worker-x', containers: [{ name: 'c', image: 'x' }] } });
    await admin.create(resources.podDisruptionBudgets, { apiVersion: 'policy/v1', kind: 'PodDisruptionBudget', metadata: { name: 'stuck-pdb', namespace: 'default' }, spec: { minAvailable: 1, selector: { matchLabels: { app: 'stuck' } } } });
    await admin.delete(machinesRef, NS, 'm-excl');
    await settle('m-excl gone', () => gone('m-excl'));
    assert.equal(await nodeOf('worker-x'), undefined, 'the Node is deleted');
    const e = await until('DrainSkipped event', async () => {
      const list = await events('m-excl');
      return list.includes('DrainSkipped: Node drain skipped') && list;
    }, SLOW);
    assert.ok(!e.some((x) => x.startsWith('DrainProceeds')), e.join('\n'));

    await running_(machine('m-ghost'), 'ghost-node');
    await admin.delete(machinesRef, NS, 'm-ghost');
    await settle('m-ghost gone', () => gone('m-ghost'));
    assert.ok(provider.calls('m-ghost').delete >= 1);
  });
});
