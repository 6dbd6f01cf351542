/**
 * The table of served resources. Built-ins are registered at start; the CRD controller
 * registers and removes custom resources at run time. A generation counter lets discovery
 * and OpenAPI rebuild their cached documents only when the table changed.
 */
import { apiVersionOf, gvrKey, type ResourceDefinition } from './resource.ts';

export class ResourceRegistry {
  private readonly byGvr = new Map<string, ResourceDefinition>();
  private readonly listeners = new Set<() => void>();
  private readonly byStorage = new Map<string, ResourceDefinition | undefined>();
  private gen = 0;

  get generation(): number {
    return this.gen;
  }

  register(defs: readonly ResourceDefinition[]): void {
    for (const d of defs) this.byGvr.set(gvrKey(d.group, d.version, d.resource), d);
    this.changed();
  }

  /** Replaces every definition owned by one CRD with a new set (possibly empty). */
  replaceCrd(crdName: string, defs: readonly ResourceDefinition[]): void {
    for (const [k, d] of this.byGvr) if (d.crd?.name === crdName) this.byGvr.delete(k);
    for (const d of defs) this.byGvr.set(gvrKey(d.group, d.version, d.resource), d);
    this.changed();
  }

  lookup(group: string, version: string, resource: string): ResourceDefinition | undefined {
    return this.byGvr.get(gvrKey(group, version, resource));
  }

  all(): ResourceDefinition[] {
    return [...this.byGvr.values()];
  }

  /** The definition serving `kind` at `apiVersion` (used for owner references). */
  byKind(apiVersion: string, kind: string): ResourceDefinition | undefined {
    for (const d of this.byGvr.values()) if (d.kind === kind && apiVersionOf(d) === apiVersion) return d;
    return undefined;
  }

  /** One definition per storage prefix (the storage version's), for whole-store walks such as garbage collection. */
  byStoragePrefix(prefix: string): ResourceDefinition | undefined {
    if (this.byStorage.has(prefix)) return this.byStorage.get(prefix);
    let found: ResourceDefinition | undefined;
    for (const d of this.byGvr.values()) {
      if (d.storagePrefix !== prefix || d.conversion) continue;
      if (!found || apiVersionOf(d) === d.storageVersion) found = d;
    }
    this.byStorage.set(prefix, found);
    return found;
  }

  storageDefinitions(): ResourceDefinition[] {
    const seen = new Map<string, ResourceDefinition>();
    for (const d of this.byGvr.values()) {
      const best = this.byStoragePrefix(d.storagePrefix);
      if (best) seen.set(d.storagePrefix, best);
    }
    return [...seen.values()];
  }

  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private changed(): void {
    this.gen++;
    this.byStorage.clear();
    for (const l of this.listeners) l();
  }
}
