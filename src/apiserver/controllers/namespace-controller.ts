/**
 * Deleting a namespace deletes what it holds: once a namespace is Terminating, every
 * namespaced object in it is deleted; when none remains, the `kubernetes` finalizer is
 * removed from `spec.finalizers` and the namespace goes. Objects held by their own
 * finalizers or a grace period keep the namespace Terminating, as in Kubernetes. It also keeps
 * the system namespaces (namespace-system.ts): one that is deleted is created again at once, and
 * all are checked every `systemCheckMs`, as kube's system namespaces controller does.
 */
import { isNotFound } from '../errors.ts';
import type { ResourceRegistry } from '../registry/registry.ts';
import type { ObjectStore } from '../registry/store.ts';
import type { StoreEventSource } from './event-source.ts';
import { ensureSystemNamespaces, systemNamespaces } from './namespace-system.ts';
import { KeyedQueue } from './queue.ts';

const manager = 'namespace-controller';
/** The queue key of the system namespaces check; no namespace can be named so. */
const systemKey = '#system-namespaces';

export class NamespaceController {
  readonly queue: KeyedQueue;

  constructor(
    private readonly store: ObjectStore,
    private readonly registry: ResourceRegistry,
    onError: (key: string, err: unknown) => void,
    private readonly recheckMs = 500,
    private readonly systemCheckMs = 60_000,
  ) {
    this.queue = new KeyedQueue((key) => (key === systemKey ? this.syncSystem() : this.sync(key)), { onError, concurrency: 2 });
  }

  async start(events: StoreEventSource): Promise<void> {
    events.subscribe('core/namespaces', (ev) => {
      if (ev.type !== 'delete' && ev.object.metadata.deletionTimestamp) this.queue.add(ev.object.metadata.name);
      if (ev.type === 'delete' && systemNamespaces.includes(ev.object.metadata.name)) this.queue.add(systemKey);
    });
    this.queue.add(systemKey);
    const nsDef = this.registry.lookup('', 'v1', 'namespaces')!;
    for (const ns of (await this.store.list(nsDef, undefined)).items) if (ns.metadata.deletionTimestamp) this.queue.add(ns.metadata.name);
  }

  stop(): void {
    this.queue.stop();
  }

  private async syncSystem(): Promise<void> {
    try {
      await ensureSystemNamespaces(this.store, this.registry);
    } finally {
      this.queue.addAfter(systemKey, this.systemCheckMs);
    }
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
