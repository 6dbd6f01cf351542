/**
 * The MachineHealthCheck controller (issue 16, item 6) against a real API server with RBAC
 * enforced, running as a ServiceAccount that holds only the rules listed below (the ones its
 * report names for the payload's role), on a FakeClock: every timeout runs out only when the
 * test moves the clock, and the controller's own requeue is what notices. No machine, MachineSet
 * or nodelink controller runs: Machines, their status and Nodes are written as those would.
 * Covered: a Node unhealthy past its timeout (status, DetectedUnhealthy, deletion at the
 * requeue, MachineDeleted); maxUnhealthy 0 (TooManyUnhealthy, RemediationRestricted, nothing
 * deleted) then raised; the pause annotation; skip-remediation and a Machine without a
 * MachineSet; a nodeRef to a Node that does not exist; a Failed InvalidConfiguration Machine
 * kept while its MachineSet would recreate it as it is, deleted once the template is fixed; the
 * node startup timeout from the instance's existence, and "0"; the v1alpha1 form as the Machine
 * API Operator's README writes it (in `default`), with ConfigMap node-unhealthy-conditions
 * verbatim, then unreadable.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { CoreV1Event, V1ConfigMap, V1Node } from '@kubernetes/client-node';
import { machineAnnotations, machineConditionTypes, type LegacyMachineHealthCheck, type Machine, type MachineHealthCheck, type MachineSet } from '../../src/api/machine/index.ts';
import { formatTimestamp } from '../../src/api/time.ts';
import { createMachineHealthCheckController, HEALTH_CHECKS, LEGACY_HEALTH_CHECKS, MACHINES, MACHINE_SETS } from '../../src/operators/machine-api/healthcheck/controller.ts';
import { isAlreadyExists, isNotFound, type ApiClient } from '../../src/runtime/client.ts';
import { FakeClock } from '../../src/runtime/clock.ts';
import { resources } from '../../src/runtime/resources.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { until } from '../support/until.ts';
import { adminOf, eventsAbout, NS, prepare, runController, type Rule, type RunningController } from './machine-api-controllers-support.ts';

/** The API access the controller needs (besides its Lease), and no more. */
const rules: Rule[] = [
  { apiGroups: ['machine.openshift.io'], resources: ['machinehealthchecks'], verbs: ['get', 'list', 'watch'] },
  { apiGroups: ['machine.openshift.io'], resources: ['machinehealthchecks/status'], verbs: ['update'] },
  { apiGroups: ['healthchecking.openshift.io'], resources: ['machinehealthchecks'], verbs: ['list', 'watch'] },
  { apiGroups: ['machine.openshift.io'], resources: ['machines'], verbs: ['list', 'watch', 'delete'] },
  { apiGroups: ['machine.openshift.io'], resources: ['machinesets'], verbs: ['list', 'watch'] },
  { apiGroups: [''], resources: ['nodes'], verbs: ['get', 'list', 'watch'] },
  { apiGroups: [''], resources: ['configmaps'], verbs: ['list', 'watch'] },
  { apiGroups: ['', 'events.k8s.io'], resources: ['events'], verbs: ['create', 'patch'] },
];

const SLOW = { timeoutMs: 30_000 };
const MIN = 60_000;
const LABEL = 'healthcheck-test';
const providerSpec = { value: { instanceType: 's.large', zone: 'a' } };
/** ConfigMap node-unhealthy-conditions' data exactly as the Machine API Operator's README shows it. */
const SEED_CONDITIONS = 'items:\n- name: NetworkUnavailable\n  timeout: 5m\n  status: True\n';

