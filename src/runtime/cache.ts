/**
 * The informer's object cache: objects keyed `namespace/name` (or `name` for cluster-scoped
 * kinds), with secondary indexes. Node runs it on one thread and every method is synchronous,
 * so readers never see a half-applied change without any locking. Everything handed out is
 * frozen and typed `DeepReadonly` (style example 5). `replace` gives a relist its
 * Kubernetes meaning: objects missing from the new list are deletions, and must be reported
 * as such, or controllers keyed on absence would never learn about them.
 */
import type { KubernetesObject } from '@kubernetes/client-node';
import { deepFreeze, type DeepReadonly } from './readonly.ts';

/** Maps an object to the index values it should be found under (none is fine). */
export type IndexFunc<T> = (obj: DeepReadonly<T>) => readonly string[];

/** Built in, because almost every controller lists "everything in this namespace". */
export const NAMESPACE_INDEX = 'namespace';

export interface ReadonlyCache<T> {
  get(key: string): DeepReadonly<T> | undefined;
  list(): DeepReadonly<T>[];
  keys(): string[];
  /** Throws on an unknown index name: a typo should fail loudly, not return nothing. */
  byIndex(index: string, value: string): DeepReadonly<T>[];
  readonly size: number;
}

export interface ReplaceResult<T> {
  readonly added: DeepReadonly<T>[];
  readonly updated: { readonly obj: DeepReadonly<T>; readonly old: DeepReadonly<T> }[];
  readonly deleted: DeepReadonly<T>[];
}

export function objectKey(obj: { readonly metadata?: { readonly namespace?: string; readonly name?: string } }): string {
  const ns = obj.metadata?.namespace;
  const name = obj.metadata?.name ?? '';
  return ns ? `${ns}/${name}` : name;
}

export class ObjectCache<T extends KubernetesObject> implements ReadonlyCache<T> {
  private readonly items = new Map<string, DeepReadonly<T>>();
  private readonly indexers: Record<string, IndexFunc<T>>;
  /** index name → index value → keys. */
  private readonly indices = new Map<string, Map<string, Set<string>>>();

  constructor(indexers: Record<string, IndexFunc<T>> = {}) {
    if (NAMESPACE_INDEX in indexers) throw new Error(`index name "${NAMESPACE_INDEX}" is built in`);
    this.indexers = { [NAMESPACE_INDEX]: (o) => (o.metadata?.namespace ? [o.metadata.namespace] : []), ...indexers };
    for (const name of Object.keys(this.indexers)) this.indices.set(name, new Map());
  }

  get size(): number {
    return this.items.size;
  }

  /**
   * Adds an index after construction, indexing what is already cached. Shared informers need
   * this: the second controller to use an informer may want an index the first did not.
   * Adding the same name again with another function is a programming error.
   */
  addIndexer(name: string, fn: IndexFunc<T>): void {
    const existing = this.indexers[name];
    if (existing) {
      if (existing !== fn) throw new Error(`index "${name}" already exists with another function`);
      return;
    }
    this.indexers[name] = fn;
    this.indices.set(name, new Map());
    const idx = this.indices.get(name)!;
    for (const [key, obj] of this.items) {
      for (const value of new Set(fn(obj))) {
        let keys = idx.get(value);
        if (!keys) idx.set(value, (keys = new Set()));
        keys.add(key);
      }
    }
  }

  hasIndex(name: string): boolean {
    return name in this.indexers;
  }

  get(key: string): DeepReadonly<T> | undefined {
    return this.items.get(key);
  }

  list(): DeepReadonly<T>[] {
    return [...this.items.values()];
  }

  keys(): string[] {
    return [...this.items.keys()];
  }

  byIndex(index: string, value: string): DeepReadonly<T>[] {
    const idx = this.indices.get(index);
    if (!idx) throw new Error(`no index named "${index}"`);
    return [...(idx.get(value) ?? [])].map((k) => this.items.get(k)!);
  }

  /** Stores `obj` (freezing it) and returns what it replaced. */
  upsert(obj: T | DeepReadonly<T>): { obj: DeepReadonly<T>; old: DeepReadonly<T> | undefined } {
    const frozen = deepFreeze(obj) as DeepReadonly<T>;
    const key = objectKey(frozen);
    const old = this.items.get(key);
    if (old) this.unindex(key, old);
    this.items.set(key, frozen);
    this.index(key, frozen);
    return { obj: frozen, old };
  }

  remove(key: string): DeepReadonly<T> | undefined {
    const old = this.items.get(key);
    if (!old) return undefined;
    this.unindex(key, old);
    this.items.delete(key);
    return old;
  }

  /**
   * Makes the cache hold exactly `objs`. An object whose resourceVersion did not change is
   * not reported as updated, so a relist after a reconnect does not wake every controller.
   */
  replace(objs: readonly (T | DeepReadonly<T>)[]): ReplaceResult<T> {
    const result = { added: [] as DeepReadonly<T>[], updated: [] as { obj: DeepReadonly<T>; old: DeepReadonly<T> }[], deleted: [] as DeepReadonly<T>[] };
    const seen = new Set<string>();
    for (const o of objs) {
      const key = objectKey(o);
      seen.add(key);
      const existing = this.items.get(key);
      if (existing && existing.metadata?.resourceVersion === o.metadata?.resourceVersion) continue;
      const { obj, old } = this.upsert(o);
      if (old) result.updated.push({ obj, old });
      else result.added.push(obj);
    }
    for (const key of [...this.items.keys()]) {
      if (!seen.has(key)) result.deleted.push(this.remove(key)!);
    }
    return result;
  }

  private index(key: string, obj: DeepReadonly<T>): void {
    for (const [name, fn] of Object.entries(this.indexers)) {
      const idx = this.indices.get(name)!;
      for (const value of new Set(fn(obj))) {
        let keys = idx.get(value);
        if (!keys) idx.set(value, (keys = new Set()));
        keys.add(key);
      }
    }
  }

  private unindex(key: string, obj: DeepReadonly<T>): void {
    for (const [name, fn] of Object.entries(this.indexers)) {
      const idx = this.indices.get(name)!;
      for (const value of new Set(fn(obj))) {
        const keys = idx.get(value);
        if (!keys) continue;
        keys.delete(key);
        // Empty sets would pile up forever under churn of unique values (e.g. owner uids).
        if (keys.size === 0) idx.delete(value);
      }
    }
  }
}
