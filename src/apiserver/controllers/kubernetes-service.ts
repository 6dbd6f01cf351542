/**
 * The `default/kubernetes` Service and its Endpoints, kept by the API servers themselves, as
 * kube-apiserver's lease endpoint reconciler does: in-cluster clients reach the API through
 * this Service's ClusterIP (127.64.0.1), and its Endpoints list the replicas alive right now.
 *
 * Each replica renews a Lease `kube-system/apiserver-<hash of its address:port>` every
 * `intervalMs`; the Endpoints are the addresses of the replicas whose leases have not run out,
 * so a replica that dies drops out within a lease duration, and one that shuts down cleanly
 * takes itself out at once. Every replica computes the same answer from the same leases, so
 * they agree without electing anyone. A Service or Endpoints that someone deletes or edits is
 * put back on the next pass; passes run on the timer and when those objects change.
 */
import { createHash, randomUUID } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import { formatMicroTime } from '../../api/time.ts';
import { isAlreadyExists, isNotFound } from '../errors.ts';
import type { ResourceRegistry } from '../registry/registry.ts';
import type { KubeObject, ResourceDefinition } from '../registry/resource.ts';
import type { ObjectStore, WriteContext } from '../registry/store.ts';
import type { StoreEventSource } from './event-source.ts';

/** The default Service range and its first address, kept for this Service (ARCHITECTURE.md, "Addresses"). */
export const DEFAULT_SERVICE_CIDR = '127.64.0.0/16';
export const KUBERNETES_SERVICE_IP = '127.64.0.1';
export const IDENTITY_LABEL = 'apiserver.kubernetes.io/identity';
/** `<address>:<port>` of the replica holding the lease. */
export const ENDPOINT_ANNOTATION = 'apiserver.shipyard.io/endpoint';
const NAMESPACE = 'default';
const NAME = 'kubernetes';
const LEASE_NAMESPACE = 'kube-system';

export interface Replica {
  readonly ip: string;
  readonly port: number;
}

export interface KubernetesServiceOptions {
  readonly store: ObjectStore;
  readonly registry: ResourceRegistry;
  /** This replica, as clients should dial it. */
  readonly advertiseAddress: string;
  readonly port: number;
  /** The Service's ClusterIP: the first address of the Service range (default 127.64.0.1). */
  readonly serviceIP?: string;
  /** How often the lease is renewed and everything checked (default 10 s). */
  readonly intervalMs?: number;
  /** How long a lease outlives its last renewal (default 30 s). */
  readonly leaseDurationSeconds?: number;
  /** Changes to the Service, Endpoints or leases trigger a pass without waiting for the timer. */
  readonly events?: StoreEventSource;
  readonly now?: () => number;
  readonly onError?: (step: string, err: unknown) => void;
}

export function leaseName(address: string, port: number): string {
  return `apiserver-${createHash('sha256').update(`${address}:${port}`).digest('hex').slice(0, 16)}`;
}

/** The replicas whose leases are still current at `nowMs`. */
export function liveReplicas(leases: readonly KubeObject[], nowMs: number): Replica[] {
  const out: Replica[] = [];
  for (const l of leases) {
    if (l.metadata?.labels?.[IDENTITY_LABEL] !== 'kube-apiserver') continue;
    const m = /^(127\.\d{1,3}\.\d{1,3}\.\d{1,3}):(\d{1,5})$/.exec(l.metadata?.annotations?.[ENDPOINT_ANNOTATION] ?? '');
    const renewed = Date.parse(l.spec?.renewTime ?? '');
    const duration = Number(l.spec?.leaseDurationSeconds);
    if (!m || !Number.isFinite(renewed) || !(duration > 0) || l.metadata?.deletionTimestamp) continue;
    if (renewed + duration * 1000 <= nowMs) continue;
    out.push({ ip: m[1]!, port: Number(m[2]) });
  }
  return out;
}

export function desiredService(port: number, serviceIP = KUBERNETES_SERVICE_IP): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name: NAME, namespace: NAMESPACE, labels: { component: 'apiserver', provider: 'kubernetes' } },
    spec: { type: 'ClusterIP', clusterIP: serviceIP, clusterIPs: [serviceIP], sessionAffinity: 'None', ports: [{ name: 'https', port: 443, protocol: 'TCP', targetPort: port }] },
  };
}

/** One subset per port (replicas may listen on different ports), addresses sorted. */
export function desiredSubsets(replicas: readonly Replica[]): KubeObject[] {
  const byPort = new Map<number, Set<string>>();
  for (const r of replicas) byPort.set(r.port, (byPort.get(r.port) ?? new Set()).add(r.ip));
  return [...byPort.entries()]
    .sort(([a], [b]) => a - b)
    .map(([port, ips]) => ({ addresses: [...ips].sort().map((ip) => ({ ip })), ports: [{ name: 'https', port, protocol: 'TCP' }] }));
}

/**
 * What to do about the Service as found: nothing, fix it in place (returns the fixed copy), or
 * delete it so it is created again (its ClusterIP is immutable, so that is the only way back).
 * Its targetPort is the port of the replica that wrote it; one that another live replica listens
 * on (`livePorts`) is as good, or replicas on different ports would take turns rewriting it.
 */
