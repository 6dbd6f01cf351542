/**
 * # The simulated cloud
 *
 * A small IaaS for the local datacenter, shaped after EC2 so that a Machine API provider for it
 * reads like the AWS one. Nothing here runs a node itself: the cloud owns instances, addresses
 * and node roots, and calls injected hooks to start and stop the node a booted instance is
 * (the CLI wires them to the node host; `cloud/` may not import `node/`).
 *
 * **Instances.** An instance has an id (`i-` + 17 hex digits), a name (the Node's name, unique
 * among instances not terminated), a type (`catalog.ts`: CPU, memory, pods), a zone
 * (`local-a|b|c` in region `local`; the least used zone when none is asked for), a private IP
 * from 127.1.0.0/16 (`ip-allocator.ts`), a providerID `shipyard://local/<zone>/<id>`, tags, and
 * the user data it was launched with: an Ignition config, usually a pointer to the
 * machine-config server.
 *
 * **Lifecycle.**
 * ```
 *   run ──► pending ──► running ──stop──► stopping ──► stopped ──start──► pending …
 *              │           └─reboot (stays running: hooks.stop, then boot again)
 *              └─ Ignition or hooks.boot fails ──► failed (stateReason says why; start retries)
 *   terminate (from any state) ──► shutting-down ──► terminated (root deleted, IP released)
 * ```
 * Calls return at once with the transitional state, as EC2's do; the work runs in the
 * background, one operation at a time per instance (`settled(id)` waits for it). Stopping or
 * terminating an instance that is still booting cancels the boot, Ignition fetches included.
 *
 * **Booting** waits `bootDelayMs` (firmware time), creates `<dataDir>/nodes/<name>/root`, runs
 * Ignition's first boot on it (`first-boot.ts`: only once per root, as real Ignition runs only on
 * first boot; a pointer's `/config/<pool>` is fetched with retries while the config server comes
 * up), then calls `hooks.boot(instance, root)`. An Ignition error does not crash anything: the
 * instance goes to `failed` with the message.
 *
 * **Persistence.** `<dataDir>/cloud/state.json` (`state.ts`) holds every instance and the
 * address cursor. A new `createCloud` on the same directory sees the same instances; `resume()`
 * boots again those that were pending or running (Ignition does not rerun) and finishes stops
 * and terminations a restart interrupted. Terminated instances are kept for an hour, then
 * forgotten, as EC2 forgets them.
 *
 * The HTTP API over this engine is `server.ts` (token-protected, loopback only), its client
 * `cloudclient/client.ts`; `load-balancer.ts` is the TCP load balancer in front of the API servers.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import pino, { type Logger } from 'pino';
import { providerID, region, zones } from './catalog.ts';
import { CloudError } from './errors.ts';
import { runFirstBoot } from './first-boot.ts';
import type { Fetcher } from './ignition-fetch.ts';
import { IpAllocator } from './ip-allocator.ts';
import { validateRunInput } from './run-input.ts';
import { loadState, saveState, type CloudState, type Instance, type InstanceState, type StateReason } from './state.ts';
import type { InstanceFilter, RunInstanceInput } from '../cloudclient/types.ts';
import { compareStrings } from '../api/compare.ts';

export type { InstanceFilter, RunInstanceInput } from '../cloudclient/types.ts';

export interface CloudHooks {
  /** Start the node on its prepared root. Called on every boot, after Ignition on the first. */
  boot(instance: Readonly<Instance>, root: string): Promise<void>;
  /** Stop the node. Called for a booted instance before it stops, reboots or terminates. */
  stop(instance: Readonly<Instance>): Promise<void>;
}

export interface CloudOptions {
  readonly dataDir: string;
  readonly hooks: CloudHooks;
  /** Time between launch and Ignition, as a real machine spends in firmware. Default 500 ms. */
  readonly bootDelayMs?: number;
  /** Used as given: bindings such as `component` are the caller's to add. */
  readonly logger?: Logger;
  /** How Ignition fetches http(s) sources; default: loopback only, retried (`ignition-fetch.ts`). */
  readonly fetch?: Fetcher;
  readonly now?: () => Date;
  /** How long terminated instances stay listed. Default one hour. */
  readonly terminatedRetentionMs?: number;
  /** Where node addresses come from: the datacenter's address block (default 127.1.0.0/16). */
  readonly nodeCIDR?: string;
}

