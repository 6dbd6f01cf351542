/**
 * The kubelet of one node: registers the Node, renews its Lease, runs the pods bound to it and
 * the static pods on its disk, and reports their status. It learns about pods from whoever
 * hosts it (`podChanged`/`podDeleted`, from a node host's shared informer or its own), so a
 * process with thousands of kubelets opens one watch, not thousands.
 *
 * `stop()` is what stopping a real kubelet does: heartbeats and syncing stop, containers keep
 * running. `reboot()` stops everything, goes NotReady, waits, re-reads kubelet.conf and starts.
 * A pod reboots its node from inside the cluster by a request file under the node root, which
 * the kubelet honours as a host honours `systemctl reboot` (reboot-watcher.ts). Every boot has
 * its own bootID, as the Node's `status.nodeInfo.bootID` shows.
 */
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import type { Logger } from 'pino';
import type { V1Node, V1Pod } from '@kubernetes/client-node';
import { errorText, isAlreadyExists, isConflict, isNotFound, type ApiClient } from '../../runtime/client.ts';
import type { EventSink } from '../../runtime/context.ts';
import { resources } from '../../runtime/resources.ts';
import type { ContainerRuntime } from '../container-runtime.ts';
import { defaultKubeletConfig, readKubeletConfig, type KubeletConfig } from './kubelet-config.ts';
import { kubeletUnitName, readKubeletUnit } from './kubelet-unit.ts';
import { newNode, nodeLabels, nodeStatus, type NodeIdentity } from './node-object.ts';
import { PodIpAllocator } from './pod-ip.ts';
import { PodWorker, type WorkerHost } from './pod-worker.ts';
import { scanStaticPods, staticPodFullName, type StaticPod } from './static-pods.ts';
import { Loops } from './loops.ts';
import { RebootWatcher } from './reboot-watcher.ts';
import { startLogServer, type LogServer } from '../log-server.ts';
import { LeaseRenewals, type NodeLeases, type Renewal } from '../heartbeat/lease-renewals.ts';
import type { NodeLease } from '../heartbeat/node-lease.ts';

export interface KubeletTimings {
  leaseRenewMs: number;
  statusCheckMs: number;
  staticPodPollMs: number;
  volumeRefreshMs: number;
  backoffInitialMs: number;
  backoffMaxMs: number;
  backoffResetMs: number;
  registerRetryMs: number;
  /** How often the node root is looked at for a reboot request (runtime/node-reboot.ts). */
  rebootRequestPollMs: number;
  /** How long a rebooting node stays down. */
  bootDelayMs: number;
}

export const defaultTimings: KubeletTimings = {
  leaseRenewMs: 10_000,
  statusCheckMs: 10_000,
  staticPodPollMs: 2_000,
  volumeRefreshMs: 30_000,
  backoffInitialMs: 10_000,
  backoffMaxMs: 300_000,
  backoffResetMs: 600_000,
  registerRetryMs: 2_000,
  rebootRequestPollMs: 1_000,
  bootDelayMs: 3_000,
};

export interface KubeletOptions extends Omit<NodeIdentity, 'kubeletPort' | 'taints' | 'roles'> {
  readonly nodeDir: string;
  /**
   * Roles (`node-role.kubernetes.io/<role>` labels) given by the host, for nodes with no root
   * to read a unit from (simulated nodes). A booted node's roles come from its kubelet unit's
   * `--node-labels` (kubelet-unit.ts), as a real kubelet's come from its flags.
   */
  readonly roles?: readonly string[];
  /**
   * Keys of the unit's `--register-with-taints` taints to leave off at registration. OpenShift
   * registers every master with the master NoSchedule taint, and its machine-config node
   * controller removes it when the Scheduler config makes masters schedulable; a datacenter
   * that knows the same from its shape drops it here instead.
   */
  readonly omitRegisterTaints?: readonly string[];
  readonly client: ApiClient;
  /**
   * Lease renewals and node status go through this client when given, as kube's kubelet sends
   * them through its own heartbeat client: pod traffic queued on `client` (thousands of
   * kubelets share one in a node host) must not delay a heartbeat past the node's grace period.
   */
  readonly heartbeatClient?: ApiClient;
  readonly recorder: EventSink;
  readonly logger: Logger;
  readonly runtimes: readonly ContainerRuntime[];
  readonly taints?: NodeIdentity['taints'];
  readonly kubeletPort?: number;
  readonly caCert?: string;
  readonly kubernetesService: () => { host: string; port: number } | undefined;
  /** The Node as the host's informer last saw it (for podCIDR and conditions set by others). */
  readonly currentNode: () => V1Node | undefined;
  /** Pods bound to this node, from the host's informer. */
  readonly boundPods: () => V1Pod[];
  readonly timings?: Partial<KubeletTimings>;
  /** Whether to watch the manifests directory (a simulated worker without one need not poll fast). */
  readonly staticPods?: boolean;
  /** Serve container logs on nodeIP:kubeletPort (what `kubectl logs` reaches through the API server). */
  readonly logServer?: { tls: { cert: string; key: string }; token: string };
  /**
   * Who renews the node's Lease: a node host's shared renewals (on their own thread, see
   * heartbeat/heartbeat-thread.ts). Without one the kubelet renews through `heartbeatClient`.
   */
  readonly leases?: NodeLeases;
  /** Told about each Lease renewal's duration when the kubelet renews itself (benchmarks). */
  readonly onHeartbeat?: (r: Renewal) => void;
}

