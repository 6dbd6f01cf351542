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
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { CoreV1Event, V1Node, V1Pod, V1PodDisruptionBudget, V1ReplicaSet } from '@kubernetes/client-node';
import { encodeDataUrl } from '../../src/api/ignition/index.ts';
import { machineConfigurationCRDs, nodeAnnotations, type MachineConfig } from '../../src/api/machineconfiguration/index.ts';
import { applyUpdate, emptyConfig, fromMachineConfig } from '../../src/noderoot/index.ts';
import { runDaemon } from '../../src/operators/machine-config/daemon/daemon.ts';
import { createDaemonMetrics, type DaemonMetrics } from '../../src/operators/machine-config/daemon/metrics.ts';
import { currentConfigPath, journalPath, readCurrentConfig, readJournal } from '../../src/operators/machine-config/daemon/node-files.ts';
import type { UpdateCheckpoint } from '../../src/operators/machine-config/daemon/updater.ts';
import { ApiClient, isAlreadyExists } from '../../src/runtime/client.ts';
import { FakeClock } from '../../src/runtime/clock.ts';
import { klogDestination } from '../../src/runtime/klog.ts';
import { ClientConfig } from '../../src/runtime/kubeconfig.ts';
import { createLogger } from '../../src/runtime/logger.ts';
import { clearRebootRequest, readRebootRequest } from '../../src/runtime/node-reboot.ts';
import { objectPath, resources } from '../../src/runtime/resources.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { until } from '../support/until.ts';

const NS = 'openshift-machine-config-operator';
const RBAC = new URL('../../src/release/payload/manifests/0000_80_machine-config_02_daemon-rbac.yaml', import.meta.url).pathname;
const KEY_1 = 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOne one@example';
const KEY_2 = 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAITwo two@example';
const SLOW = { timeoutMs: 60_000 };

type Files = Record<string, string | { text: string; mode: number }>;

/** A rendered config as the controller writes one: Ignition 3.4 with files and core's keys. */
function rendered(name: string, files: Files, o: { keys?: string[]; users?: string[] } = {}): MachineConfig {
  return {
    apiVersion: 'machineconfiguration.openshift.io/v1',
    kind: 'MachineConfig',
    metadata: { name },
    spec: {
      config: {
        ignition: { version: '3.4.0' },
        passwd: { users: [{ name: 'core', sshAuthorizedKeys: o.keys ?? [KEY_1] }, ...(o.users ?? []).map((u) => ({ name: u }))] },
        storage: {
          files: Object.entries(files).map(([path, f]) => {
            const { text, mode } = typeof f === 'string' ? { text: f, mode: 0o644 } : f;
            return { path, mode, overwrite: true, contents: { source: encodeDataUrl(text) } };
          }),
        },
      },
    },
  };
}

const baseFiles: Files = {
  '/etc/kubernetes/kubelet.conf': 'apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\nmaxPods: 110\n',
  '/etc/motd': 'managed by the machine-config operator\n',
};
const SCRIPT = '#!/usr/bin/bash\nset -x\necho configured\n';
const A = rendered('rendered-worker-aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa', baseFiles);
/** A file change: reboots. */
const B = rendered('rendered-worker-bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb', { ...baseFiles, '/usr/local/bin/kubeinit_kubevirt_extra_config_script': { text: SCRIPT, mode: 0o755 } });
/** An SSH key change: neither drains nor reboots. */
const C = rendered('rendered-worker-cccccccccccccccccccccccccccccccc', baseFiles, { keys: [KEY_1, KEY_2] });
/** A new user: not reconcilable on a running node. */
const U = rendered('rendered-worker-uuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuu', baseFiles, { users: ['alice'] });

const name = (mc: MachineConfig): string => mc.metadata!.name!;

function adminOf(ts: TestServer): ApiClient {
  const config = new ClientConfig();
  config.loadFromFile(ts.server.kubeconfigPath);
  return new ApiClient(config, { userAgent: 'mcd-test-admin' });
}

/** The CRDs, the namespace, the payload's RBAC for the daemon, and a kubeconfig of its ServiceAccount. */
async function prepare(ts: TestServer, admin: ApiClient, dir: string): Promise<ClientConfig> {
  for (const crd of machineConfigurationCRDs()) await admin.create(resources.customResourceDefinitions, crd as never);
  await until('machineconfigs served', () => admin.list(resources.machineConfigs).then(() => true), { retryErrors: true, timeoutMs: 30_000 });
  await admin.create(resources.namespaces, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } });
  const applied = await ts.kubectl(['apply', '-f', RBAC]);
  assert.equal(applied.code, 0, applied.stderr);
  const tr = await admin.request<{ status: { token: string } }>('POST', objectPath(resources.serviceAccounts, NS, 'machine-config-daemon', 'token'), {
    body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: {} },
  });
  const kubeconfig = join(dir, 'kubeconfig');
  writeFileSync(kubeconfig, JSON.stringify({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: 'c', cluster: { server: ts.server.url, 'certificate-authority-data': Buffer.from(ts.server.caCertPem).toString('base64') } }],
    users: [{ name: 'mcd', user: { token: tr.status.token } }],
    contexts: [{ name: 'c', context: { cluster: 'c', user: 'mcd' } }],
    'current-context': 'c',
  }));
  for (const mc of [A, B, C, U]) await admin.create(resources.machineConfigs, mc as never);
  const config = new ClientConfig();
  config.loadFromFile(kubeconfig);
  return config;
}