export interface Cloud {
  runInstance(input: RunInstanceInput): Promise<Instance>;
  get(id: string): Instance | undefined;
  list(filter?: InstanceFilter): Instance[];
  stop(id: string): Promise<Instance>;
  start(id: string): Promise<Instance>;
  reboot(id: string): Promise<Instance>;
  terminate(id: string): Promise<Instance>;
  /** Boots again what was running before a restart; call once, after wiring the hooks' targets. */
  resume(): Promise<void>;
  /** Resolves when the instance (or every instance) has no operation in progress. */
  settled(id?: string): Promise<void>;
  /** Called with a copy of an instance whenever it changes; returns the unsubscribe function. */
  onChange(listener: (instance: Instance) => void): () => void;
  /** `<dataDir>/nodes/<name>/root`. */
  nodeRoot(name: string): string;
  /** Cancels boots in progress and writes the state; instances keep their state for `resume()`. */
  close(): Promise<void>;
}

const hourMs = 60 * 60 * 1000;

export function nodeDir(dataDir: string, name: string): string {
  return join(dataDir, 'nodes', name);
}

export async function createCloud(options: CloudOptions): Promise<Cloud> {
  const state = await loadState(options.dataDir);
  return new CloudEngine(options, state);
}

class CloudEngine implements Cloud {
  private readonly dataDir: string;
  private readonly hooks: CloudHooks;
  private readonly bootDelayMs: number;
  private readonly log: Logger;
  private readonly fetch: Fetcher | undefined;
  private readonly now: () => Date;
  private readonly retentionMs: number;
  private readonly ips: IpAllocator;
  private readonly chains = new Map<string, Promise<void>>();
  /** Boots queued or running, per instance: stop and terminate cancel them all. */
  private readonly boots = new Map<string, Set<AbortController>>();
  /** Instances whose hooks.boot was called and hooks.stop not yet. */
  private readonly booted = new Set<string>();
  private readonly listeners = new Set<(instance: Instance) => void>();
  private dirty = false;
  private flushing: Promise<void> | undefined;
  private resumed = false;
  private closed = false;

  constructor(
    options: CloudOptions,
    private readonly state: CloudState,
  ) {
    this.dataDir = options.dataDir;
    this.hooks = options.hooks;
    this.bootDelayMs = options.bootDelayMs ?? 500;
    this.log = options.logger ?? pino({ enabled: false });
    this.fetch = options.fetch;
    this.now = options.now ?? (() => new Date());
    this.retentionMs = options.terminatedRetentionMs ?? hourMs;
    const live = state.instances.filter((i) => i.state !== 'terminated').map((i) => i.privateIP);
    this.ips = new IpAllocator(state.ipAllocator, live, options.nodeCIDR);
  }

  async runInstance(input: RunInstanceInput): Promise<Instance> {
    this.assertOpen();
    const spec = validateRunInput(input);
    if (this.state.instances.some((i) => i.name === spec.name && i.state !== 'terminated')) {
      throw new CloudError('NameInUse', `an instance named "${spec.name}" already exists`, 'name');
    }
    const id = this.newId();
    const zone = spec.zone ?? this.leastUsedZone();
    const instance: Instance = {
      id,
      name: spec.name,
      type: spec.type,
      zone,
      region,
      privateIP: this.ips.allocate(),
      providerID: providerID(zone, id),
      state: 'pending',
      ...(spec.userData !== undefined ? { userData: spec.userData } : {}),
      tags: { ...spec.tags },
      createdAt: this.now().toISOString(),
    };
    this.state.instances.push(instance);
    this.changed(instance);
    this.log.info({ instance: id, name: instance.name, type: instance.type, zone, ip: instance.privateIP }, 'instance launched');
    this.startBoot(instance, this.bootDelayMs);
    return this.persisted(instance);
  }

  get(id: string): Instance | undefined {
    const i = this.find(id);
    return i && copy(i);
  }

  list(filter: InstanceFilter = {}): Instance[] {
    return this.state.instances
      .filter((i) => (filter.name === undefined || i.name === filter.name) && (filter.state === undefined || i.state === filter.state))
      .filter((i) => Object.entries(filter.tags ?? {}).every(([k, v]) => i.tags[k] === v))
      .map(copy);
  }

  async stop(id: string): Promise<Instance> {
    const i = this.mustFind(id);
    if (i.state === 'stopping' || i.state === 'stopped') return copy(i);
    this.expectState(i, ['pending', 'running', 'failed'], 'stop');
    this.cancelBoot(id);
    this.setState(i, 'stopping', { code: 'User.Stop', message: 'stop requested' });
    this.enqueue(id, async () => {
      await this.stopNode(i);
      this.setState(i, 'stopped', { code: 'User.Stop', message: 'stopped on request' });
    });
    return this.persisted(i);
  }