interface StaticEntry {
  sp: StaticPod;
  worker: PodWorker;
  /** When its mirror pod was last seen deleted: the mirror is recreated only after a pause. */
  mirrorGoneAt?: number;
}

/**
 * `kubectl delete` waits for the name to disappear, checking its cache after a 100 ms sync poll;
 * a mirror pod back sooner than that looks as if it never left, and kubectl waits for its timeout.
 */
const MIRROR_RECREATE_DELAY_MS = 1000;

export interface KubeletStatus {
  registered: boolean;
  ready: boolean;
  running: boolean;
  pods: number;
}

export class Kubelet {
  readonly nodeName: string;
  private readonly o: KubeletOptions;
  private readonly t: KubeletTimings;
  /** Who the node is: the host's facts, and the labels and taints of the kubelet unit read at the last start. */
  private identity: NodeIdentity;
  private config: KubeletConfig = defaultKubeletConfig;
  private readonly workers = new Map<string, PodWorker>();
  /** Static pods by full name (`<namespace>/<name>-<node>`). */
  private readonly statics = new Map<string, StaticEntry>();
  private readonly restartCounts = new Map<string, number>();
  private readonly ipam: PodIpAllocator;
  private readonly host: WorkerHost;
  private readonly loops = new Loops((err) => this.o.logger.debug({ node: this.nodeName, err: (err as Error).message }, 'kubelet loop step failed'));
  private running = false;
  /** How many times stop() has been called: a reboot in progress checks it before booting again. */
  private stops = 0;
  private registered = false;
  private ready = { ok: true, reason: 'KubeletReady', message: 'kubelet is posting ready status' };
  private lastStatusAt = 0;
  /** This boot's id, set as the node boots (the kubelet's first start, and each reboot's). */
  private bootID = '';
  /** False from the moment the node is down until it boots: the next start is a boot. */
  private booted = false;
  /** The reboot under way: a second request while it runs joins it. */
  private rebooting: Promise<void> | undefined;
  private readonly rebootRequests: RebootWatcher;
  private staticErrors = '';
  private logs: LogServer | undefined;
  private nodeUid: string | undefined;
  private readonly leases: NodeLeases;
  /** What the Lease renewals were last told, while they run. */
  private leaseSet: NodeLease | undefined;
  /** The podCIDR the pods were last resynced for. */
  private podCIDRSeen: string | undefined;

  constructor(o: KubeletOptions) {
    this.o = o;
    this.nodeName = o.nodeName;
    this.t = { ...defaultTimings, ...(o.timings ?? {}) };
    this.identity = { ...o, roles: o.roles ?? [], taints: o.taints ?? [], kubeletPort: o.kubeletPort ?? 10250 };
    this.ipam = new PodIpAllocator(o.nodeDir);
    this.leases = o.leases ?? new LeaseRenewals(this.heartbeats, o.onHeartbeat);
    this.rebootRequests = new RebootWatcher({
      nodeRoot: join(o.nodeDir, 'root'),
      reboot: (reason) => this.reboot(this.t.bootDelayMs, reason),
      onError: (err) => this.o.logger.warn({ node: this.nodeName, err: (err as Error).message }, 'requested reboot failed; the request stays'),
    });
    const self = this;
    this.host = {
      nodeName: o.nodeName,
      nodeIP: o.nodeIP,
      nodeDir: o.nodeDir,
      client: o.client,
      recorder: o.recorder,
      logger: o.logger,
      runtimes: o.runtimes,
      ipam: this.ipam,
      caCert: o.caCert,
      backoff: { initialMs: this.t.backoffInitialMs, maxMs: this.t.backoffMaxMs, resetAfterMs: this.t.backoffResetMs },
      podCIDR: () => o.currentNode()?.spec?.podCIDR,
      kubernetesService: o.kubernetesService,
      active: () => self.running,
      restartCounts: this.restartCounts,
    };
  }

