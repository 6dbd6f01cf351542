/**
 * One pod on one node: a level-triggered worker that makes what runs match the pod's spec
 * and deletion state, and reports status. Every change (a new pod version, a container exit,
 * a probe flipping, a backoff expiring) just asks for a sync; syncs run one at a time per pod,
 * so no two decisions about the same pod interleave.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { Logger } from 'pino';
import type { V1Container, V1ContainerStatus, V1Pod, V1PodCondition, V1PodStatus, V1Probe } from '@kubernetes/client-node';
import { formatTimestamp } from '../../api/time.ts';
import type { ApiClient } from '../../runtime/client.ts';
import { isNotFound, statusCodeOf } from '../../runtime/client.ts';
import type { EventSink } from '../../runtime/context.ts';
import type { ContainerExit, ContainerRuntime, RunningContainer } from '../container-runtime.ts';
import { EnvError, expandArgs, resolveEnv } from '../env.ts';
import { containerLogDir, currentLogPath, logTail, rotateLog } from '../logs.ts';
import { materializeVolumes, MountError, refreshVolumes, rootfsFor } from '../volumes.ts';
import { ProbeRunner, runProbe } from './probes.ts';
import type { PodIpAllocator } from './pod-ip.ts';

export interface WorkerHost {
  readonly nodeName: string;
  readonly nodeIP: string;
  readonly nodeDir: string;
  readonly client: ApiClient;
  readonly recorder: EventSink;
  readonly logger: Logger;
  readonly runtimes: readonly ContainerRuntime[];
  readonly ipam: PodIpAllocator;
  readonly caCert?: string;
  readonly backoff: { initialMs: number; maxMs: number; resetAfterMs: number };
  podCIDR(): string | undefined;
  kubernetesService(): { host: string; port: number } | undefined;
  active(): boolean;
  /** Restart counts survive reboots and datacenter restarts (seeded from the last status). */
  readonly restartCounts: Map<string, number>;
}

interface ContainerState {
  running?: RunningContainer;
  /** The image the current (or last) run was started from: what status reports, and what a spec change is told by. */
  image?: string;
  /**
   * Set while a run is being killed because its spec's image changed: it starts again at once,
   * whatever the restart policy, as a new definition that owes no back-off (kube's kubelet keys
   * back-off by the container's spec hash).
   */
  redefined?: boolean;
  containerID?: string;
  startedAt?: string;
  lastExit?: { exit: ContainerExit; startedAt?: string; containerID?: string };
  /** Exit of the current (not restarted) run, for terminated state. */
  terminated?: { exit: ContainerExit; startedAt?: string; containerID?: string };
  backoffUntil?: number;
  backoffSeconds?: number;
  crashes: number;
  ready: boolean;
  /** False while a startup probe has yet to succeed: liveness and readiness wait for it. */
  started: boolean;
  readiness?: ProbeRunner;
  liveness?: ProbeRunner;
  startup?: ProbeRunner;
  waitingReason?: string;
  waitingMessage?: string;
}

function stopProbes(s: ContainerState): void {
  s.readiness?.stop();
  s.liveness?.stop();
  s.startup?.stop();
  s.readiness = s.liveness = s.startup = undefined;
}

/**
 * `terminationMessagePolicy: FallbackToLogsOnError`: a container that failed without a message
 * gets its log's last lines (80, 2 KiB) as the message, which controllers read from the pod's
 * status (the kube-apiserver operator records an installer's failure from it).
 */
export function withFallbackMessage(c: Pick<V1Container, 'terminationMessagePolicy'>, exit: ContainerExit, logPath: string): ContainerExit {
  if (c.terminationMessagePolicy !== 'FallbackToLogsOnError' || exit.exitCode === 0 || exit.message) return exit;
  const tail = logTail(logPath);
  return tail ? { ...exit, message: tail } : exit;
}

