/**
 * The garbage collector, as kube-controller-manager runs it, over the API only:
 * - an object whose every owner is gone (not found, or found with another uid) is deleted, in
 *   the background, or in the foreground when an owner is itself being deleted that way;
 *   owners that are gone are dropped from an object that still has a live owner;
 * - an owner deleted with `propagationPolicy=Orphan` (finalizer `orphan`) has its dependents'
 *   references to it removed, then the finalizer;
 * - an owner deleted with `Foreground` (finalizer `foregroundDeletion`) has its dependents
 *   deleted, and loses the finalizer once no dependent with `blockOwnerDeletion` remains.
 *
 * Informers on every deletable resource (found by discovery, refreshed every 30 s so new
 * CRDs are covered; metadata-only unless a full one is shared anyway) feed an ownership graph;
 * the graph says which uids to examine, and every decision to delete or un-reference is
 * checked against a live read first: the caches only ever say where to look.
 */
import type { KubernetesObject } from '@kubernetes/client-node';
import { isConflict, isNotFound } from '../../runtime/client.ts';
import { sleep } from '../../runtime/clock.ts';
import type { ControllerContext } from '../../runtime/context.ts';
import { Controller } from '../../runtime/controller.ts';
import type { Informer } from '../../runtime/informer.ts';
import type { ResourceRef } from '../../runtime/resources.ts';
import { discoverResources, type DiscoveredResources } from '../../runtime/discovery.ts';
import { FOREGROUND_FINALIZER, ORPHAN_FINALIZER, OwnershipGraph, type GraphNode, type GraphWork, type Identity, type ObservedObject } from './graph.ts';

export interface GarbageCollectorOptions {
  /** How often discovery is repeated to pick up new resources; kube's default is 30 s. */
  readonly resyncPeriodMs?: number;
}

interface LiveObject extends KubernetesObject {
  metadata: NonNullable<KubernetesObject['metadata']> & { uid?: string; finalizers?: string[] };
}

const DELETE = 'delete:';
const ORPHAN = 'orphan:';

class GarbageCollector extends Controller {
  private readonly graph = new OwnershipGraph();
  private readonly monitored = new Map<string, Informer<KubernetesObject>>();
  private resources: DiscoveredResources | undefined;

  constructor(
    private readonly gcContext: ControllerContext,
    private readonly gcOptions: GarbageCollectorOptions,
  ) {
    super({
      name: 'garbagecollector',
      workers: 4,
      reconcile: (key) => this.process(key),
      observer: gcContext.metrics?.forController('garbagecollector'),
      onError: (r) => gcContext.logger.debug({ key: r.key, err: String(r.error) }, 'garbage collection failed; retrying'),
    });
  }

  override async run(signal: AbortSignal): Promise<void> {
    // Workers start only once every monitor has synced: before that, an owner not yet listed
    // would look absent to the graph (the live check would catch it, at one request each).
    while (!signal.aborted) {
      try {
        await this.syncMonitors(signal);
        break;
      } catch (err) {
        if (signal.aborted) return;
        this.gcContext.logger.warn({ err: String(err) }, 'garbage collector discovery failed; retrying');
        await sleep(1000, signal, this.gcContext.clock);
      }
    }
    const period = this.gcOptions.resyncPeriodMs ?? 30_000;
    const timer = setInterval(() => {
      this.syncMonitors(signal).catch((err: unknown) => {
        if (!signal.aborted) this.gcContext.logger.warn({ err: String(err) }, 'garbage collector rediscovery failed');
      });
    }, period);
    timer.unref();
    try {
      await super.run(signal);
    } finally {
      clearInterval(timer);
    }
  }

