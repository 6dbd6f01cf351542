/**
 * Deleting a namespace deletes what it holds: once a namespace is Terminating, every
 * namespaced object in it is deleted; when none remains, the `kubernetes` finalizer is
 * removed from `spec.finalizers` and the namespace goes. Objects held by their own
 * finalizers or a grace period keep the namespace Terminating, as in Kubernetes.
 */
import { isNotFound } from '../errors.ts';
import type { ResourceRegistry } from '../registry/registry.ts';
import type { ObjectStore } from '../registry/store.ts';
import type { StoreEventSource } from './event-source.ts';
import { KeyedQueue } from './queue.ts';

const manager = 'namespace-controller';

export class NamespaceController {
  readonly queue: KeyedQueue;

  constructor(
    private readonly store: ObjectStore,
    private readonly registry: ResourceRegistry,
    onError: (key: string, err: unknown) => void,
    private readonly recheckMs = 500,
  ) {
    this.queue = new KeyedQueue((ns) => this.sync(ns), { onError, concurrency: 2 });
  }

  async start(events: StoreEventSource): Promise<void> {
    events.subscribe('core/namespaces', (ev) => {
      if (ev.type !== 'delete' && ev.object.metadata.deletionTimestamp) this.queue.add(ev.object.metadata.name);
    });
    const nsDef = this.registry.lookup('', 'v1', 'namespaces')!;
    for (const ns of (await this.store.list(nsDef, undefined)).items) if (ns.metadata.deletionTimestamp) this.queue.add(ns.metadata.name);
  }

  stop(): void {
    this.queue.stop();
  }

  private async sync(name: string): Promise<void> {
    const nsDef = this.registry.lookup('', 'v1', 'namespaces')!;
    let ns;
    try {
      ns = await this.store.get(nsDef, undefined, name);
    } catch (e) {
      if (isNotFound(e)) return;
      throw e;
    }
    if (!ns.metadata.deletionTimestamp) return;
    let remaining = 0;
    for (const def of this.registry.storageDefinitions()) {
      if (!def.namespaced) continue;
      const items = (await this.store.list(def, name)).items;
      remaining += items.length;
      for (const obj of items) {
        if (obj.metadata.deletionTimestamp) continue;
        await this.store.delete(def, name, obj.metadata.name, { propagationPolicy: 'Background' }, { manager }).catch((e) => {
          if (!isNotFound(e)) throw e;
        });
      }
    }
    if (remaining > 0) {
      this.queue.addAfter(name, this.recheckMs);
      return;
    }
    if ((ns.spec?.finalizers ?? []).includes('kubernetes')) {
      await this.store.guaranteedUpdate(nsDef, undefined, name, { manager, subresource: 'finalize' }, (cur) => {
        cur.spec = { ...(cur.spec ?? {}), finalizers: (cur.spec?.finalizers ?? []).filter((f: string) => f !== 'kubernetes') };
        delete cur.metadata.resourceVersion;
        return cur;
      });
    }
  }
}