export class PodWorker {
  pod: V1Pod;
  /** The object status is written to: the pod itself, or a static pod's mirror. */
  statusTarget: { namespace: string; name: string } | undefined;
  private readonly host: WorkerHost;
  private readonly containers = new Map<string, ContainerState>();
  private readonly initDone = new Set<string>();
  private podIP: string | undefined;
  private prepared = false;
  private preparedFor = '';
  private syncing = false;
  private again = false;
  private timer: NodeJS.Timeout | undefined;
  private lastStatus = '';
  /** The conditions of `lastStatus`, kept so an informer update is compared without parsing it again. */
  private lastConditions: readonly { readonly type: string; readonly status: string }[] = [];
  private startTime: string | undefined;
  private stopped = false;
  private terminating: Promise<void> | undefined;
  /**
   * Container starts under way. A stop that begins while a start is in flight cannot see the
   * new process yet, so it waits for these; a start that finishes into a stopping worker stops
   * its own process at once. Without both, a process started during a datacenter stop or a
   * pod deletion outlived its pod (issue 13).
   */
  private readonly starting = new Set<Promise<void>>();
  private readonly podDir: string;
  readonly isStatic: boolean;

  constructor(pod: V1Pod, host: WorkerHost, opts: { isStatic?: boolean } = {}) {
    this.pod = pod;
    this.host = host;
    this.isStatic = opts.isStatic ?? false;
    this.podDir = join(host.nodeDir, 'pods', pod.metadata!.uid!);
    this.statusTarget = this.isStatic ? undefined : { namespace: pod.metadata!.namespace!, name: pod.metadata!.name! };
    this.startTime = pod.status?.startTime as unknown as string | undefined;
    for (const cs of [...(pod.status?.containerStatuses ?? []), ...(pod.status?.initContainerStatuses ?? [])]) {
      const key = `${pod.metadata!.uid}/${cs.name}`;
      // Seen running before this kubelet started: it will run again, as a restart.
      const previous = (cs.restartCount ?? 0) + (cs.state?.running || cs.state?.terminated ? 1 : 0);
      if (!host.restartCounts.has(key)) host.restartCounts.set(key, previous);
      if (cs.state?.terminated && (pod.status?.initContainerStatuses ?? []).some((i) => i.name === cs.name) && cs.state.terminated.exitCode === 0) this.initDone.add(cs.name);
    }
  }

  get uid(): string {
    return this.pod.metadata!.uid!;
  }

  update(pod: V1Pod): void {
    this.pod = pod;
    this.requestSync();
  }

  requestSync(delayMs = 0): void {
    if (this.stopped) return;
    if (delayMs > 0) {
      clearTimeout(this.timer);
      this.timer = setTimeout(() => this.requestSync(), delayMs);
      return;
    }
    if (this.syncing) {
      this.again = true;
      return;
    }
    this.syncing = true;
    void (async () => {
      try {
        do {
          this.again = false;
          await this.sync();
        } while (this.again && !this.stopped);
      } catch (err) {
        this.host.logger.warn({ pod: this.key(), err: (err as Error).message }, 'pod sync failed; retrying');
        this.syncing = false;
        this.requestSync(2000);
        return;
      }
      this.syncing = false;
    })();
  }

  key(): string {
    return `${this.pod.metadata?.namespace}/${this.pod.metadata?.name}`;
  }

  private event(type: 'Normal' | 'Warning', reason: string, message: string): void {
    const target = this.statusTarget ? { ...this.pod, metadata: { ...this.pod.metadata, ...this.statusTarget } } : this.pod;
    this.host.recorder.event({ apiVersion: 'v1', kind: 'Pod', metadata: target.metadata }, type, reason, message);
  }

  private state(name: string): ContainerState {
    let s = this.containers.get(name);
    if (!s) this.containers.set(name, (s = { crashes: 0, ready: false, started: false }));
    return s;
  }

