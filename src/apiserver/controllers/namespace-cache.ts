/**
 * Which namespaces are Active, kept from the store's events, so that a create need not read
 * its namespace from storage first. Only a positive answer is trusted: a namespace the cache
 * does not know as Active is looked up in storage (another process may have created it).
 * Events are dispatched before the write that caused them is acknowledged, so a namespace a
 * client has seen created is already in the cache.
 */
import type { ResourceRegistry } from '../registry/registry.ts';
import type { KubeObject } from '../registry/resource.ts';
import type { ObjectStore } from '../registry/store.ts';
import type { StoreEventSource } from './event-source.ts';

function isActive(ns: KubeObject): boolean {
  return !ns.metadata?.deletionTimestamp && ns.status?.phase !== 'Terminating';
}

export class NamespaceCache {
  private readonly active = new Set<string>();

  async start(events: StoreEventSource, store: ObjectStore, registry: ResourceRegistry): Promise<void> {
    events.subscribe('core/namespaces', (ev) => {
      const name = ev.object.metadata.name as string;
      if (ev.type !== 'delete' && isActive(ev.object)) this.active.add(name);
      else this.active.delete(name);
    });
    const def = registry.lookup('', 'v1', 'namespaces')!;
    for (const ns of (await store.list(def, undefined)).items) if (isActive(ns)) this.active.add(ns.metadata.name);
  }

  isActive(name: string): boolean {
    return this.active.has(name);
  }
}
