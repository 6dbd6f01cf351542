/**
 * Test support for the machine-config daemon's tests (not a test file itself): rendered configs
 * to move a node between, a fresh API server prepared as the cluster would be for the daemon
 * (the CRDs, its namespace, the payload's RBAC, a kubeconfig of its ServiceAccount), and a node
 * under test: its Node object, its root first booted into a config, its daemon (in this process
 * on a FakeClock, or as the component's process), and the kubelet's part of a reboot, which the
 * test plays.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { CoreV1Event, V1Node } from '@kubernetes/client-node';
import { encodeDataUrl } from '../../src/api/ignition/index.ts';
import { machineConfigurationCRDs, nodeAnnotations, type MachineConfig } from '../../src/api/machineconfiguration/index.ts';
import { applyUpdate, emptyConfig, fromMachineConfig } from '../../src/noderoot/index.ts';
import { runDaemon } from '../../src/operators/machine-config/daemon/daemon.ts';
import { createDaemonMetrics, type DaemonMetrics } from '../../src/operators/machine-config/daemon/metrics.ts';
import type { UpdateCheckpoint } from '../../src/operators/machine-config/daemon/updater.ts';
import { ApiClient } from '../../src/runtime/client.ts';
import { FakeClock } from '../../src/runtime/clock.ts';
import { klogDestination } from '../../src/runtime/klog.ts';
import { ClientConfig } from '../../src/runtime/kubeconfig.ts';
import { createLogger } from '../../src/runtime/logger.ts';
import { clearRebootRequest, readRebootRequest } from '../../src/runtime/node-reboot.ts';
import { resources } from '../../src/runtime/resources.ts';
import type { TestServer } from '../support/server.ts';
import { serviceAccountKubeconfig } from '../support/service-account.ts';
import { until } from '../support/until.ts';

export const NS = 'openshift-machine-config-operator';
const RBAC = new URL('../../src/release/payload/manifests/0000_80_machine-config_02_daemon-rbac.yaml', import.meta.url).pathname;
export const KEY_1 = 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOne one@example';
export const KEY_2 = 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAITwo two@example';

export type Files = Record<string, string | { text: string; mode: number }>;

/** A rendered config as the controller writes one: Ignition 3.4 with files and core's keys. */
export function rendered(name: string, files: Files, o: { keys?: string[]; users?: string[] } = {}): MachineConfig {
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

export const baseFiles: Files = {
  '/etc/kubernetes/kubelet.conf': 'apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\nmaxPods: 110\n',
  '/etc/motd': 'managed by the machine-config operator\n',
};
export const SCRIPT = '#!/usr/bin/bash\nset -x\necho configured\n';
export const A = rendered('rendered-worker-aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa', baseFiles);
/** A file change: reboots. */
export const B = rendered('rendered-worker-bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb', { ...baseFiles, '/usr/local/bin/kubeinit_kubevirt_extra_config_script': { text: SCRIPT, mode: 0o755 } });
/** An SSH key change: neither drains nor reboots. */
export const C = rendered('rendered-worker-cccccccccccccccccccccccccccccccc', baseFiles, { keys: [KEY_1, KEY_2] });
/** A new user: not reconcilable on a running node. */
export const U = rendered('rendered-worker-uuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuu', baseFiles, { users: ['alice'] });

export const name = (mc: MachineConfig): string => mc.metadata!.name!;

export function adminOf(ts: TestServer): ApiClient {
  const config = new ClientConfig();
  config.loadFromFile(ts.server.kubeconfigPath);
  return new ApiClient(config, { userAgent: 'mcd-test-admin' });
}

/** The CRDs, the namespace, the payload's RBAC for the daemon, and a kubeconfig of its ServiceAccount. */
export async function prepare(ts: TestServer, admin: ApiClient, dir: string): Promise<{ config: ClientConfig; path: string }> {
  for (const crd of machineConfigurationCRDs()) await admin.create(resources.customResourceDefinitions, crd as never);
  await until('machineconfigs served', () => admin.list(resources.machineConfigs).then(() => true), { retryErrors: true, timeoutMs: 30_000 });
  await admin.create(resources.namespaces, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } });
  const applied = await ts.kubectl(['apply', '-f', RBAC]);
  assert.equal(applied.code, 0, applied.stderr);
  const kubeconfig = await serviceAccountKubeconfig(ts, admin, NS, 'machine-config-daemon', join(dir, 'kubeconfig'));
  for (const mc of [A, B, C, U]) await admin.create(resources.machineConfigs, mc as never);
  const config = new ClientConfig();
  config.loadFromFile(kubeconfig);
  return { config, path: kubeconfig };
}