  private get heartbeats(): ApiClient {
    return this.o.heartbeatClient ?? this.o.client;
  }

  private get configPath(): string {
    return join(this.o.nodeDir, 'root', 'etc', 'kubernetes', 'kubelet.conf');
  }

  private nodeRef() {
    return { apiVersion: 'v1', kind: 'Node', metadata: { name: this.nodeName, uid: this.o.currentNode()?.metadata?.uid } };
  }

  /**
   * The labels and registration taints of the kubelet unit (its `--node-labels` and
   * `--register-with-taints`), read at every start as a kubelet gets its flags when it starts.
   * The host's own labels and taints stay; the unit's labels win over the host's.
   */
  private loadUnit(): void {
    const unit = readKubeletUnit(join(this.o.nodeDir, 'root'));
    if (unit.state !== 'found') {
      this.o.logger.info({ node: this.nodeName, unit: unit.files[0] }, `no ${kubeletUnitName} in the node root (${unit.state}): the Node has no role labels or registration taints from it`);
    }
    for (const problem of unit.problems) this.o.logger.warn({ node: this.nodeName, unit: unit.files }, `${kubeletUnitName}: ${problem}`);
    const omit = new Set(this.o.omitRegisterTaints ?? []);
    this.identity = {
      ...this.identity,
      labels: { ...(this.o.labels ?? {}), ...unit.labels },
      taints: [...(this.o.taints ?? []), ...unit.taints.filter((t) => !omit.has(t.key))],
    };
  }

  /**
   * A kubelet that starts again on a registered Node (a restart or a reboot) puts its labels
   * back, as one re-registering does; taints are the registration's only, so those others
   * changed since (an operator, `kubectl taint`) stay as they are.
   */
  private async applyLabels(): Promise<void> {
    // Written whatever the cache shows: it may not have seen a label removed a moment ago, and a
    // start is rare enough for one patch.
    await this.o.client.patch<V1Node>(resources.nodes, undefined, this.nodeName, { metadata: { labels: nodeLabels(this.identity) } });
  }

  private loadConfig(): void {
    try {
      this.config = readKubeletConfig(this.configPath);
    } catch (err) {
      this.o.logger.warn({ node: this.nodeName, err: (err as Error).message }, 'keeping the last good kubelet configuration');
      this.o.recorder.event(this.nodeRef(), 'Warning', 'InvalidKubeletConfig', (err as Error).message);
    }
  }

  status(): KubeletStatus {
    const node = this.o.currentNode();
    const ready = node?.status?.conditions?.find((c) => c.type === 'Ready')?.status === 'True';
    return { registered: this.registered, ready: this.running && ready, running: this.running, pods: this.workers.size + this.statics.size };
  }

  async start(): Promise<void> {
    if (this.running) return;
    this.running = true;
    if (!this.booted) this.boot();
    this.loadConfig();
    this.loadUnit();
    this.ready = { ok: true, reason: 'KubeletReady', message: 'kubelet is posting ready status' };
    const jitter = (ms: number): number => Math.floor(ms * (0.5 + Math.random() * 0.5));
    this.every(this.t.staticPodPollMs, () => this.syncStaticPods(), 0);
    // After a reboot the Node must show the re-read configuration (and Ready) at once.
    if (this.registered) {
      void this.postStatus().catch(() => {});
      void this.applyLabels().catch((err: unknown) => this.o.logger.warn({ node: this.nodeName, err: (err as Error).message }, 'cannot put the node labels back'));
      this.renewLeases();
    } else void this.register();
    this.every(this.t.statusCheckMs, () => this.checkStatus(), jitter(this.t.statusCheckMs));
    this.every(this.t.volumeRefreshMs, () => this.refreshVolumes(), jitter(this.t.volumeRefreshMs));
    this.every(this.t.rebootRequestPollMs, () => this.rebootRequests.check(), this.t.rebootRequestPollMs);
    for (const w of [...this.workers.values(), ...[...this.statics.values()].map((s) => s.worker)]) w.requestSync();
    this.resyncPods();
    if (this.o.logServer) {
      try {
        this.logs = await startLogServer({ host: this.o.nodeIP, port: this.identity.kubeletPort, tls: this.o.logServer.tls, token: this.o.logServer.token, nodeDir: this.o.nodeDir });
      } catch (err) {
        this.o.logger.warn({ node: this.nodeName, err: (err as Error).message }, 'cannot serve container logs');
      }
    }
  }

