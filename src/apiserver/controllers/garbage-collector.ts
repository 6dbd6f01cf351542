/**
 * The garbage collector, kept in the API server until the controller-manager exists:
 * - a dependent whose every owner is gone (not found, or found with another uid) is deleted;
 *   owners that are gone are dropped from a dependent that still has a live owner;
 * - an owner deleted with `propagationPolicy=Orphan` (finalizer `orphan`) has its dependents'
 *   references to it removed, then the finalizer;
 * - an owner deleted with `Foreground` (finalizer `foregroundDeletion`) has its dependents
 *   deleted (in foreground too), and loses the finalizer once no dependent with
 *   `blockOwnerDeletion` remains.
 * An in-memory index of who references whom, fed by the store's events (decoding only events
 * whose stored text mentions owner references or a deletion), says where to look; every
 * decision is checked against the store before it is acted on.
 */
import { ApiError } from '../errors.ts';
import type { ResourceRegistry } from '../registry/registry.ts';
import type { KubeObject, OwnerReference, ResourceDefinition } from '../registry/resource.ts';
import type { ObjectStore } from '../registry/store.ts';
import { storagePrefixOf, type StoreEvent, type StoreEventSource } from './event-source.ts';
import { KeyedQueue } from './queue.ts';

const manager = 'garbage-collector';

function isNotFound(e: unknown): boolean {
  return e instanceof ApiError && e.reason === 'NotFound';
}

/** Text checks on the stored JSON, so that events that cannot concern the collector are never decoded. */
const mentionsOwners = (text: string | undefined): boolean => text !== undefined && text.includes('"ownerReferences"');
const mentionsDeletion = (text: string): boolean => text.includes('"deletionTimestamp"');

export class GarbageCollector {
  /** Owner uid → keys of the objects that reference it. Only objects with owner references are indexed. */
  private readonly dependents = new Map<string, Set<string>>();
  /** Dependent key → the owner uids it references (to keep `dependents` exact). */
  private readonly ownersOfKey = new Map<string, string[]>();
  readonly queue: KeyedQueue;

  constructor(
    private readonly store: ObjectStore,
    private readonly registry: ResourceRegistry,
    onError: (key: string, err: unknown) => void,
  ) {
    this.queue = new KeyedQueue((item) => this.process(item), { onError, concurrency: 4 });
  }

  /** Builds the index from every stored object, checks every dependent once, then follows events. */
  async start(events: StoreEventSource): Promise<void> {
    events.subscribe('*', (ev) => this.onEvent(ev));
    for (const def of this.registry.storageDefinitions()) {
      const list = await this.store.list(def, undefined);
      for (const obj of list.items) {
        const key = this.store.key(def, obj.metadata.namespace, obj.metadata.name);
        if (this.index(key, obj)) this.queue.add(`dep:${key}`);
        if (this.isOwnerBeingDeleted(obj)) this.queue.add(`owner:${key}`);
      }
    }
  }

  stop(): void {
    this.queue.stop();
  }

  /** Records `obj`'s owner references under `key`; true when it has any. */
  private index(key: string, obj: KubeObject | undefined): boolean {
    for (const uid of this.ownersOfKey.get(key) ?? []) {
      const set = this.dependents.get(uid);
      set?.delete(key);
      if (set?.size === 0) this.dependents.delete(uid);
    }
    this.ownersOfKey.delete(key);
    const refs: OwnerReference[] = Array.isArray(obj?.metadata?.ownerReferences) ? obj!.metadata.ownerReferences : [];
    if (!refs.length) return false;
    const uids = refs.map((r) => r.uid);
    this.ownersOfKey.set(key, uids);
    for (const uid of uids) {
      const set = this.dependents.get(uid) ?? new Set<string>();
      set.add(key);
      this.dependents.set(uid, set);
    }
    return true;
  }

  private isOwnerBeingDeleted(obj: KubeObject): boolean {
    const finalizers: string[] = obj.metadata?.finalizers ?? [];
    return !!obj.metadata?.deletionTimestamp && (finalizers.includes('orphan') || finalizers.includes('foregroundDeletion'));
  }

  /** Queues the owners `obj` references, resolved by kind and name (an owner in foreground deletion may now be free). */
  private queueOwnersOf(obj: KubeObject): void {
    for (const ref of (obj.metadata?.ownerReferences ?? []) as OwnerReference[]) {
      const def = this.registry.byKind(ref.apiVersion, ref.kind);
      if (!def || (def.namespaced && !obj.metadata.namespace)) continue;
      this.queue.add(`owner:${this.store.key(def, def.namespaced ? obj.metadata.namespace : undefined, ref.name)}`);
    }
  }

  private onEvent(ev: StoreEvent): void {
    if (ev.type === 'delete') {
      const hadOwners = this.ownersOfKey.has(ev.key);
      this.index(ev.key, undefined);
      // Dependents of the deleted object may now be orphans.
      for (const dep of this.dependents.get(ev.object.metadata?.uid) ?? []) this.queue.add(`dep:${dep}`);
      if (hadOwners) this.queueOwnersOf(ev.object);
      return;
    }
    const text = ev.kv.value;
    if (mentionsOwners(text) || mentionsOwners(ev.prevKv?.value)) {
      const obj = ev.object;
      const before = JSON.stringify(this.ownersOfKey.get(ev.key) ?? []);
      const has = this.index(ev.key, obj);
      // As kube's collector: a dependent is checked when it appears or its references change.
      if (has && (ev.type === 'create' || JSON.stringify(this.ownersOfKey.get(ev.key)) !== before)) this.queue.add(`dep:${ev.key}`);
    }
    if (mentionsDeletion(text) && this.isOwnerBeingDeleted(ev.object)) this.queue.add(`owner:${ev.key}`);
  }

