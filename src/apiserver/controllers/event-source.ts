/**
 * One storage watch over `/registry/` feeding the in-server controllers: each event is
 * decoded once, at the storage version of its resource, and handed to the subscribers of
 * its storage prefix (or of every prefix).
 */
import { CompactedError, type WatchEvent } from '../../storage/types.ts';
import type { ResourceRegistry } from '../registry/registry.ts';
import type { KubeObject, ResourceDefinition } from '../registry/resource.ts';
import type { ObjectStore } from '../registry/store.ts';

export interface StoreEvent {
  readonly type: WatchEvent['type'];
  readonly def: ResourceDefinition;
  readonly key: string;
  readonly object: KubeObject;
  readonly previous?: KubeObject;
}

export type StoreEventHandler = (ev: StoreEvent) => void;

/** `/registry/apps/deployments/ns/name` → `apps/deployments`. */
export function storagePrefixOf(key: string): string {
  const parts = key.split('/');
  return `${parts[2]}/${parts[3]}`;
}

export class StoreEventSource {
  private readonly byPrefix = new Map<string, Set<StoreEventHandler>>();
  private readonly everything = new Set<StoreEventHandler>();

  constructor(
    private readonly store: ObjectStore,
    private readonly registry: ResourceRegistry,
    private readonly onError: (err: unknown) => void,
  ) {}

  subscribe(prefix: string | '*', handler: StoreEventHandler): void {
    if (prefix === '*') this.everything.add(handler);
    else {
      const set = this.byPrefix.get(prefix) ?? new Set();
      set.add(handler);
      this.byPrefix.set(prefix, set);
    }
  }

  async start(afterRevision: number, signal: AbortSignal): Promise<void> {
    const run = async (from: number): Promise<void> => {
      let last = from;
      await this.store.backend.watch('/registry/', {
        afterRevision: from,
        signal,
        onEvents: (events) => {
          for (const ev of events) {
            last = ev.kv.modRevision;
            this.dispatch(ev);
          }
        },
        // The controllers must never stop seeing events: resubscribe from where they were, or,
        // if that history is gone, from now (their queues retry, and their next events resync them).
        onClose: () => {
          if (signal.aborted) return;
          const resume = (): void =>
            void run(last).catch(async (err: unknown) => {
              this.onError(err);
              if (err instanceof CompactedError && !signal.aborted) {
                last = await this.store.backend.currentRevision();
                setTimeout(resume, 100).unref();
              }
            });
          setTimeout(resume, 100).unref();
        },
      });
    };
    await run(afterRevision);
  }

  private dispatch(ev: WatchEvent): void {
    const prefix = storagePrefixOf(ev.kv.key);
    const handlers = this.byPrefix.get(prefix);
    if (!handlers && this.everything.size === 0) return;
    const def = this.registry.byStoragePrefix(prefix);
    if (!def) return;
    let event: StoreEvent;
    try {
      event = {
        type: ev.type,
        def,
        key: ev.kv.key,
        object: this.store.decode(def, ev.kv),
        previous: ev.prevKv ? this.store.decode(def, ev.prevKv) : undefined,
      };
    } catch (e) {
      this.onError(e);
      return;
    }
    for (const h of handlers ?? []) h(event);
    for (const h of this.everything) h(event);
  }
}