  /** Like stopping the kubelet service: no heartbeats, no syncing; containers keep running. */
  async stop(): Promise<void> {
    this.stops++;
    this.running = false;
    this.loops.stop();
    this.leases.delete(this.nodeName);
    this.leaseSet = undefined;
    await this.logs?.close();
    this.logs = undefined;
  }

  /** Stops every pod, as shutting the node down does: regular pods first, then static ones. */
  async shutdown(): Promise<void> {
    await this.stop();
    await this.haltPods('regular');
    await this.haltPods('static');
  }

  /**
   * One phase of a graceful node shutdown. As kube's graceful node shutdown stops critical pods
   * last, regular pods stop while the control plane (static pods) still runs, so an operator
   * scaled down or stopped can still release its Lease and write its last status.
   */
  async haltPods(kind: 'regular' | 'static'): Promise<void> {
    const grace = (w: PodWorker): number => (w.pod.spec?.terminationGracePeriodSeconds ?? 30) * 1000;
    const workers = kind === 'regular' ? [...this.workers.values()] : [...this.statics.values()].map((s) => s.worker);
    await Promise.all(workers.map((w) => w.halt(grace(w))));
    if (kind === 'regular') this.workers.clear();
    else this.statics.clear();
  }

  /**
   * Reboots the node: `shipyard node reboot`, or a request from a pod (with its reason). One
   * asked for while a reboot is under way joins it rather than rebooting twice.
   */
  reboot(bootDelayMs = this.t.bootDelayMs, reason?: string): Promise<void> {
    this.rebooting ??= this.rebootOnce(bootDelayMs, reason).finally(() => {
      this.rebooting = undefined;
    });
    return this.rebooting;
  }

  private async rebootOnce(bootDelayMs: number, reason: string | undefined): Promise<void> {
    this.o.recorder.event(this.nodeRef(), 'Normal', 'Rebooted', `Node ${this.nodeName} is rebooting${reason ? `: ${reason}` : ''}`);
    if (reason) this.o.logger.info({ node: this.nodeName, reason }, 'rebooting on request');
    this.ready = { ok: false, reason: 'KubeletNotReady', message: 'node is rebooting' };
    await this.postStatus().catch(() => {});
    await this.shutdown();
    this.booted = false;
    const stops = this.stops;
    await new Promise((r) => setTimeout(r, bootDelayMs));
    // Stopped while it was down (the datacenter stopping, the node removed): it stays down,
    // or it would start pods after the stop that was meant to end them.
    if (this.stops !== stops) return;
    await this.start();
  }

  /**
   * The node boots: a new bootID, and the reboot requests written before now are satisfied
   * (a real host's `/run` starts empty).
   */
  private boot(): void {
    this.booted = true;
    this.bootID = randomUUID();
    try {
      this.rebootRequests.booted();
    } catch (err) {
      this.o.logger.warn({ node: this.nodeName, err: (err as Error).message }, 'cannot clear the reboot request');
    }
  }

  private every(ms: number, fn: () => Promise<void> | void, firstDelay: number): void {
    this.loops.every(ms, () => (this.running ? fn() : undefined), firstDelay);
  }

  private async register(): Promise<void> {
    while (this.running && !this.registered) {
      try {
        const created = await this.o.client.create(resources.nodes, newNode(this.identity, this.config, this.bootID));
        this.nodeUid = created.metadata?.uid;
        this.registered = true;
        this.o.recorder.event(this.nodeRef(), 'Normal', 'Starting', 'Starting kubelet.');
        this.o.recorder.event(this.nodeRef(), 'Normal', 'NodeReady', `Node ${this.nodeName} status is now: NodeReady`);
      } catch (err) {
        if (isAlreadyExists(err)) {
          // Re-registration: own labels and status, but never the taints others manage.
          const patched = await this.o.client.patch<V1Node>(resources.nodes, undefined, this.nodeName, { metadata: { labels: nodeLabels(this.identity) }, spec: this.identity.providerID ? { providerID: this.identity.providerID } : {} });
          this.nodeUid = patched.metadata?.uid;
          this.registered = true;
          await this.postStatus();
          this.o.recorder.event(this.nodeRef(), 'Normal', 'Starting', 'Starting kubelet.');
        } else {
          await new Promise((r) => setTimeout(r, this.t.registerRetryMs));
        }
      }
    }
    if (this.registered) this.renewLeases();
  }