  private defOfKey(key: string): ResourceDefinition | undefined {
    return this.registry.byStoragePrefix(storagePrefixOf(key));
  }

  private async load(key: string): Promise<{ def: ResourceDefinition; obj: KubeObject } | undefined> {
    const def = this.defOfKey(key);
    if (!def) return undefined;
    const kv = await this.store.backend.get(key);
    return kv ? { def, obj: this.store.decode(def, kv) } : undefined;
  }

  /** The owner as stored now, or undefined when it is absent (not found, or another object of that name). */
  private async liveOwner(dependent: KubeObject, ref: OwnerReference): Promise<KubeObject | undefined | 'unknown'> {
    const def = this.registry.byKind(ref.apiVersion, ref.kind);
    if (!def) return 'unknown';
    const ns = def.namespaced ? dependent.metadata.namespace : undefined;
    if (def.namespaced && !ns) return undefined;
    try {
      const owner = await this.store.get(def, ns, ref.name);
      return owner.metadata.uid === ref.uid ? owner : undefined;
    } catch (e) {
      if (isNotFound(e)) return undefined;
      throw e;
    }
  }

  private async process(item: string): Promise<void> {
    const key = item.slice(item.indexOf(':') + 1);
    if (item.startsWith('dep:')) return this.processDependent(key);
    return this.processOwner(key);
  }

  private async processDependent(key: string): Promise<void> {
    const loaded = await this.load(key);
    if (!loaded) return;
    const { def, obj } = loaded;
    const refs: OwnerReference[] = obj.metadata.ownerReferences ?? [];
    if (!refs.length) return;
    const absent: string[] = [];
    let waitingForeground = false;
    for (const ref of refs) {
      const owner = await this.liveOwner(obj, ref);
      if (owner === 'unknown') return; // a kind we do not serve: leave it alone
      if (!owner) absent.push(ref.uid);
      else if (owner.metadata.deletionTimestamp && (owner.metadata.finalizers ?? []).includes('foregroundDeletion')) waitingForeground = true;
    }
    const ns = obj.metadata.namespace as string | undefined;
    if (absent.length === refs.length || (waitingForeground && absent.length + 1 >= refs.length)) {
      if (obj.metadata.deletionTimestamp) return;
      try {
        await this.store.delete(def, ns, obj.metadata.name, { propagationPolicy: waitingForeground ? 'Foreground' : 'Background', preconditions: { uid: obj.metadata.uid } }, { manager });
      } catch (e) {
        if (!isNotFound(e) && !(e instanceof ApiError && e.reason === 'Conflict')) throw e;
      }
      return;
    }
    if (absent.length > 0) {
      await this.store
        .guaranteedUpdate(def, ns, obj.metadata.name, { manager }, (cur) => {
          if (cur.metadata.uid !== obj.metadata.uid) return cur;
          cur.metadata.ownerReferences = (cur.metadata.ownerReferences ?? []).filter((r: OwnerReference) => !absent.includes(r.uid));
          delete cur.metadata.resourceVersion;
          return cur;
        })
        .catch((e) => {
          if (!isNotFound(e)) throw e;
        });
    }
  }

  private async processOwner(key: string): Promise<void> {
    const loaded = await this.load(key);
    if (!loaded) return;
    const { def, obj } = loaded;
    if (!obj.metadata.deletionTimestamp) return;
    const uid = obj.metadata.uid as string;
    const finalizers: string[] = obj.metadata.finalizers ?? [];
    const deps = [...(this.dependents.get(uid) ?? [])];
    if (finalizers.includes('orphan')) {
      for (const depKey of deps) {
        const dep = await this.load(depKey);
        if (!dep) continue;
        await this.store
          .guaranteedUpdate(dep.def, dep.obj.metadata.namespace, dep.obj.metadata.name, { manager }, (cur) => {
            cur.metadata.ownerReferences = (cur.metadata.ownerReferences ?? []).filter((r: OwnerReference) => r.uid !== uid);
            if (!cur.metadata.ownerReferences.length) delete cur.metadata.ownerReferences;
            delete cur.metadata.resourceVersion;
            return cur;
          })
          .catch((e) => {
            if (!isNotFound(e)) throw e;
          });
      }
      await this.store.removeFinalizer(def, obj.metadata.namespace, obj.metadata.name, 'orphan', manager);
      return;
    }
    if (finalizers.includes('foregroundDeletion')) {
      let blocking = 0;
      for (const depKey of deps) {
        const dep = await this.load(depKey);
        if (!dep) continue;
        const ref = (dep.obj.metadata.ownerReferences ?? []).find((r: OwnerReference) => r.uid === uid);
        if (!ref) continue;
        if (ref.blockOwnerDeletion) blocking++;
        if (!dep.obj.metadata.deletionTimestamp) {
          await this.store
            .delete(dep.def, dep.obj.metadata.namespace, dep.obj.metadata.name, { propagationPolicy: 'Foreground', preconditions: { uid: dep.obj.metadata.uid } }, { manager })
            .catch((e) => {
              if (!isNotFound(e)) throw e;
            });
        }
      }
      if (blocking === 0) await this.store.removeFinalizer(def, obj.metadata.namespace, obj.metadata.name, 'foregroundDeletion', manager);
    }
  }
}