  /** Starts an informer for every collectable resource not yet monitored, and waits for them. */
  private async syncMonitors(signal: AbortSignal): Promise<void> {
    this.resources = await discoverResources(this.gcContext.client, signal);
    const started: Informer<KubernetesObject>[] = [];
    for (const ref of this.resources.collectable) {
      const id = `${ref.group}/${ref.resource}`;
      if (this.monitored.has(id)) continue;
      // Metadata is all the graph reads: share a full informer another controller already keeps
      // (one watch, one cache), else watch metadata only, as kube's collector does. Leases and
      // Events, renewed and recorded all the time, are watched by the collector alone.
      const informer = this.gcContext.informers.existing<KubernetesObject>(ref) ?? this.gcContext.informers.metadataInformer(ref);
      this.monitored.set(id, informer);
      this.attach(ref, informer);
      started.push(informer);
    }
    await Promise.all(started.map((i) => i.waitForSync()));
  }

  private attach(ref: ResourceRef, informer: Informer<KubernetesObject>): void {
    const apiVersion = ref.group ? `${ref.group}/${ref.version}` : ref.version;
    // Informer objects from a list may lack apiVersion/kind; the graph needs them for lookups.
    const withType = (o: ObservedObject): ObservedObject => ({ apiVersion, kind: ref.kind, metadata: o.metadata });
    informer.on('add', (o) => this.apply(this.graph.observe(withType(o as ObservedObject))));
    informer.on('update', (o) => this.apply(this.graph.observe(withType(o as ObservedObject))));
    informer.on('delete', (o) => {
      const uid = o.metadata?.uid;
      if (uid) this.apply(this.graph.remove(uid));
    });
  }

  private apply(work: GraphWork): void {
    for (const uid of work.attemptToDelete) this.enqueue(DELETE + uid);
    for (const uid of work.attemptToOrphan) this.enqueue(ORPHAN + uid);
  }

  private refOf(identity: Pick<Identity, 'apiVersion' | 'kind'>): ResourceRef | undefined {
    return this.resources?.byKind(identity.apiVersion, identity.kind);
  }

  /** The object as the API has it now, if it is still the one with this uid. */
  private async live(identity: Identity, uid: string): Promise<{ ref: ResourceRef; obj: LiveObject } | 'absent' | 'unknown'> {
    const ref = this.refOf(identity);
    if (!ref) return 'unknown';
    try {
      const obj = await this.gcContext.client.get<LiveObject>(ref, ref.namespaced ? identity.namespace : undefined, identity.name);
      return obj.metadata.uid === uid ? { ref, obj } : 'absent';
    } catch (err) {
      if (isNotFound(err)) return 'absent';
      throw err;
    }
  }

  private async process(key: string): Promise<void> {
    if (key.startsWith(ORPHAN)) return this.attemptToOrphan(key.slice(ORPHAN.length));
    return this.attemptToDelete(key.slice(DELETE.length));
  }

  private async attemptToDelete(uid: string): Promise<void> {
    const node = this.graph.get(uid);
    if (!node) return;
    const current = await this.live(node.identity, uid);
    if (current === 'unknown') {
      // A kind the API does not serve (yet): its CRD may still be on its way.
      if (!node.observed) throw new Error(`owner ${node.identity.kind} ${node.identity.name}: kind ${node.identity.apiVersion} is not served`);
      return;
    }
    if (current === 'absent') {
      // A virtual owner that does not exist: its dependents are orphans. (An observed one is
      // gone too, and its informer's delete event will say so.)
      if (!node.observed) this.apply(this.graph.remove(uid));
      return;
    }
    const { ref, obj } = current;
    if (!node.observed) return; // it exists: its informer will show it
    if (obj.metadata.deletionTimestamp) {
      if (obj.metadata.finalizers?.includes(FOREGROUND_FINALIZER)) await this.finishForeground(node, ref, obj);
      return;
    }
    const owners = obj.metadata.ownerReferences ?? [];
    if (owners.length === 0) return;

    const solid: string[] = [];
    const dangling: string[] = [];
    const waiting: string[] = [];
    for (const o of owners) {
      const known = this.graph.get(o.uid);
      // An owner an informer shows alive needs no request: believing it exists can only delay a deletion.
      if (known?.observed && !known.deletingDependents) {
        solid.push(o.uid);
        continue;
      }
      const owner = await this.live({ apiVersion: o.apiVersion, kind: o.kind, namespace: obj.metadata.namespace, name: o.name }, o.uid);
      if (owner === 'unknown') throw new Error(`${node.identity.kind} ${describe(node.identity)}: owner kind ${o.apiVersion} ${o.kind} is not served`);
      if (owner === 'absent') dangling.push(o.uid);
      else if (owner.obj.metadata.deletionTimestamp && owner.obj.metadata.finalizers?.includes(FOREGROUND_FINALIZER)) waiting.push(o.uid);
      else solid.push(o.uid);
    }

    if (solid.length > 0) {
      const drop = new Set([...dangling, ...waiting]);
      if (drop.size === 0) return;
      await this.updateLive(ref, obj, (o) => {
        o.metadata.ownerReferences = (o.metadata.ownerReferences ?? []).filter((r) => !drop.has(r.uid));
      });
      return;
    }
    const policy = waiting.length > 0 ? 'Foreground' : obj.metadata.finalizers?.includes(ORPHAN_FINALIZER) ? 'Orphan' : obj.metadata.finalizers?.includes(FOREGROUND_FINALIZER) ? 'Foreground' : 'Background';
    this.gcContext.logger.debug({ object: `${node.identity.kind} ${describe(node.identity)}`, policy }, 'deleting an object whose owners are gone');
    try {
      await this.gcContext.client.delete(ref, obj.metadata.namespace, obj.metadata.name!, { propagationPolicy: policy, preconditions: { uid } });
    } catch (err) {
      // Gone already, or replaced by a namesake (the uid precondition fails with 409).
      if (!isNotFound(err) && !isConflict(err)) throw err;
    }
  }