  /**
   * Has the Lease renewed while the kubelet runs (from now, and each interval after), owned by
   * the Node: the informer may not have seen a Node registered a moment ago, hence the uid kept
   * from registration. Called again whenever what the renewals write may have changed.
   */
  private renewLeases(): void {
    if (!this.running || !this.registered) return;
    const lease: NodeLease = {
      nodeName: this.nodeName,
      nodeUid: this.o.currentNode()?.metadata?.uid ?? this.nodeUid,
      durationSeconds: this.config.nodeLeaseDurationSeconds,
      renewMs: this.t.leaseRenewMs,
    };
    const last = this.leaseSet;
    if (last && last.nodeUid === lease.nodeUid && last.durationSeconds === lease.durationSeconds && last.renewMs === lease.renewMs) return;
    this.leaseSet = lease;
    this.leases.set(lease);
  }

  /** Posts status when something differs from what the Node shows, or on the report interval. */
  private async checkStatus(): Promise<void> {
    if (!this.registered) return;
    const node = this.o.currentNode();
    const ready = node?.status?.conditions?.find((c) => c.type === 'Ready');
    const wantReady = this.ready.ok ? 'True' : 'False';
    const cfgPods = String(this.config.maxPods);
    const stale = Date.now() - this.lastStatusAt > this.config.nodeStatusReportFrequencyMs;
    if (!node || ready?.status !== wantReady || node.status?.allocatable?.pods !== cfgPods || stale) await this.postStatus();
  }

  /** The node informer saw our Node change: someone may have marked it Unknown. */
  nodeChanged(): void {
    if (!this.running || !this.registered) return;
    this.renewLeases();
    const node = this.o.currentNode();
    const ready = node?.status?.conditions?.find((c) => c.type === 'Ready');
    if (ready && ready.status !== (this.ready.ok ? 'True' : 'False')) void this.postStatus().catch(() => {});
    // A podCIDR just assigned lets waiting pods start; nothing else on the Node concerns them.
    // Resyncing every pod on every change (each status report) stalled a node host of 3,500
    // kubelets for over a second whenever their five-minute reports came in together.
    const podCIDR = node?.spec?.podCIDR;
    if (podCIDR === this.podCIDRSeen) return;
    this.podCIDRSeen = podCIDR;
    for (const w of this.workers.values()) if (!w.pod.spec?.hostNetwork) w.requestSync();
  }

  private async postStatus(): Promise<void> {
    const status = nodeStatus(this.identity, this.config, this.ready, this.bootID, this.o.currentNode());
    await this.heartbeats.patch(resources.nodes, undefined, this.nodeName, { status }, { type: 'strategic', subresource: 'status' });
    this.lastStatusAt = Date.now();
  }

  // ---- pods from the API ----

  podChanged(pod: V1Pod): void {
    const uid = pod.metadata?.uid;
    if (!uid) return;
    if (pod.metadata?.annotations?.['kubernetes.io/config.mirror']) {
      if (pod.metadata.deletionTimestamp) this.replaceMirror(pod);
      else {
        for (const s of this.statics.values()) {
          const target = s.worker.statusTarget;
          if (target && target.name === pod.metadata.name && target.namespace === pod.metadata.namespace) s.worker.reconcileStatus(pod);
        }
      }
      return;
    }
    let w = this.workers.get(uid);
    if (!w || w.isStopped()) {
      if (pod.status?.phase === 'Succeeded' || pod.status?.phase === 'Failed') {
        if (!pod.metadata?.deletionTimestamp) return;
      }
      if (!this.admit(pod)) return;
      w = new PodWorker(pod, this.host);
      this.workers.set(uid, w);
    }
    if (this.running) {
      w.update(pod);
      w.reconcileStatus(pod);
    } else w.pod = pod;
  }