  async start(id: string): Promise<Instance> {
    const i = this.mustFind(id);
    if (i.state === 'pending' || i.state === 'running') return copy(i);
    this.expectState(i, ['stopped', 'failed'], 'start');
    this.setState(i, 'pending');
    this.enqueue(id, () => this.stopNode(i));
    this.startBoot(i, this.bootDelayMs);
    return this.persisted(i);
  }

  async reboot(id: string): Promise<Instance> {
    const i = this.mustFind(id);
    this.expectState(i, ['running'], 'reboot');
    this.log.info({ instance: id }, 'instance rebooting');
    this.enqueue(id, () => this.stopNode(i));
    this.startBoot(i, this.bootDelayMs);
    return copy(i);
  }

  async terminate(id: string): Promise<Instance> {
    const i = this.mustFind(id);
    if (i.state === 'shutting-down' || i.state === 'terminated') return copy(i);
    this.cancelBoot(id);
    this.setState(i, 'shutting-down', { code: 'User.Terminate', message: 'terminate requested' });
    this.enqueue(id, () => this.finishTerminate(i));
    return this.persisted(i);
  }

  async resume(): Promise<void> {
    this.assertOpen();
    if (this.resumed) return;
    this.resumed = true;
    for (const i of this.state.instances) {
      if (i.state === 'pending' || i.state === 'running') this.startBoot(i, 0);
      else if (i.state === 'stopping') this.setState(i, 'stopped', i.stateReason);
      else if (i.state === 'shutting-down') this.enqueue(i.id, () => this.finishTerminate(i));
    }
    await this.flush();
  }

  async settled(id?: string): Promise<void> {
    // A chain removes itself when done; loop because work may queue more work meanwhile.
    for (;;) {
      const pending = id === undefined ? [...this.chains.values()] : [this.chains.get(id)].filter((p) => p !== undefined);
      if (pending.length === 0) break;
      await Promise.all(pending);
    }
    await this.flush();
  }

  onChange(listener: (instance: Instance) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  nodeRoot(name: string): string {
    return join(nodeDir(this.dataDir, name), 'root');
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const id of [...this.boots.keys()]) this.cancelBoot(id);
    await Promise.all([...this.chains.values()]);
    await this.flush();
  }

  // --- lifecycle work, run on the instance's chain ---

  private startBoot(i: Instance, delayMs: number): void {
    // Registered now, not when the chain reaches it, so a stop right after a start cancels it.
    const controller = new AbortController();
    const set = this.boots.get(i.id) ?? new Set();
    set.add(controller);
    this.boots.set(i.id, set);
    this.enqueue(i.id, async () => {
      try {
        await this.boot(i, delayMs, controller.signal);
      } finally {
        set.delete(controller);
        if (set.size === 0 && this.boots.get(i.id) === set) this.boots.delete(i.id);
      }
    });
  }

  private async boot(i: Instance, delayMs: number, signal: AbortSignal): Promise<void> {
    // cloud/ cannot reach runtime/'s sleep (it imports only api/); Node's own cancellable timer serves.
    if (!(await delay(delayMs, true, { signal }).catch(() => false))) return;
    i.launchedAt = this.now().toISOString();
    this.changed(i);
    const root = this.nodeRoot(i.name);
    try {
      await mkdir(root, { recursive: true, mode: 0o755 });
      const first = await runFirstBoot(i.userData, root, { fetch: this.fetch, signal, now: this.now });
      if (first.ran) this.log.info({ instance: i.id, fetched: first.result?.fetched, skipped: first.result?.skipped, warnings: first.result?.warnings }, 'ignition applied');
    } catch (err) {
      if (signal.aborted) return;
      this.log.warn({ instance: i.id, err: (err as Error).message }, 'ignition failed');
      this.setState(i, 'failed', { code: 'Ignition.Failed', message: `Ignition failed: ${(err as Error).message}` });
      return;
    }
    if (signal.aborted) return;
    try {
      this.booted.add(i.id);
      await this.hooks.boot(copy(i), root);
    } catch (err) {
      if (signal.aborted) return;
      this.log.warn({ instance: i.id, err: (err as Error).message }, 'boot hook failed');
      this.setState(i, 'failed', { code: 'Boot.Failed', message: `node failed to start: ${(err as Error).message}` });
      return;
    }
    if (signal.aborted) return;
    this.setState(i, 'running');
  }