  /** An owner deleted in the foreground: delete its dependents, and let it go once none blocks it. */
  private async finishForeground(node: GraphNode, ref: ResourceRef, obj: LiveObject): Promise<void> {
    const blocking = this.graph.blockingDependents(node.uid);
    if (blocking.length === 0) {
      await this.updateLive(ref, obj, (o) => {
        o.metadata.finalizers = (o.metadata.finalizers ?? []).filter((f) => f !== FOREGROUND_FINALIZER);
      });
      return;
    }
    for (const dep of blocking) if (!dep.beingDeleted) this.enqueue(DELETE + dep.uid);
    // Non-blocking dependents are collected too, just not waited for.
    for (const d of node.dependents) this.enqueue(DELETE + d);
  }

  private async attemptToOrphan(uid: string): Promise<void> {
    const node = this.graph.get(uid);
    if (!node?.observed) return;
    const current = await this.live(node.identity, uid);
    if (current === 'absent' || current === 'unknown') return;
    if (!current.obj.metadata.finalizers?.includes(ORPHAN_FINALIZER)) return;
    for (const d of [...node.dependents]) {
      const dep = this.graph.get(d);
      if (!dep?.observed) continue;
      const liveDep = await this.live(dep.identity, d);
      if (typeof liveDep === 'string') continue;
      if (!liveDep.obj.metadata.ownerReferences?.some((r) => r.uid === uid)) continue;
      await this.updateLive(liveDep.ref, liveDep.obj, (o) => {
        const refs = (o.metadata.ownerReferences ?? []).filter((r) => r.uid !== uid);
        if (refs.length) o.metadata.ownerReferences = refs;
        else delete o.metadata.ownerReferences;
      });
    }
    await this.updateLive(current.ref, current.obj, (o) => {
      o.metadata.finalizers = (o.metadata.finalizers ?? []).filter((f) => f !== ORPHAN_FINALIZER);
    });
  }

  /**
   * Writes `change` to the object as read, conditional on its resourceVersion: a conflict
   * fails the item, which is retried from a fresh read (the decision may have changed).
   */
  private async updateLive(ref: ResourceRef, obj: LiveObject, change: (o: LiveObject) => void): Promise<void> {
    const next = structuredClone(obj);
    change(next);
    try {
      await this.gcContext.client.update(ref, next);
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
  }
}

function describe(id: Identity): string {
  return id.namespace ? `${id.namespace}/${id.name}` : id.name;
}

export function createGarbageCollector(ctx: ControllerContext, options: GarbageCollectorOptions = {}): Controller {
  return new GarbageCollector(ctx, options);
}