  private async sync(): Promise<void> {
    if (!this.host.active() || this.stopped) return;
    const pod = this.pod;
    if (pod.metadata?.deletionTimestamp) {
      await this.terminate(this.gracePeriodMs(), true);
      return;
    }
    const phase = pod.status?.phase;
    if ((phase === 'Succeeded' || phase === 'Failed') && !this.anyRunning()) return;
    if (!(await this.prepare())) return;

    const init = pod.spec?.initContainers ?? [];
    for (const c of init) {
      if (this.initDone.has(c.name)) continue;
      const s = this.state(c.name);
      if (s.running) return this.writeStatus();
      if (s.terminated) {
        if (s.terminated.exit.exitCode === 0) {
          this.initDone.add(c.name);
          continue;
        }
        if (pod.spec?.restartPolicy === 'Never') return this.writeStatus();
        if (!this.backoffElapsed(c.name, s)) return this.writeStatus();
      }
      await this.startContainer(c, s);
      return this.writeStatus();
    }

    const policy = pod.spec?.restartPolicy ?? 'Always';
    for (const c of pod.spec?.containers ?? []) {
      const s = this.state(c.name);
      if (s.running) {
        if (s.image !== (c.image ?? '')) this.restartRedefined(c, s);
        continue;
      }
      if (s.terminated && s.image !== undefined && s.image !== (c.image ?? '')) {
        // A new image for a stopped container: the restart policy still decides, but the back-off belonged to the old one.
        s.crashes = 0;
        s.backoffUntil = undefined;
        s.waitingReason = s.waitingMessage = undefined;
      }
      if (s.terminated && !s.redefined) {
        const code = s.terminated.exit.exitCode;
        const restart = policy === 'Always' || (policy === 'OnFailure' && code !== 0);
        if (!restart) continue;
        if (!this.backoffElapsed(c.name, s)) continue;
      }
      await this.startContainer(c, s);
    }
    await this.writeStatus();
  }

  /**
   * A running container whose image the pod's spec no longer names (`kubectl patch pod ... image`,
   * the one in-place change kube allows a container) is killed, grace honoured, and started again
   * from the new image by the sync its exit asks for; its restart count goes up by one.
   */
  private restartRedefined(c: V1Container, s: ContainerState): void {
    if (s.redefined || !s.running) return;
    s.redefined = true;
    s.crashes = 0;
    s.backoffUntil = undefined;
    stopProbes(s);
    this.event('Normal', 'Killing', `Container ${c.name} definition changed, will be restarted`);
    void s.running.stop(Math.max(0, this.pod.spec?.terminationGracePeriodSeconds ?? 30) * 1000);
  }

  private anyRunning(): boolean {
    return [...this.containers.values()].some((s) => s.running);
  }

  private gracePeriodMs(): number {
    const g = this.pod.metadata?.deletionGracePeriodSeconds ?? this.pod.spec?.terminationGracePeriodSeconds ?? 30;
    return Math.max(0, g) * 1000;
  }

  private backoffElapsed(name: string, s: ContainerState): boolean {
    const ranFor = s.terminated && s.terminated.startedAt ? Date.parse(s.terminated.exit.finishedAt.toISOString()) - Date.parse(s.terminated.startedAt) : 0;
    if (ranFor > this.host.backoff.resetAfterMs) s.crashes = 0;
    if (s.backoffUntil === undefined) {
      // As the kubelet does: the first failure restarts at once; from the second on, the
      // back-off starts at its initial value and doubles up to the maximum.
      if (s.crashes <= 1) return true;
      const seconds = Math.min(this.host.backoff.maxMs, this.host.backoff.initialMs * 2 ** (s.crashes - 2)) / 1000;
      s.backoffSeconds = seconds;
      s.backoffUntil = Date.now() + seconds * 1000;
    }
    if (Date.now() >= s.backoffUntil) {
      s.backoffUntil = undefined;
      return true;
    }
    s.waitingReason = 'CrashLoopBackOff';
    s.waitingMessage = `back-off ${s.backoffSeconds}s restarting failed container=${name} pod=${this.pod.metadata?.name}_${this.pod.metadata?.namespace}(${this.uid})`;
    this.event('Warning', 'BackOff', 'Back-off restarting failed container');
    this.requestSync(s.backoffUntil - Date.now() + 5);
    return false;
  }

