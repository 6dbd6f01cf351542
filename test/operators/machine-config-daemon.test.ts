/**
 * The machine-config daemon (issue 15, item 3) against a real API server with RBAC enforced and
 * the disruption controller running, as its own ServiceAccount with only the payload's role, on
 * a real node root in a temporary directory. The daemon runs in-process on a FakeClock (its
 * drain retries, backoffs and drift polls wait on it); the node's kubelet is played by the test,
 * which honours a reboot request as the kubelet does (the request cleared, a new bootID on the
 * Node) and starts the daemon again, as a reboot stops the daemon's pod and starts it after.
 *
 * Covered: first start from the config server's annotations; a file change through cordon,
 * drain, write, reboot request and, after the reboot, validation, Done and uncordon, with the
 * seed's log lines; an SSH key change with neither drain nor reboot; a drain blocked by a
 * PodDisruptionBudget marked Degraded naming node, pod and budget, recovering alone once the
 * budget allows; a new user refused as Unreconcilable (event FailedToReconcile) and recovery on
 * revert; a hand-edited file found within seconds as a content mismatch and the force file
 * writing it back; and a daemon stopped at every step of an update converging when started again.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { V1DaemonSet, V1Pod, V1PodDisruptionBudget, V1ReplicaSet } from '@kubernetes/client-node';
import { nodeAnnotations, type MachineConfig } from '../../src/api/machineconfiguration/index.ts';
import { currentConfigPath, journalPath, readCurrentConfig, readJournal } from '../../src/operators/machine-config/daemon/node-files.ts';
import type { UpdateCheckpoint } from '../../src/operators/machine-config/daemon/updater.ts';
import { isAlreadyExists, type ApiClient } from '../../src/runtime/client.ts';
import type { ClientConfig } from '../../src/runtime/kubeconfig.ts';
import { readRebootRequest } from '../../src/runtime/node-reboot.ts';
import { resources } from '../../src/runtime/resources.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { until } from '../support/until.ts';
import { A, adminOf, B, C, InProcessDaemon, KEY_1, KEY_2, name, NodeUnderTest, prepare, SCRIPT, U, type StepHook } from './machine-config-daemon-support.ts';

describe('machine-config-daemon on a real API server and node root', () => {
  let ts: TestServer;
  let admin: ApiClient;
  let daemonConfig: ClientConfig;
  let base: string;
  const nodes: NodeUnderTest[] = [];

  before(async () => {
    base = mkdtempSync(join(tmpdir(), 'shipyard-mcd-'));
    ts = await startTestServer({ controllers: true });
    admin = adminOf(ts);
    daemonConfig = (await prepare(ts, admin, base)).config;
  });

  after(async () => {
    for (const n of nodes) await n.stop();
    admin?.close();
    await ts?.stop();
    rmSync(base, { recursive: true, force: true });
  });

  async function bootNode(nodeName: string, initial: MachineConfig = A): Promise<NodeUnderTest> {
    const n = new NodeUnderTest(admin, nodeName, base, new InProcessDaemon(daemonConfig));
    nodes.push(n);
    await n.boot(initial);
    return n;
  }

  /** Starts the daemon and waits until it has taken the config server's annotations and checked the node against them (first start). */
  async function started(nodeName: string, initial: MachineConfig = A): Promise<NodeUnderTest> {
    const n = await bootNode(nodeName, initial);
    n.start();
    // The adopted annotations say Done at once; the cleared reason is the daemon's own finish.
    await until(`${nodeName} Done at ${name(initial)}`, async () => (await n.doneAt(initial)) && (await n.annotations())[nodeAnnotations.reason] === '');
    return n;
  }

  /** Plays the kubelet until the node is Done at `mc`: each reboot the daemon asks for happens. */
  async function converge(n: NodeUnderTest, mc: MachineConfig, onStep?: StepHook): Promise<void> {
    await n.untilPumped(`${n.nodeName} Done at ${name(mc)}`, async () => {
      if (readRebootRequest(n.root) && n.running) await n.reboot(onStep);
      return n.doneAt(mc);
    }, 1000, 90_000);
  }

  it('first start: takes its annotations from node-annotations.json and records the config on disk', async () => {
    const n = await started('worker-first');
    const a = await n.annotations();
    assert.equal(a[nodeAnnotations.desiredConfig], name(A));
    assert.equal(a[nodeAnnotations.reason], '');
    assert.ok(n.log.has(`Setting initial node config: ${name(A)}`), n.log.lines.join('\n'));
    assert.equal((await readCurrentConfig(n.root))?.metadata.name, name(A));
    assert.equal((await n.node()).spec?.unschedulable, undefined, 'nothing cordoned the node');
    assert.equal(readRebootRequest(n.root), undefined, 'and nothing rebooted it');
  });

  it('a file change: cordon, drain, write, reboot; after the reboot validate, Done, uncordon', async () => {
    const n = await started('worker-file');
    await n.setDesired(B);
    await until('the reboot request', async () => readRebootRequest(n.root) !== undefined);
    const during = await n.node();
    assert.equal(during.spec?.unschedulable, true, 'cordoned before the reboot');
    assert.equal(during.metadata?.annotations?.[nodeAnnotations.state], 'Working');
    assert.equal(during.metadata?.annotations?.[nodeAnnotations.currentConfig], name(A), 'current only once the reboot is validated');
    assert.equal(await n.file('usr/local/bin/kubeinit_kubevirt_extra_config_script'), SCRIPT);
    assert.equal((await readCurrentConfig(n.root))?.metadata.name, name(B), 'the config on disk is B');
    assert.equal((await readJournal(n.root))?.phase, 'rebooting');
    assert.match(readRebootRequest(n.root)!.reason, /file \/usr\/local\/bin\/kubeinit_kubevirt_extra_config_script changed/);
    n.log.assertInOrder([
      `Checking Reconcilable for config ${name(A)} to ${name(B)}`,
      `Starting update from ${name(A)} to ${name(B)}: &{osUpdate:false kargs:false fips:false passwd:false files:true units:false kernelType:false extensions:false}`,
      'Update prepared; beginning drain',
      'drain complete',
      'Writing file "/usr/local/bin/kubeinit_kubevirt_extra_config_script"',
      `Rebooting node into config ${name(B)} (file /usr/local/bin/kubeinit_kubevirt_extra_config_script changed)`,
    ]);

    // Recorded through the daemon's queue just before the reboot request; the reboot stops the
    // daemon, and a stopping recorder drops what it has not sent: seen before rebooting.
    await until('the Reboot event', async () => (await n.events('Reboot')).some((e) => e.message === `Node will reboot into config ${name(B)}` && e.source?.component === 'machineconfigdaemon'));
    await n.reboot();
    await until('Done at B after the reboot', () => n.doneAt(B));
    const node = await n.node();
    assert.equal(node.spec?.unschedulable, undefined, 'uncordoned');
    assert.equal(node.metadata?.annotations?.[nodeAnnotations.reason], '');
    assert.equal(node.status?.nodeInfo?.bootID, 'boot-2');
    // Removed just after the Done patch: looked at until it is gone.
    await until('the journal is gone', async () => (await readJournal(n.root)) === undefined);
    assert.ok(n.log.has(`Update completed for config ${name(B)} and node has been successfully uncordoned`));
    // Set just after the Done patch that made doneAt true: looked at until it shows.
    await until('mcd_state Done', async () => /mcd_state\{state="Done",reason=""\} 1/.test(await n.metrics.registry.getSingleMetricAsString('mcd_state')));
    assert.match(await n.metrics.registry.getSingleMetricAsString('mcd_reboots_requested_total'), /mcd_reboots_requested_total 1/);
  });

  it('an SSH key change completes with no drain and no reboot', async () => {
    const n = await started('worker-ssh');
    await n.setDesired(C);
    await until('Done at C', () => n.doneAt(C));
    assert.equal(readRebootRequest(n.root), undefined, 'no reboot asked for');
    assert.equal((await n.node()).spec?.unschedulable, undefined, 'never cordoned');
    assert.equal((await n.node()).status?.nodeInfo?.bootID, 'boot-1');
    assert.equal(await n.file('home/core/.ssh/authorized_keys.d/ignition'), `${KEY_1}\n${KEY_2}\n`);
    assert.ok(n.log.has('Update prepared; changes do not require drain, skipping'), n.log.lines.join('\n'));
    assert.ok(!n.log.lines.some((l) => l.startsWith('Rebooting node')));
    await until('the journal is gone', async () => (await readJournal(n.root)) === undefined);
  });

  it('a drain a PodDisruptionBudget blocks: Degraded naming node, pod and budget; retried, it finishes alone once the budget allows', async () => {
    const n = await started('worker-pdb');
    const ns = 'openshift-ingress';
    await admin.create(resources.namespaces, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } }).catch((err: unknown) => {
      if (!isAlreadyExists(err)) throw err;
    });
    const labels = { 'ingresscontroller.operator.openshift.io/deployment-ingresscontroller': 'default' };
    const rs = await admin.create<V1ReplicaSet>(resources.replicaSets, {
      apiVersion: 'apps/v1',
      kind: 'ReplicaSet',
      // No replicas of its own: the pod below is the one the seed's worker runs; no controller runs here to add more.
      metadata: { name: 'router-default-796df5847b', namespace: ns },
      spec: { replicas: 0, selector: { matchLabels: labels }, template: { metadata: { labels }, spec: { containers: [{ name: 'router', image: 'router' }] } } },
    });
    const pod = 'router-default-796df5847b-9hxzx';
    await admin.create<V1Pod>(resources.pods, {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: pod, namespace: ns, labels, ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: rs.metadata!.name!, uid: rs.metadata!.uid!, controller: true }] },
      // Grace 0: with no kubelet to finish a graceful deletion, an evicted pod goes at once.
      spec: { nodeName: n.nodeName, terminationGracePeriodSeconds: 0, automountServiceAccountToken: false, containers: [{ name: 'router', image: 'router' }] },
    });
    await admin.patch(resources.pods, ns, pod, { status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }] } }, { type: 'merge', subresource: 'status' });
    // A DaemonSet's pod on the node, which a drain leaves where it is (as it leaves the daemon's own).
    await admin.create(resources.namespaces, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'openshift-dns' } });
    const ds = await admin.create<V1DaemonSet>(resources.daemonSets, {
      apiVersion: 'apps/v1',
      kind: 'DaemonSet',
      metadata: { name: 'dns-default', namespace: 'openshift-dns' },
      spec: { selector: { matchLabels: { app: 'dns' } }, template: { metadata: { labels: { app: 'dns' } }, spec: { containers: [{ name: 'dns', image: 'dns' }] } } },
    });
    await admin.create<V1Pod>(resources.pods, {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'dns-default-h2lt5', namespace: 'openshift-dns', labels: { app: 'dns' }, ownerReferences: [{ apiVersion: 'apps/v1', kind: 'DaemonSet', name: 'dns-default', uid: ds.metadata!.uid!, controller: true }] },
      spec: { nodeName: n.nodeName, automountServiceAccountToken: false, containers: [{ name: 'dns', image: 'dns' }] },
    });
    await admin.create<V1PodDisruptionBudget>(resources.podDisruptionBudgets, { apiVersion: 'policy/v1', kind: 'PodDisruptionBudget', metadata: { name: 'router-default', namespace: ns }, spec: { minAvailable: 1, selector: { matchLabels: labels } } });
    await until('the budget to allow no disruption', async () => {
      const pdb = await admin.get<V1PodDisruptionBudget>(resources.podDisruptionBudgets, ns, 'router-default');
      return pdb.status?.currentHealthy === 1 && pdb.status.disruptionsAllowed === 0;
    });

    await n.setDesired(B);
    const reason = `failed to drain node ${n.nodeName}: Cannot evict pod ${ns}/${pod}: would violate PodDisruptionBudget ${ns}/router-default`;
    // Each look moves the drain's clock by one retry interval, so it gives up after 90 s of its time.
    await n.untilPumped('Degraded by the drain', async () => (await n.annotations())[nodeAnnotations.state] === 'Degraded', 5000);
    const degraded = await n.node();
    assert.equal(degraded.metadata?.annotations?.[nodeAnnotations.reason], reason);
    assert.equal(degraded.spec?.unschedulable, true, 'left cordoned: Ready,SchedulingDisabled');
    assert.equal(degraded.metadata?.annotations?.[nodeAnnotations.currentConfig], name(A));
    assert.equal(await n.file('usr/local/bin/kubeinit_kubevirt_extra_config_script'), undefined, 'nothing written before the drain');
    n.log.assertInOrder([
      `Checking Reconcilable for config ${name(A)} to ${name(B)}`,
      `Starting update from ${name(A)} to ${name(B)}: &{osUpdate:false kargs:false fips:false passwd:false files:true units:false kernelType:false extensions:false}`,
      'Update prepared; beginning drain',
      'WARNING: ignoring DaemonSet-managed Pods: openshift-dns/dns-default-h2lt5',
      `evicting pod ${ns}/${pod}`,
      `error when evicting pod "${pod}" (will retry after 5s): Cannot evict pod as it would violate the pod's disruption budget.`,
      `Draining failed with: ${reason}, retrying`,
      `Marking Degraded due to: ${reason}`,
    ]);
    assert.match(await n.metrics.registry.getSingleMetricAsString('mcd_drain_err'), /mcd_drain_err 1/);

    // The daemon keeps trying; a relaxed budget lets the next eviction through.
    await admin.patch(resources.podDisruptionBudgets, ns, 'router-default', { spec: { minAvailable: 0 } }, { type: 'merge' });
    // Allowed is a passing state: the daemon's next try may evict the router before this looks,
    // and the budget then allows nothing again. Either shows the relaxed budget took effect.
    await until('the budget to allow the eviction, or the router evicted', async () =>
      (await admin.get<V1PodDisruptionBudget>(resources.podDisruptionBudgets, ns, 'router-default')).status?.disruptionsAllowed === 1 ||
      (await admin.get(resources.pods, ns, pod).catch(() => undefined)) === undefined,
    );
    await n.untilPumped('the reboot request once drained', async () => readRebootRequest(n.root) !== undefined, 5000);
    assert.equal(await admin.get(resources.pods, ns, pod).catch(() => undefined), undefined, 'the router was evicted');
    assert.ok(await admin.get(resources.pods, 'openshift-dns', 'dns-default-h2lt5'), 'the DaemonSet pod stays');
    assert.equal(await n.file('usr/local/bin/kubeinit_kubevirt_extra_config_script'), SCRIPT);
    await n.reboot();
    await until('Done at B', () => n.doneAt(B));
    assert.equal((await n.node()).spec?.unschedulable, undefined);
    assert.equal((await n.annotations())[nodeAnnotations.reason], '');
    assert.match(await n.metrics.registry.getSingleMetricAsString('mcd_drain_err'), /mcd_drain_err 0/);
  });

  it('a new user is Unreconcilable with the reason and a FailedToReconcile event; reverting the config un-sticks it', async () => {
    const n = await started('worker-user');
    await n.setDesired(U);
    const reason = `can't reconcile config ${name(A)} with ${name(U)}: ignition passwd user section contains unsupported changes: non-core user`;
    await until('Unreconcilable', async () => (await n.annotations())[nodeAnnotations.state] === 'Unreconcilable');
    assert.equal((await n.annotations())[nodeAnnotations.reason], reason);
    assert.ok(n.log.has(`Marking Unreconcilable due to: ${reason}`));
    await until('the FailedToReconcile event', async () => (await n.events('FailedToReconcile')).some((e) => e.message === reason && e.type === 'Warning'));
    assert.equal((await n.node()).spec?.unschedulable, undefined, 'refused before any cordon');
    assert.equal(await readJournal(n.root), undefined);

    await n.setDesired(A);
    await until('Done at A again', async () => (await n.doneAt(A)) && (await n.annotations())[nodeAnnotations.reason] === '');
    assert.equal(readRebootRequest(n.root), undefined);
  });

  it('a hand-edited managed file is found within seconds as a content mismatch; the force file writes it back', async () => {
    const n = await started('worker-drift');
    writeFileSync(join(n.root, 'etc/motd'), 'edited by hand\n');
    // Two seconds of the daemon's clock, one drift poll, and no more: the edit is found by it.
    n.clock.advance(2000);
    await until('Degraded by the edit', async () => (await n.annotations())[nodeAnnotations.state] === 'Degraded');
    const reason = `unexpected on-disk state validating against ${name(A)}: content mismatch for file "/etc/motd"`;
    assert.equal((await n.annotations())[nodeAnnotations.reason], reason);
    assert.ok(n.log.has(`Marking Degraded due to: ${reason}`));
    await until('the ConfigDriftDetected event', async () => (await n.events('ConfigDriftDetected')).length > 0);
    assert.notEqual(Number((await n.metrics.registry.getSingleMetricAsString('mcd_config_drift')).match(/mcd_config_drift (\d+)/)?.[1]), 0);

    mkdirSync(join(n.root, 'run'), { recursive: true });
    writeFileSync(join(n.root, 'run/machine-config-daemon-force'), '');
    // The Degraded node is retried with backoff (5 s doubling to a minute); the retry finds the force file.
    await n.untilPumped('the forced update to ask for a reboot', async () => readRebootRequest(n.root) !== undefined, 5000);
    assert.equal(existsSync(join(n.root, 'run/machine-config-daemon-force')), false, 'the force file is consumed');
    assert.equal(await n.file('etc/motd'), 'managed by the machine-config operator\n');
    assert.ok(n.log.has(`Found the force file; skipping validation of the on-disk state against ${name(A)}`));
    await n.reboot();
    await until('Done at A, uncordoned', async () => (await n.doneAt(A)) && (await n.node()).spec?.unschedulable === undefined && (await n.annotations())[nodeAnnotations.reason] === '');
  });

  describe('stopped at any step of an update, it resumes and converges', () => {
    const steps: UpdateCheckpoint[] = ['working', 'draining', 'drained', 'applying', 'applied', 'current-config', 'rebooting', 'reboot-requested', 'uncordoned', 'done'];
    for (const [i, step] of steps.entries()) {
      it(`stopped after "${step}"`, async () => {
        const n = await started(`worker-kill-${i}`);
        let fired = false;
        // A kill: the daemon is held at the step until it is stopped, and writes nothing more.
        const hook: StepHook = async (s, signal) => {
          if (fired || s !== step) return;
          fired = true;
          // Killed in the middle of writing files: some of the new ones are there, not all.
          if (s === 'applying') writeFileSync(join(n.root, 'etc/motd'), 'half written\n');
          await new Promise<void>((r) => signal.addEventListener('abort', () => r(), { once: true }));
        };
        await n.stop();
        n.start(hook);
        await n.setDesired(B);
        await n.untilPumped(`the daemon at "${step}"`, async () => {
          if (fired) return true;
          if (readRebootRequest(n.root) && n.running) await n.reboot(hook);
          return false;
        }, 1000, 90_000);
        await n.stop();
        n.start();
        await converge(n, B);
        const node = await n.node();
        assert.equal(node.spec?.unschedulable, undefined, 'uncordoned');
        assert.equal(node.metadata?.annotations?.[nodeAnnotations.reason], '');
        assert.equal(await n.file('usr/local/bin/kubeinit_kubevirt_extra_config_script'), SCRIPT);
        assert.equal(await n.file('etc/motd'), 'managed by the machine-config operator\n');
        assert.equal((await readCurrentConfig(n.root))?.metadata.name, name(B));
        // Removed just after the Done patch that converge waited for.
        await until('the journal is gone', async () => (await readJournal(n.root)) === undefined && !existsSync(join(n.root, journalPath)));
        assert.ok(existsSync(join(n.root, currentConfigPath)));
        assert.equal(readRebootRequest(n.root), undefined);
      });
    }
  });
});