describe('MachineHealthCheck controller (real API server, FakeClock)', { timeout: 180_000 }, () => {
  let ts: TestServer;
  let admin: ApiClient;
  let dir: string;
  let controller: RunningController;
  // Wall time an hour ahead of the server's, so every creation time is in the clock's past and
  // a time written "2 minutes ago" on the clock is later than the object's creation.
  const clock = new FakeClock(0, { wall: Date.now() + 60 * MIN });
  const ago = (ms: number) => formatTimestamp(clock.wallNow() - ms);

  const wait = <T>(what: string, probe: () => Promise<T | undefined | false>) => until(what, probe, SLOW);
  const exists = (name: string) =>
    admin.get<Machine>(MACHINES, NS, name).then(
      () => true,
      (err: unknown) => {
        if (isNotFound(err)) return false;
        throw err;
      },
    );
  const gone = (name: string) => wait(`Machine ${name} deleted`, async () => !(await exists(name)));
  const eventWith = (kind: string, name: string, prefix: string) => wait(`${prefix} about ${kind} ${name}`, async () => (await eventsAbout(admin, kind, name)).find((e) => e.startsWith(prefix)));
  const statusOf = async (name: string) => (await admin.get<MachineHealthCheck>(HEALTH_CHECKS, NS, name)).status;

  async function machineSet(group: string, spec = providerSpec): Promise<MachineSet> {
    const labels = { [LABEL]: group };
    return admin.create<MachineSet>(MACHINE_SETS, {
      apiVersion: 'machine.openshift.io/v1beta1',
      kind: 'MachineSet',
      metadata: { name: group, namespace: NS },
      spec: { replicas: 1, selector: { matchLabels: labels }, template: { metadata: { labels }, spec: { providerSpec: spec } } },
    });
  }

  /** A Machine of `group` and the status the machine and nodelink controllers would have written; `node` is linked if given. */
  async function machine(
    name: string,
    group: string,
    o: { set?: MachineSet | null; node?: string; provisionedAgoMs?: number; phase?: string; errorReason?: string; errorMessage?: string; annotations?: Record<string, string> } = {},
  ): Promise<void> {
    const set = o.set ?? null;
    const created = await admin.create<Machine>(MACHINES, {
      apiVersion: 'machine.openshift.io/v1beta1',
      kind: 'Machine',
      metadata: {
        name,
        namespace: NS,
        labels: { [LABEL]: group },
        ...(o.annotations ? { annotations: o.annotations } : {}),
        ...(set ? { ownerReferences: [{ apiVersion: 'machine.openshift.io/v1beta1', kind: 'MachineSet', name: set.metadata!.name!, uid: set.metadata!.uid!, controller: true }] } : {}),
      },
      spec: { providerSpec: set?.spec.template?.spec?.providerSpec ?? providerSpec },
    });
    const provisioned = ago(o.provisionedAgoMs ?? 0);
    await admin.updateStatus(MACHINES, {
      ...created,
      status: {
        phase: (o.phase ?? (o.node ? 'Running' : 'Provisioned')) as never,
        ...(o.errorReason ? { errorReason: o.errorReason, errorMessage: o.errorMessage } : {}),
        ...(o.node ? { nodeRef: { kind: 'Node', name: o.node, uid: `uid-${o.node}` } } : {}),
        lastUpdated: formatTimestamp(clock.wallNow()),
        conditions: o.phase === 'Failed' ? [] : [{ type: machineConditionTypes.instanceExists, status: 'True', lastTransitionTime: provisioned }],
      },
    });
  }

  /** A Node whose conditions have had their status for the time given. */
  async function node(name: string, conditions: Record<string, [status: string, sinceAgoMs: number]>): Promise<void> {
    await admin.create<V1Node>(resources.nodes, { apiVersion: 'v1', kind: 'Node', metadata: { name } });
    const list = Object.entries(conditions).map(([type, [status, agoMs]]) => ({ type, status, lastHeartbeatTime: ago(0), lastTransitionTime: ago(agoMs) }));
    await admin.patch(resources.nodes, undefined, name, { status: { conditions: list } }, { type: 'merge', subresource: 'status' });
  }

  const check = (name: string, spec: MachineHealthCheck['spec'], annotations?: Record<string, string>) =>
    admin.create<MachineHealthCheck>(HEALTH_CHECKS, {
      apiVersion: 'machine.openshift.io/v1beta1',
      kind: 'MachineHealthCheck',
      metadata: { name, namespace: NS, ...(annotations ? { annotations } : {}) },
      spec: { selector: { matchLabels: { [LABEL]: name } }, ...spec },
    });

  before(async () => {
    ts = await startTestServer();
    admin = adminOf(ts);
    dir = mkdtempSync(join(tmpdir(), 'shipyard-healthcheck-'));
    const kubeconfig = await prepare(ts, admin, dir, 'machine-healthcheck', rules);
    for (const ref of [HEALTH_CHECKS, LEGACY_HEALTH_CHECKS]) {
      await until(`${ref.group} ${ref.resource} served`, () => admin.list(ref, NS).then(() => true), { retryErrors: true, timeoutMs: 30_000 });
    }
    await admin.create(resources.namespaces, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'default' } }).catch((err: unknown) => {
      if (!isAlreadyExists(err)) throw err;
    });
    controller = await runController(kubeconfig, clock, (ctx) => createMachineHealthCheckController(ctx, { namespace: NS }));
  });
  after(async () => {
    await controller?.stop();
    admin?.close();
    await ts?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('a Node unhealthy for its timeout: counted, DetectedUnhealthy, and deleted when the clock reaches the timeout', async () => {
    const set = await machineSet('unready');
    await node('unready-ok', { Ready: ['True', 60 * MIN] });
    await node('unready-bad', { Ready: ['Unknown', 0] });
    await machine('unready-1', 'unready', { set, node: 'unready-ok', provisionedAgoMs: 60 * MIN });
    await machine('unready-2', 'unready', { set, node: 'unready-bad', provisionedAgoMs: 60 * MIN });
    await check('unready', { unhealthyConditions: [{ type: 'Ready', status: 'Unknown', timeout: '300s' }] });

    const status = await wait('status of 2 Machines, 1 healthy', async () => {
      const s = await statusOf('unready');
      return s?.expectedMachines === 2 ? s : undefined;
    });
    assert.equal(status.currentHealthy, 1);
    assert.equal(status.remediationsAllowed, 1, '100% of 2, less the 1 not healthy');
    assert.deepEqual(
      status.conditions?.map((c) => [c.type, c.status, c.reason]),
      [['RemediationAllowed', 'True', undefined]],
    );
    assert.equal(
      await eventWith('Machine', 'unready-2', 'DetectedUnhealthy'),
      `DetectedUnhealthy: Machine ${NS}/unready/unready-2/unready-bad has unhealthy node unready-bad: Ready=Unknown, remediated once it has been so for 5m0s`,
    );
    assert.ok(await exists('unready-2'), 'not before the timeout');

    clock.advance(5 * MIN);
    await gone('unready-2');
    assert.equal(await eventWith('Machine', 'unready-2', 'MachineDeleted'), `MachineDeleted: Machine ${NS}/unready/unready-2/unready-bad has been remediated by requesting to delete Machine object`);
    assert.ok(await exists('unready-1'));
  });

  it('maxUnhealthy 0: nothing is remediated and the check says why; raised to 1, the Machine goes', async () => {
    const set = await machineSet('zero');
    await node('zero-bad', { Ready: ['False', 60 * MIN] });
    await machine('zero-1', 'zero', { set, node: 'zero-bad', provisionedAgoMs: 120 * MIN });
    await check('zero', { maxUnhealthy: 0 });

    const restricted = await eventWith('MachineHealthCheck', 'zero', 'RemediationRestricted');
    assert.equal(restricted, 'RemediationRestricted: Remediation restricted due to exceeded number of unhealthy machines (total: 1, unhealthy: 1, maxUnhealthy: 0)');
    const status = await statusOf('zero');
    assert.equal(status?.expectedMachines, 1);
    assert.equal(status?.currentHealthy, 0);
    assert.equal(status?.remediationsAllowed, 0);
    const condition = status?.conditions?.find((c) => c.type === 'RemediationAllowed');
    assert.deepEqual({ status: condition?.status, severity: condition?.severity, reason: condition?.reason, message: condition?.message }, {
      status: 'False',
      severity: 'Warning',
      reason: 'TooManyUnhealthy',
      message: 'Remediation is not allowed, the number of not started or unhealthy machines exceeds maxUnhealthy (total: 1, unhealthy: 1, maxUnhealthy: 0)',
    });
    assert.ok(await exists('zero-1'));

    await admin.patch(HEALTH_CHECKS, NS, 'zero', { spec: { maxUnhealthy: 1 } });
    await gone('zero-1');
    await wait('RemediationAllowed True again', async () => (await statusOf('zero'))?.conditions?.find((c) => c.type === 'RemediationAllowed')?.status === 'True');
  });

  it('paused (cluster.x-k8s.io/paused): the check does nothing until the annotation goes', async () => {
    const set = await machineSet('paused');
    await node('paused-bad', { Ready: ['False', 60 * MIN] });
    await machine('paused-1', 'paused', { set, node: 'paused-bad', provisionedAgoMs: 120 * MIN });
    await check('paused', {}, { [machineAnnotations.paused]: '' });
    // One worker takes keys in order: once a check created after it has a status, the paused one has had its turn.
    await check('paused-probe', {});
    await wait('the later check\'s status', async () => (await statusOf('paused-probe'))?.expectedMachines === 0);
    assert.equal(await statusOf('paused'), undefined);
    assert.ok(await exists('paused-1'));

    await admin.patch(HEALTH_CHECKS, NS, 'paused', { metadata: { annotations: { [machineAnnotations.paused]: null } } });
    await gone('paused-1');
  });

  it('skip-remediation, and a Machine no MachineSet controls: left alone, and events say why', async () => {
    const set = await machineSet('skip');
    await node('skip-a', { Ready: ['False', 60 * MIN] });
    await node('skip-b', { Ready: ['False', 60 * MIN] });
    await machine('skip-annotated', 'skip', { set, node: 'skip-a', provisionedAgoMs: 120 * MIN, annotations: { [machineAnnotations.skipRemediation]: '' } });
    await machine('skip-orphan', 'skip', { node: 'skip-b', provisionedAgoMs: 120 * MIN });
    await check('skip', {});

    assert.equal(
      await eventWith('Machine', 'skip-annotated', 'RemediationSkipped'),
      `RemediationSkipped: Machine ${NS}/skip/skip-annotated/skip-a is unhealthy (Node skip-a has had Ready=False for longer than 5m0s) but has annotation machine.openshift.io/skip-remediation, skipping remediation`,
    );
    assert.equal(await eventWith('Machine', 'skip-orphan', 'SkippedNoController'), `SkippedNoController: Machine ${NS}/skip/skip-orphan/skip-b has no controller owner, skipping remediation`);
    assert.ok(await exists('skip-annotated'));
    assert.ok(await exists('skip-orphan'));
    const status = await statusOf('skip');
    assert.deepEqual([status?.expectedMachines, status?.currentHealthy], [2, 0]);
  });

  it('a nodeRef naming a Node that does not exist: deleted at once (the server asked first)', async () => {
    const set = await machineSet('nonode');
    await machine('nonode-1', 'nonode', { set, node: 'nonode-missing', provisionedAgoMs: 60 * MIN });
    await check('nonode', {});
    await gone('nonode-1');
    assert.equal(await eventWith('Machine', 'nonode-1', 'MachineDeleted'), `MachineDeleted: Machine ${NS}/nonode/nonode-1/nonode-missing has been remediated by requesting to delete Machine object`);
  });

  it('Failed with InvalidConfiguration: kept while its MachineSet would recreate it as it is; deleted once the template is fixed', async () => {
    const set = await machineSet('invalid', { value: { instanceType: 's.huge', zone: 'a' } });
    const message = 'spec.providerSpec.value.instanceType: Unsupported value: "s.huge"';
    await machine('invalid-1', 'invalid', { set, phase: 'Failed', errorReason: 'InvalidConfiguration', errorMessage: message });
    await check('invalid', {});

    const skipped = await eventWith('Machine', 'invalid-1', 'RemediationSkipped');
    assert.match(skipped, /failed with InvalidConfiguration \(spec\.providerSpec\.value\.instanceType: Unsupported value: "s\.huge"\) and MachineSet invalid would replace it from the same providerSpec/);
    assert.ok(await exists('invalid-1'));

    await admin.patch(MACHINE_SETS, NS, 'invalid', { spec: { template: { spec: { providerSpec: { value: { instanceType: 's.large' } } } } } });
    await gone('invalid-1');
    assert.match(await eventWith('Machine', 'invalid-1', 'MachineDeleted'), /has been remediated/);
  });

  it('node startup: no Node nodeStartupTimeout after the instance came to exist is unhealthy; "0" waits for ever', async () => {
    const set = await machineSet('startup');
    const setOff = await machineSet('startup-off');
    // Created now, the instance found 2 minutes "ago" on the clock: 8 minutes left of 10.
    await machine('startup-1', 'startup', { set, provisionedAgoMs: 2 * MIN });
    await machine('startup-off-1', 'startup-off', { set: setOff, provisionedAgoMs: 2 * MIN });
    await check('startup', { nodeStartupTimeout: '10m' });
    await check('startup-off', { nodeStartupTimeout: '0' });
    for (const name of ['startup', 'startup-off']) {
      await wait(`${name}: 1 expected, none healthy`, async () => {
        const s = await statusOf(name);
        return s?.expectedMachines === 1 && s.currentHealthy === 0;
      });
    }
    assert.ok(await exists('startup-1'));

    clock.advance(8 * MIN);
    await gone('startup-1');
    // A second Machine, with a Node, makes startup-off look again after the clock moved: its first is still there.
    await node('startup-off-ok', { Ready: ['True', 0] });
    await machine('startup-off-2', 'startup-off', { set: setOff, node: 'startup-off-ok' });
    await wait('startup-off sees 2', async () => (await statusOf('startup-off'))?.expectedMachines === 2);
    assert.ok(await exists('startup-off-1'));
  });

  it('v1alpha1 as the README writes it (in default): Ready not True for 5 minutes plus the ConfigMap\'s conditions; an unreadable ConfigMap is reported and Ready still applies', async () => {
    await admin.create<V1ConfigMap>(resources.configMaps, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'node-unhealthy-conditions', namespace: NS }, data: { conditions: SEED_CONDITIONS } });
    const set = await machineSet('legacy');
    await node('legacy-net', { Ready: ['True', 60 * MIN], NetworkUnavailable: ['True', 0] });
    await node('legacy-ready', { Ready: ['False', 0] });
    await machine('legacy-net', 'legacy', { set, node: 'legacy-net', provisionedAgoMs: 120 * MIN });
    await machine('legacy-ready', 'legacy', { set, node: 'legacy-ready', provisionedAgoMs: 120 * MIN });
    const legacy: LegacyMachineHealthCheck = {
      apiVersion: 'healthchecking.openshift.io/v1alpha1',
      kind: 'MachineHealthCheck',
      metadata: { name: 'example', namespace: 'default' },
      spec: { selector: { matchLabels: { [LABEL]: 'legacy' } } },
    };
    await admin.create(LEGACY_HEALTH_CHECKS, legacy);
    assert.match(await eventWith('Machine', 'legacy-net', 'DetectedUnhealthy'), /NetworkUnavailable=True, remediated once it has been so for 5m0s$/);
    assert.match(await eventWith('Machine', 'legacy-ready', 'DetectedUnhealthy'), /Ready=False, remediated once it has been so for 5m0s$/);

    clock.advance(5 * MIN);
    await gone('legacy-net');
    await gone('legacy-ready');

    await admin.patch(resources.configMaps, NS, 'node-unhealthy-conditions', { data: { conditions: 'items: [\n' } });
    const invalid = await wait('InvalidUnhealthyConditions on the check', async () => {
      const list = await admin.list<CoreV1Event>(resources.events, 'default');
      return list.items.find((e) => e.involvedObject?.name === 'example' && e.reason === 'InvalidUnhealthyConditions');
    });
    assert.equal(invalid.type, 'Warning');
    assert.match(invalid.message ?? '', /^ConfigMap openshift-machine-api\/node-unhealthy-conditions key conditions: not valid YAML: .*; checking only the default conditions \(Ready=False for 5m0s, Ready=Unknown for 5m0s\)$/);
    await node('legacy2-net', { Ready: ['True', 60 * MIN], NetworkUnavailable: ['True', 60 * MIN] });
    await node('legacy2-ready', { Ready: ['False', 60 * MIN] });
    await machine('legacy2-net', 'legacy', { set, node: 'legacy2-net', provisionedAgoMs: 120 * MIN });
    await machine('legacy2-ready', 'legacy', { set, node: 'legacy2-ready', provisionedAgoMs: 120 * MIN });
    await gone('legacy2-ready');
    assert.ok(await exists('legacy2-net'), 'the ConfigMap\'s condition no longer applies');
  });
});