  /** IP, volumes: once per pod (again after a reboot or when the spec's volumes change). */
  private async prepare(): Promise<boolean> {
    const volumesKey = JSON.stringify(this.pod.spec?.volumes ?? []);
    if (this.prepared && this.preparedFor === volumesKey) return true;
    if (this.pod.spec?.hostNetwork) this.podIP = this.host.nodeIP;
    else {
      const cidr = this.host.podCIDR();
      if (!cidr) {
        this.setAllWaiting('ContainerCreating', 'waiting for the node to be assigned a podCIDR');
        await this.writeStatus();
        this.requestSync(1000);
        return false;
      }
      this.podIP = this.host.ipam.allocate(this.uid, cidr);
    }
    if (this.needsFiles()) {
      try {
        await materializeVolumes(this.pod, this.podDir, this.volumeDeps());
      } catch (err) {
        if (!(err instanceof MountError)) throw err;
        this.event('Warning', 'FailedMount', err.message);
        this.setAllWaiting('ContainerCreating', err.message);
        await this.writeStatus();
        this.requestSync(5000);
        return false;
      }
    }
    this.startTime ??= formatTimestamp();
    this.prepared = true;
    this.preparedFor = volumesKey;
    return true;
  }

  /** Simulated containers need no files: skipping volumes keeps big simulations cheap. */
  private needsFiles(): boolean {
    return [...(this.pod.spec?.initContainers ?? []), ...(this.pod.spec?.containers ?? [])].some((c) => this.runtimeFor(c.image ?? '').name !== 'simulated');
  }

  private volumeDeps() {
    return { client: this.host.client, nodeRoot: join(this.host.nodeDir, 'root'), nodeName: this.host.nodeName, podIP: this.podIP ?? '', hostIP: this.host.nodeIP, caCert: this.host.caCert };
  }

  async refreshVolumes(): Promise<void> {
    if (this.prepared && this.needsFiles()) await refreshVolumes(this.pod, this.podDir, this.volumeDeps());
  }

  private setAllWaiting(reason: string, message: string): void {
    for (const c of [...(this.pod.spec?.initContainers ?? []), ...(this.pod.spec?.containers ?? [])]) {
      const s = this.state(c.name);
      if (!s.running) {
        s.waitingReason = reason;
        s.waitingMessage = message;
      }
    }
  }

  private runtimeFor(image: string): ContainerRuntime {
    const r = this.host.runtimes.find((rt) => rt.handles(image));
    if (!r) throw new Error(`no container runtime handles image ${image}`);
    return r;
  }

  private startContainer(c: V1Container, s: ContainerState): Promise<void> {
    if (this.terminating || this.stopped) return Promise.resolve();
    const start = this.runContainer(c, s).finally(() => this.starting.delete(start));
    this.starting.add(start);
    return start;
  }