  private async stopNode(i: Instance): Promise<void> {
    if (!this.booted.delete(i.id)) return;
    try {
      await this.hooks.stop(copy(i));
    } catch (err) {
      // A node that fails to stop cleanly is still considered stopped, as a powered-off machine is.
      this.log.warn({ instance: i.id, err: (err as Error).message }, 'stop hook failed');
    }
  }

  private async finishTerminate(i: Instance): Promise<void> {
    await this.stopNode(i);
    await rm(nodeDir(this.dataDir, i.name), { recursive: true, force: true });
    this.ips.release(i.privateIP);
    i.terminatedAt = this.now().toISOString();
    this.setState(i, 'terminated', { code: 'User.Terminate', message: 'terminated on request' });
    this.log.info({ instance: i.id }, 'instance terminated');
  }

  private enqueue(id: string, fn: () => Promise<void>): void {
    const prev = this.chains.get(id) ?? Promise.resolve();
    const next = prev.then(fn).catch((err: unknown) => {
      this.log.error({ instance: id, err: (err as Error).message }, 'instance operation failed');
    });
    this.chains.set(id, next);
    void next.then(() => {
      if (this.chains.get(id) === next) this.chains.delete(id);
    });
  }

  private cancelBoot(id: string): void {
    for (const c of this.boots.get(id) ?? []) c.abort(new Error('boot cancelled'));
    this.boots.delete(id);
  }

  // --- state ---

  private setState(i: Instance, state: InstanceState, reason?: StateReason): void {
    if (i.state !== state) this.log.info({ instance: i.id, from: i.state, to: state }, 'instance state');
    i.state = state;
    if (reason) i.stateReason = reason;
    else delete i.stateReason;
    this.changed(i);
  }

  private changed(i: Instance): void {
    for (const l of this.listeners) {
      try {
        l(copy(i));
      } catch (err) {
        this.log.error({ err: (err as Error).message }, 'change listener threw');
      }
    }
    this.dirty = true;
    this.flushing ??= this.writeLoop();
  }

  /** Coalesces the changes of one turn of the event loop into one write. */
  private async writeLoop(): Promise<void> {
    try {
      await new Promise<void>((resolve) => setImmediate(resolve));
      while (this.dirty) {
        this.dirty = false;
        this.prune();
        this.state.ipAllocator = this.ips.state();
        await saveState(this.dataDir, this.state);
      }
    } catch (err) {
      this.log.error({ err: (err as Error).message }, 'writing cloud state failed');
    } finally {
      this.flushing = undefined;
    }
  }

  /** The instance as it is now, returned once that state is on disk. */
  private async persisted(i: Instance): Promise<Instance> {
    const snapshot = copy(i);
    await this.flush();
    return snapshot;
  }

  private async flush(): Promise<void> {
    while (this.flushing) await this.flushing;
  }

  private prune(): void {
    const cutoff = this.now().getTime() - this.retentionMs;
    this.state.instances = this.state.instances.filter((i) => i.state !== 'terminated' || !i.terminatedAt || Date.parse(i.terminatedAt) >= cutoff);
  }

  private find(id: string): Instance | undefined {
    return this.state.instances.find((i) => i.id === id);
  }

  private mustFind(id: string): Instance {
    this.assertOpen();
    const i = this.find(id);
    if (!i) throw new CloudError('InstanceNotFound', `instance "${id}" does not exist`);
    return i;
  }

  private expectState(i: Instance, allowed: readonly InstanceState[], action: string): void {
    if (!allowed.includes(i.state)) {
      throw new CloudError('IncorrectInstanceState', `instance ${i.id} is ${i.state}; cannot ${action} it (allowed from: ${allowed.join(', ')})`);
    }
  }

  private assertOpen(): void {
    if (this.closed) throw new Error('the cloud is closed');
  }

  private newId(): string {
    for (;;) {
      const id = `i-${randomBytes(9).toString('hex').slice(0, 17)}`;
      if (!this.find(id)) return id;
    }
  }

  private leastUsedZone(): string {
    const counts = new Map<string, number>(zones.map((z) => [z, 0]));
    for (const i of this.state.instances) if (i.state !== 'terminated') counts.set(i.zone, (counts.get(i.zone) ?? 0) + 1);
    return [...counts.entries()].sort((a, b) => a[1] - b[1] || compareStrings(a[0], b[0]))[0]![0];
  }
}

function copy(i: Instance): Instance {
  return structuredClone(i);
}