/** What a daemon of the test logged, as klog lines without their header. */
class Log {
  readonly lines: string[] = [];
  readonly destination = klogDestination({ write: (s: string) => this.lines.push(s.replace(/^[IWEF]\d{4} \S+ +\d+ \S*\] /, '').trimEnd()) });
  has(text: string): boolean {
    return this.lines.includes(text);
  }
  /** The lines, in the order given, each after the one before. */
  assertInOrder(expected: readonly string[]): void {
    let at = -1;
    for (const e of expected) {
      const i = this.lines.findIndex((l, k) => k > at && l === e);
      assert.ok(i > at, `expected "${e}" after line ${at} in:\n${this.lines.join('\n')}`);
      at = i;
    }
  }
}

type StepHook = (step: UpdateCheckpoint, signal: AbortSignal) => Promise<void> | void;

/**
 * One node: its Node object, its root (first booted into `initial`, with the config server's
 * annotations file), and its daemon, started and stopped as the node's kubelet would.
 */
class NodeUnderTest {
  readonly clock = new FakeClock();
  readonly log = new Log();
  readonly metrics: DaemonMetrics = createDaemonMetrics('machine-config-daemon');
  readonly root: string;
  private daemon: { stop: AbortController; done: Promise<void> } | undefined;
  private boots = 1;

  constructor(
    private readonly ts: TestServer,
    private readonly admin: ApiClient,
    private readonly daemonConfig: ClientConfig,
    readonly nodeName: string,
    base: string,
  ) {
    this.root = join(base, nodeName, 'root');
    mkdirSync(this.root, { recursive: true });
  }

  async boot(initial: MachineConfig): Promise<void> {
    await applyUpdate(this.root, emptyConfig(), fromMachineConfig(initial));
    mkdirSync(join(this.root, 'etc/machine-config-daemon'), { recursive: true });
    const annotations = { [nodeAnnotations.currentConfig]: name(initial), [nodeAnnotations.desiredConfig]: name(initial), [nodeAnnotations.state]: 'Done' };
    writeFileSync(join(this.root, 'etc/machine-config-daemon/node-annotations.json'), JSON.stringify(annotations));
    await this.admin.create(resources.nodes, { apiVersion: 'v1', kind: 'Node', metadata: { name: this.nodeName, labels: { 'node-role.kubernetes.io/worker': '' } } });
    await this.setBootID();
  }

  private async setBootID(): Promise<void> {
    const nodeInfo = {
      bootID: `boot-${this.boots}`,
      machineID: this.nodeName,
      systemUUID: this.nodeName,
      architecture: 'amd64',
      operatingSystem: 'linux',
      osImage: 'Shipyard',
      kernelVersion: '6.0.0',
      containerRuntimeVersion: 'shipyard://0.1.0',
      kubeletVersion: 'v1.31.0',
      kubeProxyVersion: 'v1.31.0',
    };
    await this.admin.patch(resources.nodes, undefined, this.nodeName, { status: { nodeInfo, conditions: [{ type: 'Ready', status: 'True', reason: 'KubeletReady', message: 'kubelet is posting ready status' }] } }, { type: 'merge', subresource: 'status' });
  }

  start(onStep?: StepHook): void {
    assert.equal(this.daemon, undefined, 'one daemon per node');
    const stop = new AbortController();
    const logger = createLogger({ component: 'machine-config-daemon', level: 'info', destination: this.log.destination });
    const running = runDaemon({ nodeName: this.nodeName, root: this.root, kubeConfig: this.daemonConfig, signal: stop.signal, logger, clock: this.clock, metrics: this.metrics, drainTimeoutMs: 90_000, driftPollMs: 2000, rebootSettleMs: 30_000, onStep });
    this.daemon = { stop, done: running.done };
  }

  async stop(): Promise<void> {
    const d = this.daemon;
    this.daemon = undefined;
    if (!d) return;
    d.stop.abort();
    await d.done;
  }

  get running(): boolean {
    return this.daemon !== undefined;
  }

  /** The kubelet's part of a reboot: the daemon's pod stops, the request is satisfied, a new boot, the pod starts again. */
  async reboot(onStep?: StepHook): Promise<void> {
    assert.ok(readRebootRequest(this.root), 'a reboot was requested');
    await this.stop();
    clearRebootRequest(this.root);
    this.boots++;
    await this.setBootID();
    this.start(onStep);
  }