  private async runContainer(c: V1Container, s: ContainerState): Promise<void> {
    const restartKey = `${this.uid}/${c.name}`;
    const restartCount = this.host.restartCounts.get(restartKey) ?? 0;
    const runtime = this.runtimeFor(c.image ?? '');
    let env: Record<string, string>;
    try {
      env = await resolveEnv(this.pod, c, { client: this.host.client, nodeName: this.host.nodeName, podIP: this.podIP ?? '', hostIP: this.host.nodeIP, kubernetesService: this.host.kubernetesService() });
    } catch (err) {
      if (!(err instanceof EnvError)) throw err;
      s.waitingReason = 'CreateContainerConfigError';
      s.waitingMessage = err.message;
      this.event('Warning', 'Failed', `Error: ${err.message}`);
      this.requestSync(5000);
      return;
    }
    const logDir = containerLogDir(this.host.nodeDir, { namespace: this.pod.metadata!.namespace!, name: this.pod.metadata!.name!, uid: this.uid }, c.name);
    const logPath = currentLogPath(logDir);
    if (runtime.name !== 'simulated') rotateLog(logDir);
    else mkdirSync(logDir, { recursive: true });
    this.event('Normal', 'Pulled', `Container image "${c.image}" already present on machine`);
    let running: RunningContainer;
    try {
      running = await runtime.start({
        podUid: this.uid,
        namespace: this.pod.metadata!.namespace!,
        podName: this.pod.metadata!.name!,
        nodeName: this.host.nodeName,
        containerName: c.name,
        image: c.image ?? '',
        command: expandArgs(c.command ?? [], env),
        args: expandArgs(c.args ?? [], env),
        env,
        workingDir: c.workingDir,
        mounts: [],
        rootfs: rootfsFor(this.podDir, c.name),
        podIP: this.podIP ?? '',
        hostNetwork: this.pod.spec?.hostNetwork ?? false,
        logPath,
        restartCount,
      });
    } catch (err) {
      const exit: ContainerExit = { exitCode: 128, reason: 'ContainerCannotRun', message: (err as Error).message, finishedAt: new Date() };
      s.terminated = { exit };
      s.image = c.image ?? '';
      s.redefined = false;
      s.crashes++;
      this.host.restartCounts.set(restartKey, restartCount + 1);
      this.event('Warning', 'Failed', `Error: ${(err as Error).message}`);
      this.requestSync(10);
      return;
    }
    if (this.terminating || this.stopped) {
      // The pod began stopping while this process was being started: it must not run on untracked.
      const exit = await running.stop(0);
      s.terminated = { exit, startedAt: formatTimestamp(), containerID: s.containerID };
      return;
    }
    if (s.terminated) s.lastExit = s.terminated;
    s.terminated = undefined;
    s.running = running;
    s.image = c.image ?? '';
    s.redefined = false;
    s.waitingReason = undefined;
    s.waitingMessage = undefined;
    s.containerID = `shipyard://${randomBytes(16).toString('hex')}`;
    s.startedAt = formatTimestamp();
    s.ready = !c.readinessProbe;
    s.started = !c.startupProbe;
    this.event('Normal', 'Created', `Created container ${c.name}`);
    this.event('Normal', 'Started', `Started container ${c.name}`);
    this.watchProbes(c, s, running);
    void running.exited.then((exit) => {
      // The probes on `s` may already belong to a newer run of this container.
      if (s.running !== running) return;
      stopProbes(s);
      s.running = undefined;
      s.ready = false;
      s.terminated = { exit: withFallbackMessage(c, exit, logPath), startedAt: s.startedAt, containerID: s.containerID };
      if (this.terminating || this.stopped) return;
      if (s.redefined) {
        this.host.restartCounts.set(restartKey, restartCount + 1);
        this.requestSync();
        return;
      }
      const policy = this.pod.spec?.restartPolicy ?? 'Always';
      const restarts = policy === 'Always' || (policy === 'OnFailure' && exit.exitCode !== 0);
      const isInit = (this.pod.spec?.initContainers ?? []).some((i) => i.name === c.name);
      if (restarts && !(isInit && exit.exitCode === 0)) {
        s.crashes++;
        this.host.restartCounts.set(restartKey, restartCount + 1);
      }
      this.requestSync();
    });
  }