export function repairService(current: KubeObject, port: number, serviceIP = KUBERNETES_SERVICE_IP, livePorts: readonly number[] = []): 'ok' | 'recreate' | KubeObject {
  const want = desiredService(port, serviceIP);
  if (current.spec?.clusterIP !== serviceIP) return 'recreate';
  const labels = current.metadata?.labels ?? {};
  const targetPort = current.spec?.ports?.[0]?.targetPort;
  if (typeof targetPort === 'number' && targetPort !== port && livePorts.includes(targetPort)) want.spec.ports[0].targetPort = targetPort;
  const portsOf = (ports: unknown): unknown =>
    Array.isArray(ports) ? ports.map((p: KubeObject) => ({ name: p?.name, port: p?.port, protocol: p?.protocol, targetPort: p?.targetPort, nodePort: p?.nodePort })) : ports;
  const fine =
    current.spec?.type === 'ClusterIP' &&
    isDeepStrictEqual(portsOf(current.spec?.ports), portsOf(want.spec.ports)) &&
    !(current.spec?.selector && Object.keys(current.spec.selector).length) &&
    Object.entries(want.metadata.labels as Record<string, string>).every(([k, v]) => labels[k] === v);
  if (fine) return 'ok';
  const fixed = structuredClone(current);
  fixed.metadata.labels = { ...labels, ...want.metadata.labels };
  fixed.spec.type = 'ClusterIP';
  fixed.spec.ports = want.spec.ports;
  delete fixed.spec.selector;
  delete fixed.spec.externalTrafficPolicy;
  delete fixed.metadata.resourceVersion;
  return fixed;
}

export class KubernetesServiceReconciler {
  private readonly o: KubernetesServiceOptions;
  private readonly wctx: WriteContext = { manager: 'kube-apiserver' };
  private readonly lease: string;
  private readonly holder: string;
  private readonly intervalMs: number;
  private readonly durationSeconds: number;
  private readonly now: () => number;
  private timer: NodeJS.Timeout | undefined;
  private poke: NodeJS.Timeout | undefined;
  private chain: Promise<void> = Promise.resolve();
  private stopped = false;

  constructor(o: KubernetesServiceOptions) {
    if (!/^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(o.advertiseAddress)) throw new Error(`advertise address ${o.advertiseAddress} is not a loopback address (127.0.0.0/8)`);
    this.o = o;
    this.lease = leaseName(o.advertiseAddress, o.port);
    this.holder = `${this.lease}_${randomUUID()}`;
    this.intervalMs = o.intervalMs ?? 10_000;
    this.durationSeconds = o.leaseDurationSeconds ?? 30;
    this.now = o.now ?? Date.now;
  }

  private def(group: string, resource: string): ResourceDefinition {
    return this.o.registry.lookup(group, 'v1', resource)!;
  }

  /** Starts the passes in the background: the first at once, then every `intervalMs`. */
  start(): void {
    const leasePrefix = `/registry/${this.def('coordination.k8s.io', 'leases').storagePrefix}/${LEASE_NAMESPACE}/apiserver-`;
    const ours = new Set([this.o.store.key(this.def('', 'services'), NAMESPACE, NAME), this.o.store.key(this.def('', 'endpoints'), NAMESPACE, NAME)]);
    const onEvent = (ev: { key: string }): void => {
      if (ours.has(ev.key) || ev.key.startsWith(leasePrefix)) this.schedulePoke();
    };
    this.o.events?.subscribe(this.def('', 'services').storagePrefix, onEvent);
    this.o.events?.subscribe(this.def('', 'endpoints').storagePrefix, onEvent);
    this.o.events?.subscribe(this.def('coordination.k8s.io', 'leases').storagePrefix, onEvent);
    const tick = (): void => {
      if (this.stopped) return;
      this.enqueue(async () => {
        await this.step('lease', () => this.renewLease());
        await this.reconcile();
      });
      this.timer = setTimeout(tick, this.intervalMs);
      this.timer.unref();
    };
    tick();
  }

  /** Stops the passes, then takes this replica out of the Endpoints and deletes its lease. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    clearTimeout(this.poke);
    await this.chain;
    await this.step('release lease', async () => {
      await this.o.store.delete(this.def('coordination.k8s.io', 'leases'), LEASE_NAMESPACE, this.lease, {}, this.wctx).catch((err: unknown) => {
        if (!isNotFound(err)) throw err;
      });
      await this.syncEndpoints(false);
    });
  }

  /** One full pass now (tests; the timer does the same). */
  syncOnce(): Promise<void> {
    return this.enqueue(async () => {
      await this.step('lease', () => this.renewLease());
      await this.reconcile();
    });
  }

  private schedulePoke(): void {
    if (this.stopped || this.poke) return;
    // Coalesces a burst of events (our own writes among them) into one pass.
    this.poke = setTimeout(() => {
      this.poke = undefined;
      if (!this.stopped) void this.enqueue(() => this.reconcile());
    }, 50);
    this.poke.unref();
  }