  /**
   * `kubectl delete` of a mirror pod only marks it (it is bound to a live node), and no worker
   * runs for a mirror to finish that deletion; the kubelet does, then recreates the mirror while
   * the static pod keeps running, as a real kubelet does.
   */
  private replaceMirror(pod: V1Pod): void {
    const ns = pod.metadata!.namespace!;
    const name = pod.metadata!.name!;
    for (const s of this.statics.values()) {
      const own = s.sp.pod.metadata!;
      if (own.namespace !== ns || own.name !== name) continue;
      s.worker.statusTarget = undefined;
      s.mirrorGoneAt = Date.now();
    }
    void this.o.client.deleteIfExists(resources.pods, ns, name, { gracePeriodSeconds: 0, preconditions: { uid: pod.metadata!.uid! } }).catch(() => {});
  }

  podDeleted(pod: V1Pod): void {
    const uid = pod.metadata?.uid;
    if (!uid) return;
    const w = this.workers.get(uid);
    if (pod.metadata?.annotations?.['kubernetes.io/config.mirror']) {
      // A deleted mirror pod is recreated: the static pod is still on disk.
      for (const s of this.statics.values()) {
        const target = s.worker.statusTarget;
        if (target?.name !== pod.metadata?.name || target?.namespace !== pod.metadata?.namespace) continue;
        // The mirror of the pod this one replaced, deleted by the kubelet itself: not ours.
        if (pod.metadata?.annotations?.['kubernetes.io/config.mirror'] !== s.sp.hash) continue;
        s.worker.statusTarget = undefined;
        s.mirrorGoneAt = Date.now();
      }
      return;
    }
    if (!w) return;
    this.workers.delete(uid);
    void w.forget();
  }

  private resyncPods(): void {
    for (const p of this.o.boundPods()) this.podChanged(p);
  }

  /** The kubelet's admission: pods beyond maxPods or allocatable cpu/memory fail. */
  private admit(pod: V1Pod): boolean {
    if (pod.metadata?.deletionTimestamp || pod.status?.phase === 'Running') return true;
    const active = [...this.workers.values()].filter((w) => !w.isStopped()).length + this.statics.size;
    if (active >= this.config.maxPods) {
      const message = `Node didn't have enough resource: pods, requested: 1, used: ${active}, capacity: ${this.config.maxPods}`;
      this.o.recorder.event({ apiVersion: 'v1', kind: 'Pod', metadata: pod.metadata }, 'Warning', 'OutOfpods', message);
      void this.o.client
        .patch(resources.pods, pod.metadata!.namespace!, pod.metadata!.name!, { status: { phase: 'Failed', reason: 'OutOfpods', message } }, { type: 'merge', subresource: 'status' })
        .catch(() => {});
      return false;
    }
    return true;
  }

  private async refreshVolumes(): Promise<void> {
    for (const w of this.workers.values()) await w.refreshVolumes().catch(() => {});
  }

  // ---- static pods ----

  private async syncStaticPods(): Promise<void> {
    if (this.o.staticPods === false) return;
    const { pods, errors } = scanStaticPods(join(this.o.nodeDir, 'root', 'etc', 'kubernetes', 'manifests'), this.nodeName);
    const errText = errors.join('\n');
    if (errText && errText !== this.staticErrors) for (const e of errors) this.o.logger.warn({ node: this.nodeName }, `static pod manifest skipped: ${e}`);
    this.staticErrors = errText;
    const wanted = new Map(pods.map((sp) => [staticPodFullName(sp), sp]));
    // Every pod whose manifest is gone or changed stops (its grace period honoured) before any
    // replacement starts, as the kubelet holds a static pod's start until the previous pod of
    // its full name has terminated: they bind the same host port, and an installer that
    // deletes a manifest and then writes the next revision's (or writes it under another
    // file name) replaces the pod once, whichever scan sees which step.
    const leaving = [...this.statics].filter(([key, cur]) => wanted.get(key)?.hash !== cur.sp.hash);
    await Promise.all(
      leaving.map(async ([key, cur]) => {
        this.statics.delete(key);
        await cur.worker.terminate((cur.sp.pod.spec?.terminationGracePeriodSeconds ?? 30) * 1000, true);
        // Its mirror now belongs to the replacement, if any: nothing of the old pod writes to it.
        cur.worker.statusTarget = undefined;
        // At once: a graceful deletion would wait for a kubelet to finish it, and no worker runs for a mirror.
        if (!wanted.has(key) && this.registered) await this.o.client.deleteIfExists(resources.pods, cur.sp.pod.metadata!.namespace!, cur.sp.pod.metadata!.name!, { gracePeriodSeconds: 0 }).catch(() => {});
      }),
    );
    for (const [key, sp] of wanted) {
      let entry = this.statics.get(key);
      if (entry) entry.sp = sp;
      else {
        entry = { sp, worker: new PodWorker(sp.pod, this.host, { isStatic: true }) };
        this.statics.set(key, entry);
        entry.worker.requestSync();
      }
      // One mirror the API refuses (its namespace not created yet, as the bootstrap API
      // server's before the install) must not hold back the others': each is retried next scan.
      await this.ensureMirror(entry).catch((err: unknown) => this.o.logger.debug({ node: this.nodeName, pod: key, err: errorText(err) }, 'mirror pod not created yet; retrying'));
    }
    if (this.registered) await this.deleteOrphanedMirrors(wanted);
  }

