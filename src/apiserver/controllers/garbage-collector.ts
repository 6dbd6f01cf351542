/**
 * The garbage collector, kept in the API server until the controller-manager exists:
 * - a dependent whose every owner is gone (not found, or found with another uid) is deleted;
 *   owners that are gone are dropped from a dependent that still has a live owner;
 * - an owner deleted with `propagationPolicy=Orphan` (finalizer `orphan`) has its dependents'
 *   references to it removed, then the finalizer;
 * - an owner deleted with `Foreground` (finalizer `foregroundDeletion`) has its dependents
 *   deleted (in foreground too), and loses the finalizer once no dependent with
 *   `blockOwnerDeletion` remains.
 * An in-memory ownership index, fed by the store's events, says where to look; every decision
 * is checked against the store before it is acted on.
 */
import { ApiError } from '../errors.ts';
import type { ResourceRegistry } from '../registry/registry.ts';
import type { KubeObject, OwnerReference, ResourceDefinition } from '../registry/resource.ts';
import type { ObjectStore } from '../registry/store.ts';
import { storagePrefixOf, type StoreEvent, type StoreEventSource } from './event-source.ts';
import { KeyedQueue } from './queue.ts';

const manager = 'garbage-collector';

interface Node {
  key: string;
  owners: OwnerReference[];
  deleting: boolean;
  finalizers: string[];
}

function isNotFound(e: unknown): boolean {
  return e instanceof ApiError && e.reason === 'NotFound';
}

export class GarbageCollector {
  private readonly byUid = new Map<string, Node>();
  private readonly dependents = new Map<string, Set<string>>();
  private readonly uidOfKey = new Map<string, string>();
  readonly queue: KeyedQueue;

  constructor(
    private readonly store: ObjectStore,
    private readonly registry: ResourceRegistry,
    onError: (key: string, err: unknown) => void,
  ) {
    this.queue = new KeyedQueue((item) => this.process(item), { onError, concurrency: 4 });
  }

  /** Builds the index from every stored object, then follows events. */
  async start(events: StoreEventSource): Promise<void> {
    events.subscribe('*', (ev) => this.onEvent(ev));
    for (const def of this.registry.storageDefinitions()) {
      const list = await this.store.list(def, undefined);
      for (const obj of list.items) this.observe(this.store.key(def, obj.metadata.namespace, obj.metadata.name), obj);
    }
    for (const node of this.byUid.values()) {
      if (node.owners.length) this.queue.add(`dep:${node.key}`);
      if (node.deleting) this.queue.add(`owner:${node.key}`);
    }
  }

  stop(): void {
    this.queue.stop();
  }

  private observe(key: string, obj: KubeObject): Node {
    const uid = obj.metadata.uid as string;
    const previousUid = this.uidOfKey.get(key);
    if (previousUid && previousUid !== uid) this.forget(key);
    const old = this.byUid.get(uid);
    for (const ref of old?.owners ?? []) this.dependents.get(ref.uid)?.delete(key);
    const node: Node = {
      key,
      owners: Array.isArray(obj.metadata.ownerReferences) ? obj.metadata.ownerReferences : [],
      deleting: !!obj.metadata.deletionTimestamp,
      finalizers: obj.metadata.finalizers ?? [],
    };
    for (const ref of node.owners) {
      const set = this.dependents.get(ref.uid) ?? new Set<string>();
      set.add(key);
      this.dependents.set(ref.uid, set);
    }
    this.byUid.set(uid, node);
    this.uidOfKey.set(key, uid);
    return node;
  }

  private forget(key: string): Node | undefined {
    const uid = this.uidOfKey.get(key);
    if (!uid) return undefined;
    const node = this.byUid.get(uid);
    this.uidOfKey.delete(key);
    this.byUid.delete(uid);
    for (const ref of node?.owners ?? []) this.dependents.get(ref.uid)?.delete(key);
    return node;
  }

  private onEvent(ev: StoreEvent): void {
    if (ev.type === 'delete') {
      const node = this.forget(ev.key);
      const uid = ev.object.metadata?.uid as string;
      for (const dep of this.dependents.get(uid) ?? []) this.queue.add(`dep:${dep}`);
      // An owner waiting in foreground may now be free.
      for (const ref of node?.owners ?? []) {
        const owner = this.byUid.get(ref.uid);
        if (owner?.deleting) this.queue.add(`owner:${owner.key}`);
      }
      return;
    }
    const node = this.observe(ev.key, ev.object);
    if (node.owners.some((r) => !this.byUid.has(r.uid) || this.byUid.get(r.uid)!.deleting)) this.queue.add(`dep:${ev.key}`);
    if (node.deleting && (node.finalizers.includes('orphan') || node.finalizers.includes('foregroundDeletion'))) this.queue.add(`owner:${ev.key}`);
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