  /** Passes run one at a time, so two never race each other's writes. */
  private enqueue(fn: () => Promise<void>): Promise<void> {
    this.chain = this.chain.then(fn, fn);
    return this.chain;
  }

  private async step(name: string, fn: () => Promise<void>): Promise<void> {
    try {
      await fn();
    } catch (err) {
      this.o.onError?.(name, err);
    }
  }

  private async reconcile(): Promise<void> {
    let live: Replica[];
    try {
      live = liveReplicas(await this.leases(), this.now());
    } catch (err) {
      // Without the leases the Endpoints would list this replica alone: leave everything for the next pass.
      this.o.onError?.('leases', err);
      return;
    }
    await this.step('service', () => this.syncService(live.map((r) => r.port)));
    await this.step('endpoints', () => this.syncEndpoints(true, live));
  }

  private async leases(): Promise<KubeObject[]> {
    return (await this.o.store.list(this.def('coordination.k8s.io', 'leases'), LEASE_NAMESPACE)).items;
  }

  private async renewLease(): Promise<void> {
    const def = this.def('coordination.k8s.io', 'leases');
    const now = formatMicroTime(this.now());
    const fields = (l: KubeObject): KubeObject => {
      l.metadata.labels = { ...(l.metadata.labels ?? {}), [IDENTITY_LABEL]: 'kube-apiserver' };
      l.metadata.annotations = { ...(l.metadata.annotations ?? {}), [ENDPOINT_ANNOTATION]: `${this.o.advertiseAddress}:${this.o.port}` };
      const taken = l.spec?.holderIdentity !== this.holder;
      l.spec = { ...(l.spec ?? {}), holderIdentity: this.holder, leaseDurationSeconds: this.durationSeconds, renewTime: now, ...(taken ? { acquireTime: now } : {}) };
      delete l.metadata.resourceVersion;
      return l;
    };
    await this.o.store.guaranteedUpdate(def, LEASE_NAMESPACE, this.lease, this.wctx, fields, {
      createIfMissing: async () => fields({ apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name: this.lease, namespace: LEASE_NAMESPACE } }),
    });
  }

  private async syncService(livePorts: readonly number[]): Promise<void> {
    const def = this.def('', 'services');
    const kv = await this.o.store.getRaw(def, NAMESPACE, NAME);
    if (!kv) {
      await this.o.store.create(def, NAMESPACE, desiredService(this.o.port, this.o.serviceIP), this.wctx).catch((err: unknown) => {
        if (!isAlreadyExists(err)) throw err;
      });
      return;
    }
    const current = this.o.store.decode(def, kv);
    const action = repairService(current, this.o.port, this.o.serviceIP, livePorts);
    if (action === 'ok') return;
    if (action === 'recreate') {
      await this.o.store.delete(def, NAMESPACE, NAME, { preconditions: { uid: current.metadata.uid } }, this.wctx);
      await this.o.store.create(def, NAMESPACE, desiredService(this.o.port, this.o.serviceIP), this.wctx);
      return;
    }
    await this.o.store.guaranteedUpdate(def, NAMESPACE, NAME, this.wctx, (cur) => {
      const fixed = repairService(cur, this.o.port, this.o.serviceIP, livePorts);
      if (typeof fixed === 'object') return fixed;
      delete cur.metadata.resourceVersion;
      return cur;
    });
  }

  /** `includeSelf`: false while shutting down, when this replica must drop out at once. */
  private async syncEndpoints(includeSelf: boolean, live?: readonly Replica[]): Promise<void> {
    const self = `${this.o.advertiseAddress}:${this.o.port}`;
    const replicas = (live ?? liveReplicas(await this.leases(), this.now())).filter((r) => `${r.ip}:${r.port}` !== self);
    if (includeSelf) replicas.push({ ip: this.o.advertiseAddress, port: this.o.port });
    const subsets = desiredSubsets(replicas);
    const def = this.def('', 'endpoints');
    const labels = { 'endpointslice.kubernetes.io/skip-mirror': 'true' };
    const kv = await this.o.store.getRaw(def, NAMESPACE, NAME);
    if (!kv) {
      if (!subsets.length) return;
      await this.o.store.create(def, NAMESPACE, { apiVersion: 'v1', kind: 'Endpoints', metadata: { name: NAME, namespace: NAMESPACE, labels }, subsets }, this.wctx).catch((err: unknown) => {
        if (!isAlreadyExists(err)) throw err;
      });
      return;
    }
    const current = this.o.store.decode(def, kv);
    const labelsOk = Object.entries(labels).every(([k, v]) => current.metadata?.labels?.[k] === v);
    if (labelsOk && isDeepStrictEqual(current.subsets ?? [], subsets)) return;
    await this.o.store.guaranteedUpdate(def, NAMESPACE, NAME, this.wctx, (cur) => {
      cur.metadata.labels = { ...(cur.metadata.labels ?? {}), ...labels };
      cur.subsets = subsets;
      delete cur.metadata.resourceVersion;
      return cur;
    });
  }
}