  /**
   * Mirror pods on this node whose static pod is gone, as kube's kubelet cleans them up: the
   * deletion when the pod left may have failed, as it does when that pod was the API server
   * itself (a bootstrap server replaced by the operator's revision), and would otherwise show
   * a stopped pod Running forever.
   */
  private async deleteOrphanedMirrors(wanted: ReadonlyMap<string, unknown>): Promise<void> {
    for (const p of this.o.boundPods()) {
      if (!p.metadata?.annotations?.['kubernetes.io/config.mirror'] || p.metadata.deletionTimestamp) continue;
      if (wanted.has(`${p.metadata.namespace}/${p.metadata.name}`)) continue;
      await this.deleteMirror(p).catch((err: unknown) => this.o.logger.debug({ node: this.nodeName, pod: p.metadata?.name, err: errorText(err) }, 'orphaned mirror pod not deleted yet; retrying'));
    }
  }

  private async ensureMirror(entry: StaticEntry): Promise<void> {
    if (!this.registered) return;
    const { pod } = entry.sp;
    const ns = pod.metadata!.namespace!;
    const name = pod.metadata!.name!;
    if (entry.worker.statusTarget) return;
    // The owner reference needs the Node's uid, which the informer may not have seen yet.
    const node = this.o.currentNode() ?? (await this.o.client.get<V1Node>(resources.nodes, undefined, this.nodeName).catch(() => undefined));
    let existing: V1Pod | undefined;
    try {
      existing = await this.o.client.get<V1Pod>(resources.pods, ns, name);
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
    if (existing?.metadata?.deletionTimestamp) {
      await this.deleteMirror(existing);
      entry.mirrorGoneAt = Date.now();
      return;
    }
    if (existing && existing.metadata?.annotations?.['kubernetes.io/config.mirror'] !== entry.sp.hash) {
      // The mirror of a pod this one replaced: its successor's goes in at once, so the API shows
      // the new pod (its labels: the revision an operator waits for) as soon as it runs.
      await this.deleteMirror(existing);
      existing = undefined;
    }
    if (!existing) {
      if (entry.mirrorGoneAt !== undefined && Date.now() - entry.mirrorGoneAt < MIRROR_RECREATE_DELAY_MS) return;
      const { uid: _uid, ...meta } = pod.metadata!;
      void _uid;
      try {
        await this.o.client.create(resources.pods, {
          ...pod,
          apiVersion: 'v1',
          kind: 'Pod',
          metadata: { ...meta, ...(node?.metadata?.uid ? { ownerReferences: [{ apiVersion: 'v1', kind: 'Node', name: this.nodeName, uid: node.metadata.uid, controller: true }] } : {}) },
          status: undefined,
        } as V1Pod);
      } catch (err) {
        if (!isAlreadyExists(err)) throw err;
      }
    }
    entry.worker.statusTarget = { namespace: ns, name };
    entry.worker.statusChanged();
  }

  private async deleteMirror(mirror: V1Pod): Promise<void> {
    await this.o.client.deleteIfExists(resources.pods, mirror.metadata!.namespace!, mirror.metadata!.name!, { gracePeriodSeconds: 0, preconditions: { uid: mirror.metadata!.uid! } }).catch((err: unknown) => {
      if (!isConflict(err)) throw err;
    });
  }
}

export function createKubelet(o: KubeletOptions): Kubelet {
  return new Kubelet(o);
}