  node(): Promise<V1Node> {
    return this.admin.get<V1Node>(resources.nodes, undefined, this.nodeName);
  }

  async annotations(): Promise<Record<string, string>> {
    return (await this.node()).metadata?.annotations ?? {};
  }

  async setDesired(mc: MachineConfig): Promise<void> {
    await this.admin.patch(resources.nodes, undefined, this.nodeName, { metadata: { annotations: { [nodeAnnotations.desiredConfig]: name(mc) } } }, { type: 'merge' });
  }

  /** Moves the fake clock a little at each look, so the daemon's timers fire while the test waits. */
  untilPumped<T>(what: string, probe: () => Promise<T | undefined | false>, stepMs = 1000, timeoutMs = 30_000): Promise<T> {
    return until(what, async () => {
      const v = await probe();
      if (v === undefined || v === false) this.clock.advance(stepMs);
      return v;
    }, { timeoutMs, everyMs: 25 });
  }

  async doneAt(mc: MachineConfig): Promise<boolean> {
    const a = await this.annotations();
    return a[nodeAnnotations.currentConfig] === name(mc) && a[nodeAnnotations.state] === 'Done';
  }

  async events(reason: string): Promise<CoreV1Event[]> {
    const list = await this.admin.list<CoreV1Event>(resources.events, 'default');
    return list.items.filter((e) => e.involvedObject?.name === this.nodeName && e.reason === reason);
  }

  file(path: string): Promise<string | undefined> {
    return readFile(join(this.root, path), 'utf8').catch(() => undefined);
  }
}

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
    daemonConfig = await prepare(ts, admin, base);
  });

  after(async () => {
    for (const n of nodes) await n.stop();
    admin?.close();
    await ts?.stop();
    rmSync(base, { recursive: true, force: true });
  });

  async function bootNode(nodeName: string, initial: MachineConfig = A): Promise<NodeUnderTest> {
    const n = new NodeUnderTest(ts, admin, daemonConfig, nodeName, base);
    nodes.push(n);
    await n.boot(initial);
    return n;
  }

  /** Starts the daemon and waits until it has taken the config server's annotations (first start). */
  async function started(nodeName: string, initial: MachineConfig = A): Promise<NodeUnderTest> {
    const n = await bootNode(nodeName, initial);
    n.start();
    await until(`${nodeName} Done at ${name(initial)}`, () => n.doneAt(initial));
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

    await n.reboot();
    await until('Done at B after the reboot', () => n.doneAt(B));
    const node = await n.node();
    assert.equal(node.spec?.unschedulable, undefined, 'uncordoned');
    assert.equal(node.metadata?.annotations?.[nodeAnnotations.reason], '');
    assert.equal(node.status?.nodeInfo?.bootID, 'boot-2');
    assert.equal(await readJournal(n.root), undefined, 'the journal is gone');
    assert.ok(n.log.has(`Update completed for config ${name(B)} and node has been successfully uncordoned`));
    assert.ok((await n.events('Reboot')).some((e) => e.message === `Node will reboot into config ${name(B)}` && e.source?.component === 'machineconfigdaemon'));
    assert.match(await n.metrics.registry.getSingleMetricAsString('mcd_state'), /mcd_state\{state="Done",reason=""\} 1/);
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
    assert.equal(await readJournal(n.root), undefined);
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
      `evicting pod ${ns}/${pod}`,
      `error when evicting pod "${pod}" (will retry after 5s): Cannot evict pod as it would violate the pod's disruption budget.`,
      `Draining failed with: ${reason}, retrying`,
      `Marking Degraded due to: ${reason}`,
    ]);
    assert.match(await n.metrics.registry.getSingleMetricAsString('mcd_drain_err'), /mcd_drain_err 1/);

    // The daemon keeps trying; a relaxed budget lets the next eviction through.
    await admin.patch(resources.podDisruptionBudgets, ns, 'router-default', { spec: { minAvailable: 0 } }, { type: 'merge' });
    await until('the budget to allow the eviction', async () => (await admin.get<V1PodDisruptionBudget>(resources.podDisruptionBudgets, ns, 'router-default')).status?.disruptionsAllowed === 1);
    await n.untilPumped('the reboot request once drained', async () => readRebootRequest(n.root) !== undefined, 5000);
    assert.equal(await admin.get(resources.pods, ns, pod).catch(() => undefined), undefined, 'the router was evicted');
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
        assert.equal(await readJournal(n.root), undefined);
        assert.equal(existsSync(join(n.root, journalPath)), false);
        assert.ok(existsSync(join(n.root, currentConfigPath)));
        assert.equal(readRebootRequest(n.root), undefined);
      });
    }
  });
});