  /**
   * Probes of one run of a container. A startup probe holds liveness and readiness back until it
   * first succeeds, so a slow starter is neither killed by liveness nor sent traffic meanwhile;
   * liveness or startup failing past its threshold kills the run, and restartPolicy decides what next.
   */
  private watchProbes(c: V1Container, s: ContainerState, running: RunningContainer): void {
    const host = this.podIP ?? this.host.nodeIP;
    const startedAt = Date.now();
    const current = (): boolean => s.running === running;
    const check = (probe: V1Probe) => () => runProbe(probe, host, c.ports, running);
    const unhealthy = (kind: string) => (message: string) => {
      if (current()) this.event('Warning', 'Unhealthy', `${kind} probe failed: ${message}`);
    };
    const kill = (kind: 'liveness' | 'startup', probe: V1Probe): void => {
      if (!current()) return;
      stopProbes(s);
      this.event('Normal', 'Killing', `Container ${c.name} failed ${kind} probe, will be restarted`);
      // A probe may shorten the pod's grace period for its own kills (probe-level terminationGracePeriodSeconds).
      void running.stop(Math.max(0, probe.terminationGracePeriodSeconds ?? this.pod.spec?.terminationGracePeriodSeconds ?? 30) * 1000);
    };
    const afterStartup = (): void => {
      // initialDelaySeconds counts from the container's start, not from the end of its startup probe.
      const remaining = (p: V1Probe): number => Math.max(0, (p.initialDelaySeconds ?? 0) * 1000 - (Date.now() - startedAt));
      const readiness = c.readinessProbe;
      if (readiness) {
        s.readiness = new ProbeRunner({
          kind: 'readiness',
          probe: readiness,
          check: check(readiness),
          firstDelayMs: remaining(readiness),
          onFailure: unhealthy('Readiness'),
          onChange: (ok) => {
            if (!current()) return;
            s.ready = ok;
            this.requestSync();
          },
        });
      }
      const liveness = c.livenessProbe;
      if (liveness) {
        s.liveness = new ProbeRunner({
          kind: 'liveness',
          probe: liveness,
          check: check(liveness),
          firstDelayMs: remaining(liveness),
          onFailure: unhealthy('Liveness'),
          onChange: (ok) => {
            if (!ok) kill('liveness', liveness);
          },
        });
      }
    };
    const startup = c.startupProbe;
    if (!startup) return afterStartup();
    s.startup = new ProbeRunner({
      kind: 'startup',
      probe: startup,
      check: check(startup),
      onFailure: unhealthy('Startup'),
      onChange: (ok) => {
        if (!current()) return;
        if (!ok) return kill('startup', startup);
        // Once started, a container is never "unstarted" by its startup probe: it stops probing.
        s.startup?.stop();
        s.startup = undefined;
        s.started = true;
        afterStartup();
        this.requestSync();
      },
    });
  }

  /** Stops every container (grace honoured); with `remove`, finishes the pod's deletion. */
  terminate(graceMs: number, remove: boolean): Promise<void> {
    this.terminating ??= (async () => {
      // Starts already under way see `terminating` when they finish and stop what they started.
      await Promise.allSettled([...this.starting]);
      const running = [...this.containers.entries()].filter(([, s]) => s.running);
      // Before the grace period, not after: a liveness failure meanwhile would "restart" a container being stopped.
      for (const s of this.containers.values()) stopProbes(s);
      for (const [name] of running) this.event('Normal', 'Killing', `Stopping container ${name}`);
      await Promise.all(running.map(([, s]) => s.running!.stop(graceMs)));
      if (!remove) return;
      this.stopped = true;
      clearTimeout(this.timer);
      if (!this.isStatic) await this.finishDeletion();
      this.cleanup();
    })();
    return this.terminating;
  }

  /**
   * The last step of a graceful deletion: the pod object goes once its containers have. Retried
   * while the kubelet runs, because a pod left marked for deletion is one that `kubectl` waits
   * on forever; a kubelet that stops meanwhile finishes it when it starts again (its resync sees
   * a deleting pod with no worker).
   */
  private async finishDeletion(): Promise<void> {
    for (let delayMs = 500; ; delayMs = Math.min(delayMs * 2, 10_000)) {
      try {
        await this.host.client.delete({ group: '', version: 'v1', resource: 'pods', kind: 'Pod', namespaced: true }, this.pod.metadata!.namespace!, this.pod.metadata!.name!, { gracePeriodSeconds: 0, preconditions: { uid: this.uid } });
        return;
      } catch (err) {
        // Gone already, or a new pod of the same name (the uid precondition): nothing left to finish.
        if (isNotFound(err) || statusCodeOf(err) === 409) return;
        if (!this.host.active()) return;
        this.host.logger.warn({ pod: this.key(), err: (err as Error).message }, 'cannot finish the pod\'s deletion; retrying');
      }
      await new Promise((r) => setTimeout(r, delayMs));
    }
  }