/** What a daemon of the test logged, as klog lines without their header. */
export class Log {
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

export type StepHook = (step: UpdateCheckpoint, signal: AbortSignal) => Promise<void> | void;

/** Runs the node's daemon: in this process, or as the component's process. */
export interface DaemonRunner {
  start(node: NodeUnderTest, onStep?: StepHook): void;
  /** A graceful stop (the kubelet's SIGTERM); resolves once the daemon has stopped. */
  stop(): Promise<void>;
  readonly running: boolean;
}

/** The daemon in this process, on the node's FakeClock, logging into the node's Log. */
export class InProcessDaemon implements DaemonRunner {
  private daemon: { stop: AbortController; done: Promise<void> } | undefined;

  constructor(private readonly kubeConfig: ClientConfig) {}

  start(n: NodeUnderTest, onStep?: StepHook): void {
    assert.equal(this.daemon, undefined, 'one daemon per node');
    const stop = new AbortController();
    const logger = createLogger({ component: 'machine-config-daemon', level: 'info', destination: n.log.destination });
    const running = runDaemon({ nodeName: n.nodeName, root: n.root, kubeConfig: this.kubeConfig, signal: stop.signal, logger, clock: n.clock, metrics: n.metrics, drainTimeoutMs: 90_000, driftPollMs: 2000, rebootSettleMs: 30_000, onStep });
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
}

const launcher = new URL('../../bin/components/machine-config-daemon.js', import.meta.url).pathname;

/**
 * The component as its pod runs it: the launcher with `start`, NODE_NAME in its environment,
 * the node root as its root mount and a metrics socket; real time. Its standard output (the
 * container log) is kept.
 */
export class DaemonProcess implements DaemonRunner {
  readonly stdout: string[] = [];
  readonly stderr: string[] = [];
  /** Exit codes (or signals) of the processes that ended, in order. */
  readonly exits: string[] = [];
  private child: { process: ChildProcess; exited: Promise<void> } | undefined;
  /** Where the running process's output starts in `stdout`. */
  private outputFrom = 0;

  constructor(
    private readonly kubeconfig: string,
    readonly metricsSocket: string,
  ) {}

  start(n: NodeUnderTest): void {
    assert.equal(this.child, undefined, 'one daemon per node');
    const env: Record<string, string | undefined> = { ...process.env, NODE_NAME: n.nodeName, SHIPYARD_LOG_LEVEL: 'info' };
    // Not a pod's rootfs: container paths are host paths here.
    delete env.SHIPYARD_ROOTFS;
    this.outputFrom = this.stdout.length;
    const child = spawn(process.execPath, [launcher, 'start', '--kubeconfig', this.kubeconfig, '--root-mount', n.root, '--metrics-socket', this.metricsSocket], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout!.setEncoding('utf8').on('data', (d: string) => this.stdout.push(d));
    child.stderr!.setEncoding('utf8').on('data', (d: string) => this.stderr.push(d));
    const exited = new Promise<void>((resolve) => child.once('exit', (code, signal) => {
      this.exits.push(signal ?? String(code));
      resolve();
    }));
    this.child = { process: child, exited };
  }

  private async end(signal: NodeJS.Signals): Promise<void> {
    const c = this.child;
    this.child = undefined;
    if (!c) return;
    c.process.kill(signal);
    await c.exited;
  }

  stop(): Promise<void> {
    return this.end('SIGTERM');
  }

  /** As a crash or an OOM kill would end it: no chance to finish anything. */
  kill(): Promise<void> {
    return this.end('SIGKILL');
  }

  get running(): boolean {
    return this.child !== undefined;
  }

  /** The container log's lines: every run's, or the running process's only. */
  lines(o: { current?: boolean } = {}): string[] {
    return this.stdout
      .slice(o.current ? this.outputFrom : 0)
      .join('')
      .split('\n')
      .filter((l) => l !== '');
  }
}

/**
 * One node: its Node object, its root (first booted into `initial`, with the config server's
 * annotations file), and its daemon, started and stopped as the node's kubelet would.
 */
export class NodeUnderTest {
  readonly clock = new FakeClock();
  readonly log = new Log();
  readonly metrics: DaemonMetrics = createDaemonMetrics('machine-config-daemon');
  readonly root: string;
  private boots = 1;

  constructor(
    private readonly admin: ApiClient,
    readonly nodeName: string,
    base: string,
    readonly runner: DaemonRunner,
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
    this.runner.start(this, onStep);
  }

  stop(): Promise<void> {
    return this.runner.stop();
  }

  get running(): boolean {
    return this.runner.running;
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
