/**
 * One storage watch over `/registry/` feeding the in-server controllers: each event goes to
 * the subscribers of its storage prefix (or of every prefix), and is decoded (at the storage
 * version of its resource) only if one of them asks for the object, at most once.
 */
import { CompactedError, type KeyValue, type WatchEvent } from '../../storage/types.ts';
import type { ResourceRegistry } from '../registry/registry.ts';
import type { KubeObject, ResourceDefinition } from '../registry/resource.ts';
import type { ObjectStore } from '../registry/store.ts';

export interface StoreEvent {
  readonly type: WatchEvent['type'];
  readonly def: ResourceDefinition;
  readonly key: string;
  /** The stored row (for a delete, the last live value), undecoded. */
  readonly kv: KeyValue;
  readonly prevKv?: KeyValue;
  /** The object, decoded on first use and shared by every subscriber: never modify it. */
  readonly object: KubeObject;
  readonly previous?: KubeObject;
}

class LazyStoreEvent implements StoreEvent {
  readonly type: WatchEvent['type'];
  readonly key: string;
  readonly kv: KeyValue;
  readonly prevKv?: KeyValue;
  private decoded?: KubeObject;
  private decodedPrevious?: KubeObject;

  constructor(
    ev: WatchEvent,
    readonly def: ResourceDefinition,
    private readonly store: ObjectStore,
  ) {
    this.type = ev.type;
    this.key = ev.kv.key;
    this.kv = ev.kv;
    this.prevKv = ev.prevKv;
  }

  get object(): KubeObject {
    return (this.decoded ??= this.store.decode(this.def, this.kv));
  }

  get previous(): KubeObject | undefined {
    if (!this.prevKv) return undefined;
    return (this.decodedPrevious ??= this.store.decode(this.def, this.prevKv));
  }
}

export type StoreEventHandler = (ev: StoreEvent) => void;

/** After a watch ends, before it is resubscribed; doubled after each failed resubscription, up to the maximum. */
const RESUME_MS = 100;
const MAX_RESUME_MS = 5_000;

/** `/registry/apps/deployments/ns/name` → `apps/deployments`. */
export function storagePrefixOf(key: string): string {
  // Every stored write passes here: the segments are found without splitting the whole key.
  const first = key.indexOf('/');
  const second = first < 0 ? -1 : key.indexOf('/', first + 1);
  const third = second < 0 ? -1 : key.indexOf('/', second + 1);
  if (third < 0) {
    const parts = key.split('/');
    return `${parts[2]}/${parts[3]}`;
  }
  const fourth = key.indexOf('/', third + 1);
  return `${key.slice(second + 1, third)}/${fourth < 0 ? key.slice(third + 1) : key.slice(third + 1, fourth)}`;
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
    let last = afterRevision;
    let retryMs = RESUME_MS;
    // The controllers must never stop seeing events: a watch that ends is resubscribed from
    // where it was, or, if that history is gone, from now (their queues retry, and their next
    // events resync them). A failed resubscription (the store busy, say) is tried again, backing
    // off to a few seconds: given up, this server would never again learn of a CRD or a
    // namespace another replica creates.
    const resume = (): void => {
      if (signal.aborted) return;
      void run().then(
        () => (retryMs = RESUME_MS),
        async (err: unknown) => {
          if (signal.aborted) return;
          this.onError(err);
          if (err instanceof CompactedError) last = await this.store.backend.currentRevision().catch(() => last);
          setTimeout(resume, retryMs).unref();
          retryMs = Math.min(retryMs * 2, MAX_RESUME_MS);
        },
      );
    };
    const run = (): Promise<void> =>
      this.store.backend.watch('/registry/', {
        afterRevision: last,
        signal,
        onEvents: (events) => {
          for (const ev of events) {
            last = ev.kv.modRevision;
            this.dispatch(ev);
          }
        },
        onClose: () => {
          if (!signal.aborted) setTimeout(resume, RESUME_MS).unref();
        },
      });
    await run();
  }

  private dispatch(ev: WatchEvent): void {
    const prefix = storagePrefixOf(ev.kv.key);
    const handlers = this.byPrefix.get(prefix);
    if (!handlers && this.everything.size === 0) return;
    const def = this.registry.byStoragePrefix(prefix);
    if (!def) return;
    const event = new LazyStoreEvent(ev, def, this.store);
    // A handler must not stop the others (a value that fails to decode is reported, not fatal).
    for (const h of [...(handlers ?? []), ...this.everything]) {
      try {
        h(event);
      } catch (e) {
        this.onError(e);
      }
    }
  }
}