  /** Stops containers without deleting the pod (reboot, node removal); the worker is done. */
  async halt(graceMs: number): Promise<void> {
    await this.terminate(graceMs, false);
    this.stopped = true;
    clearTimeout(this.timer);
    for (const c of this.pod.spec?.containers ?? []) {
      const key = `${this.uid}/${c.name}`;
      if (this.containers.get(c.name)?.terminated) this.host.restartCounts.set(key, (this.host.restartCounts.get(key) ?? 0) + 1);
    }
  }

  /**
   * The pod is gone from the API (deleted with grace 0, or its graceful deletion finished):
   * its containers stop now and the worker never syncs again. Without the stop, a back-off or
   * mount retry already scheduled would start containers nobody tracks any more.
   */
  async forget(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    // Under way already (graceful deletion, reboot): nothing waits for its grace period now.
    if (this.terminating) await Promise.all([...this.containers.values()].map((s) => s.running?.stop(0)));
    else await this.terminate(0, false);
    this.cleanup();
  }

  cleanup(): void {
    this.host.ipam.release(this.uid);
    rmSync(this.podDir, { recursive: true, force: true });
    for (const c of this.containers.keys()) this.host.restartCounts.delete(`${this.uid}/${c}`);
  }

  isStopped(): boolean {
    return this.stopped;
  }

  private containerStatus(c: V1Container, isInit: boolean): V1ContainerStatus {
    const s = this.state(c.name);
    // What runs (or ran last), not what the spec asks for: the two differ while a changed image is being rolled in.
    const image = s.image ?? c.image ?? '';
    const st: V1ContainerStatus = {
      name: c.name,
      image,
      imageID: image,
      restartCount: this.host.restartCounts.get(`${this.uid}/${c.name}`) ?? 0,
      ready: Boolean(s.running && s.started && s.ready),
      started: Boolean(s.running && s.started),
    } as V1ContainerStatus;
    if (s.containerID) st.containerID = s.containerID;
    const term = (t: NonNullable<ContainerState['terminated']>) => ({ exitCode: t.exit.exitCode, reason: t.exit.reason, ...(t.exit.message ? { message: t.exit.message } : {}), ...(t.startedAt ? { startedAt: t.startedAt } : {}), finishedAt: formatTimestamp(t.exit.finishedAt), ...(t.containerID ? { containerID: t.containerID } : {}) });
    if (s.running) st.state = { running: { startedAt: s.startedAt } } as never;
    else if (s.waitingReason) st.state = { waiting: { reason: s.waitingReason, ...(s.waitingMessage ? { message: s.waitingMessage } : {}) } };
    else if (s.terminated) st.state = { terminated: term(s.terminated) } as never;
    else st.state = { waiting: { reason: isInit || this.initComplete() ? 'ContainerCreating' : 'PodInitializing' } };
    const last = s.running || s.waitingReason ? (s.terminated ?? s.lastExit) : s.lastExit;
    if (last) st.lastState = { terminated: term(last) } as never;
    return st;
  }

  private initComplete(): boolean {
    return (this.pod.spec?.initContainers ?? []).every((c) => this.initDone.has(c.name));
  }

  private phase(): string {
    const containers = this.pod.spec?.containers ?? [];
    const policy = this.pod.spec?.restartPolicy ?? 'Always';
    const states = containers.map((c) => this.state(c.name));
    const initFailed = (this.pod.spec?.initContainers ?? []).some((c) => {
      const t = this.state(c.name).terminated;
      return t && t.exit.exitCode !== 0 && policy === 'Never';
    });
    if (initFailed) return 'Failed';
    if (!this.initComplete()) return 'Pending';
    if (states.some((s) => s.running)) return 'Running';
    if (states.length && states.every((s) => s.terminated)) {
      const ok = states.every((s) => s.terminated!.exit.exitCode === 0);
      if (policy === 'Never') return ok ? 'Succeeded' : 'Failed';
      if (policy === 'OnFailure' && ok) return 'Succeeded';
      return 'Running';
    }
    if (states.some((s) => s.terminated || s.lastExit)) return 'Running';
    return 'Pending';
  }

  private async writeStatus(): Promise<void> {
    if (!this.statusTarget) return;
    const prev = this.pod.status ?? {};
    const phase = this.phase();
    const containers = this.pod.spec?.containers ?? [];
    const statuses = containers.map((c) => this.containerStatus(c, false));
    const initStatuses = (this.pod.spec?.initContainers ?? []).map((c) => this.containerStatus(c, true));
    const allReady = statuses.length > 0 && statuses.every((s) => s.ready);
    const cond = (type: string, ok: boolean, reason?: string): V1PodCondition => {
      const old = prev.conditions?.find((c) => c.type === type);
      const status = ok ? 'True' : 'False';
      return { type, status, lastProbeTime: null as never, lastTransitionTime: (old?.status === status ? old.lastTransitionTime : formatTimestamp()) as never, ...(ok || !reason ? {} : { reason }) };
    };
    const status: V1PodStatus = {
      phase,
      conditions: [
        cond('PodReadyToStartContainers', this.prepared),
        cond('Initialized', this.initComplete(), 'ContainersNotInitialized'),
        cond('Ready', allReady && phase === 'Running', phase === 'Succeeded' ? 'PodCompleted' : 'ContainersNotReady'),
        cond('ContainersReady', allReady, phase === 'Succeeded' ? 'PodCompleted' : 'ContainersNotReady'),
        cond('PodScheduled', true),
      ],
      hostIP: this.host.nodeIP,
      hostIPs: [{ ip: this.host.nodeIP }],
      ...(this.podIP ? { podIP: this.podIP, podIPs: [{ ip: this.podIP }] } : {}),
      ...(this.startTime ? { startTime: this.startTime as never } : {}),
      containerStatuses: statuses,
      ...(initStatuses.length ? { initContainerStatuses: initStatuses } : {}),
      qosClass: qosClass(this.pod),
    };
    const text = JSON.stringify(status);
    if (text === this.lastStatus) return;
    try {
      await this.host.client.patch({ group: '', version: 'v1', resource: 'pods', kind: 'Pod', namespaced: true }, this.statusTarget.namespace, this.statusTarget.name, { status }, { type: 'merge', subresource: 'status' });
      this.lastStatus = text;
      this.lastConditions = status.conditions ?? [];
    } catch (err) {
      if (isNotFound(err)) return;
      throw err;
    }
  }

  /** Writes status now (a static pod's mirror just appeared). */
  statusChanged(): void {
    this.lastStatus = '';
    this.requestSync();
  }

  /**
   * The API's copy of the pod as an informer delivered it: a condition whose status differs
   * from what this kubelet last wrote was changed by someone else — the node lifecycle
   * controller marks a node's pods not Ready while the node is, e.g. through an API server
   * restart — so it is written again, as kube's status manager reconciles its cache with the API.
   */
  reconcileStatus(apiPod: V1Pod): void {
    if (!this.lastStatus || !this.statusTarget) return;
    const seen = apiPod.status?.conditions ?? [];
    if (this.lastConditions.some((c) => seen.find((s) => s.type === c.type)?.status !== c.status)) this.statusChanged();
  }
}

export function qosClass(pod: V1Pod): string {
  const cs = pod.spec?.containers ?? [];
  const any = cs.some((c) => Object.keys(c.resources?.requests ?? {}).length || Object.keys(c.resources?.limits ?? {}).length);
  if (!any) return 'BestEffort';
  const guaranteed = cs.every((c) => ['cpu', 'memory'].every((r) => c.resources?.limits?.[r] !== undefined && (c.resources?.requests?.[r] === undefined || String(c.resources.requests[r]) === String(c.resources.limits[r]))));
  return guaranteed ? 'Guaranteed' : 'Burstable';
}
