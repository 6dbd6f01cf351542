/**
 * A shared informer over one resource: list once, then watch from the list's resourceVersion,
 * keeping an indexed cache and telling handlers about adds, updates and deletes.
 *
 * It exists because @kubernetes/client-node 1.4.0's own informer stops for good on any error
 * other than 410 and reconnects without backoff (shared/reference/dependencies.md). This one
 * never stops until its AbortSignal fires: failures restart the watch from the last
 * resourceVersion after an exponential backoff, and 410 Gone (history compacted) relists,
 * with the relist diffed against the cache so vanished objects are reported as deletes.
 * Watches ask for bookmarks, so a quiet resource still advances the resourceVersion and a
 * reconnect rarely needs a relist, and carry a randomised timeoutSeconds so connections
 * recycle at spread times instead of all at once.
 */
import type { KubernetesListObject, KubernetesObject } from '@kubernetes/client-node';
import type { KubeAccess } from './kubeconfig.ts';
import { watchClientFor } from './watch.ts';
import { ObjectCache, objectKey, type IndexFunc, type ReadonlyCache } from './cache.ts';
import { sleep } from './clock.ts';
import type { DeepReadonly } from './readonly.ts';

export interface InformerOptions<T extends KubernetesObject> {
  readonly kubeConfig: KubeAccess;
  /** Collection path, e.g. `/api/v1/configmaps` or `/api/v1/namespaces/x/configmaps`. */
  readonly path: string;
  /** Lists the collection; it must apply the selectors it is given, or the cache and the watch disagree. */
  readonly list: (selectors: { labelSelector?: string; fieldSelector?: string }) => Promise<KubernetesListObject<T>>;
  readonly labelSelector?: string;
  readonly fieldSelector?: string;
  readonly indexers?: Record<string, IndexFunc<T>>;
  readonly signal: AbortSignal;
  /** Told about every failure the informer recovers from; never needed for correctness. */
  readonly onError?: (err: unknown) => void;
  /** Reconnect backoff: 100 ms doubling to 30 s by default. */
  readonly backoff?: { readonly initialMs?: number; readonly maxMs?: number };
  /** Server-side watch timeout range in seconds; default 300-600 (kube's reflector uses 5-10 min). */
  readonly watchTimeoutSeconds?: { readonly min: number; readonly max: number };
  /** Injected for tests; defaults to Math.random. */
  readonly random?: () => number;
  /**
   * Applied to every object before it is cached or handed to handlers (client-go's
   * TransformFunc); it receives a fresh object it may change or replace.
   */
  readonly transform?: (obj: T) => T;
  /** The watch request's Accept header (e.g. PartialObjectMetadata); `list` must ask for the same shape. */
  readonly watchAccept?: string;
}

export type AddHandler<T> = (obj: DeepReadonly<T>) => void;
export type UpdateHandler<T> = (obj: DeepReadonly<T>, old: DeepReadonly<T>) => void;
export type DeleteHandler<T> = (obj: DeepReadonly<T>) => void;

export interface Informer<T extends KubernetesObject> {
  readonly store: ReadonlyCache<T>;
  /** Adds a secondary index (see ObjectCache.addIndexer); safe before or after sync. */
  addIndexer(name: string, fn: IndexFunc<T>): void;
  hasSynced(): boolean;
  /** Resolves after the first list has been applied; rejects if the signal fires first. */
  waitForSync(): Promise<void>;
  /**
   * Registers a handler and returns its unsubscribe function. A new `add` handler is first
   * given every object already cached, so a late subscriber starts from the same state as
   * an early one (client-go's AddEventHandler does the same).
   */
  on(event: 'add', handler: AddHandler<T>): () => void;
  on(event: 'update', handler: UpdateHandler<T>): () => void;
  on(event: 'delete', handler: DeleteHandler<T>): () => void;
  /** The last resourceVersion seen (list, event or bookmark). */
  resourceVersion(): string | undefined;
  /** Resolves once the signal has fired and the current watch has been closed. */
  readonly done: Promise<void>;
}

class GoneError extends Error {
  constructor() {
    super('resourceVersion too old (410 Gone)');
  }
}

/** A watch that delivered events or stayed open this long counts as healthy and resets the backoff. */
const HEALTHY_WATCH_MS = 1000;

export function createInformer<T extends KubernetesObject>(options: InformerOptions<T>): Informer<T> {
  const { signal } = options;
  const cache = new ObjectCache<T>(options.indexers);
  const random = options.random ?? Math.random;
  const initialBackoff = options.backoff?.initialMs ?? 100;
  const maxBackoff = options.backoff?.maxMs ?? 30_000;
  const timeoutRange = options.watchTimeoutSeconds ?? { min: 300, max: 600 };
  const transform = options.transform;
  const handlers = { add: new Set<AddHandler<T>>(), update: new Set<UpdateHandler<T>>(), delete: new Set<DeleteHandler<T>>() };
  const watcher = watchClientFor(options.kubeConfig, options.watchAccept);
  let synced = false;
  let rv: string | undefined;
  let resolveSync!: () => void;
  let rejectSync!: (err: unknown) => void;
  const syncPromise = new Promise<void>((res, rej) => {
    resolveSync = res;
    rejectSync = rej;
  });
  // Nobody may be waiting for sync; an unobserved rejection would crash the process.
  syncPromise.catch(() => {});

  const reportError = (err: unknown): void => {
    try {
      options.onError?.(err);
    } catch {
      // An error reporter that throws must not take the informer down with it.
    }
  };

  // Handlers must never throw (style example 5); if one does, the others still run and the
  // cache stays consistent.
  const emit = <A extends unknown[]>(set: Set<(...args: A) => void>, ...args: A): void => {
    for (const h of set) {
      try {
        h(...args);
      } catch (err) {
        reportError(err);
      }
    }
  };

  async function relist(): Promise<void> {
    const list = await options.list({ labelSelector: options.labelSelector, fieldSelector: options.fieldSelector });
    if (signal.aborted) return;
    const { added, updated, deleted } = cache.replace(transform ? list.items.map(transform) : list.items);
    rv = list.metadata?.resourceVersion;
    for (const o of deleted) emit(handlers.delete, o);
    for (const o of added) emit(handlers.add, o);
    for (const u of updated) emit(handlers.update, u.obj, u.old);
    if (!synced) {
      synced = true;
      resolveSync();
    }
  }

  function applyEvent(type: string, received: T): void {
    const obj = transform ? transform(received) : received;
    switch (type) {
      case 'ADDED':
      case 'MODIFIED': {
        const existing = cache.get(objectKey(obj));
        if (existing && existing.metadata?.resourceVersion === obj.metadata?.resourceVersion) break;
        const { obj: stored, old } = cache.upsert(obj);
        if (old) emit(handlers.update, stored, old);
        else emit(handlers.add, stored);
        break;
      }
      case 'DELETED': {
        // Report the final state the server sent, which may be newer than the cached one.
        if (cache.remove(objectKey(obj))) emit(handlers.delete, obj as DeepReadonly<T>);
        break;
      }
    }
    const next = obj.metadata?.resourceVersion;
    if (next) rv = next;
  }

  /** Runs one watch until it ends. Resolves with whether it was healthy; rejects on failure. */
  function watchOnce(fromRv: string): Promise<boolean> {
    return new Promise<boolean>((resolve, reject) => {
      const timeoutSeconds = Math.floor(timeoutRange.min + random() * (timeoutRange.max - timeoutRange.min));
      const started = Date.now();
      let events = 0;
      let failure: unknown;
      let controller: AbortController | undefined;
      let finished = false;
      const abort = (): void => controller?.abort();
      // A half-open connection would hang forever; past the server's deadline plus slack, the
      // client gives up itself.
      const guard = setTimeout(() => {
        failure ??= new Error(`watch ${options.path} exceeded ${timeoutSeconds}s without closing`);
        abort();
      }, (timeoutSeconds + 30) * 1000);
      signal.addEventListener('abort', abort, { once: true });
      const finish = (err: unknown): void => {
        if (finished) return;
        finished = true;
        clearTimeout(guard);
        signal.removeEventListener('abort', abort);
        const cause = failure ?? err;
        if (signal.aborted) resolve(true);
        else if (cause) reject(cause);
        else resolve(events > 0 || Date.now() - started >= HEALTHY_WATCH_MS);
      };
      watcher
        .watch(
          options.path,
          { resourceVersion: fromRv, allowWatchBookmarks: true, timeoutSeconds, labelSelector: options.labelSelector, fieldSelector: options.fieldSelector },
          (type: string, obj: unknown) => {
            if (finished || failure) return;
            events++;
            if (type === 'BOOKMARK') {
              const next = (obj as KubernetesObject | undefined)?.metadata?.resourceVersion;
              if (next) rv = next;
            } else if (type === 'ERROR') {
              // The server closes the stream after a 410; aborting as well makes that certain.
              const code = (obj as { code?: number } | undefined)?.code;
              failure = code === 410 ? new GoneError() : new Error(`watch ${options.path}: ${(obj as { message?: string } | undefined)?.message ?? 'ERROR event'}`);
              abort();
            } else {
              applyEvent(type, obj as T);
            }
          },
          (err: unknown) => finish(isGone(err) ? new GoneError() : err),
        )
        .then(
          (c) => {
            controller = c;
            if (signal.aborted || finished || failure) c.abort();
          },
          (err: unknown) => finish(err),
        );
    });
  }

  async function run(): Promise<void> {
    let backoff = initialBackoff;
    // One relist right after a 410 is expected; a second 410 with no healthy watch between
    // means something is wrong, and relisting in a tight loop would hammer the server.
    let goneInARow = 0;
    while (!signal.aborted) {
      try {
        if (rv === undefined) await relist();
        if (signal.aborted) break;
        if (rv === undefined) throw new Error(`list of ${options.path} returned no resourceVersion`);
        if (await watchOnce(rv)) {
          // A healthy watch that ended (server timeout, bookmark-only quiet period): reconnect at once.
          backoff = initialBackoff;
          goneInARow = 0;
          continue;
        }
      } catch (err) {
        if (err instanceof GoneError) {
          // History since our resourceVersion is gone: only a fresh list can tell what changed.
          rv = undefined;
          reportError(err);
          if (goneInARow++ === 0) continue;
        }
        reportError(err);
      }
      await sleep(backoff, signal);
      backoff = Math.min(backoff * 2, maxBackoff);
    }
    if (!synced) rejectSync(signal.reason ?? new Error('informer stopped before it synced'));
  }

  const done = run();

  return {
    store: cache,
    addIndexer: (name, fn) => cache.addIndexer(name, fn),
    hasSynced: () => synced,
    waitForSync: () => syncPromise,
    resourceVersion: () => rv,
    on(event: 'add' | 'update' | 'delete', handler: AddHandler<T> | UpdateHandler<T> | DeleteHandler<T>): () => void {
      const set = handlers[event] as Set<typeof handler>;
      if (event === 'add') {
        for (const o of cache.list()) emit(new Set([handler as AddHandler<T>]), o);
      }
      set.add(handler);
      return () => {
        set.delete(handler);
      };
    },
    done,
  };
}

function isGone(err: unknown): boolean {
  return typeof err === 'object' && err !== null && (err as { statusCode?: unknown }).statusCode === 410;
}

/**
 * Drops `metadata.managedFields`, which no controller reads and which is about half of a pod's
 * JSON and more than half of its cached size: kube-scheduler and kube-controller-manager strip
 * them from their informers for the same reason (client-go's TransformStripManagedFields).
 * A write built from a stripped object sends no managedFields, which the server reads as
 * "keep what is there".
 */
export function stripManagedFields<T extends KubernetesObject>(obj: T): T {
  const metadata = obj.metadata;
  if (!metadata || !('managedFields' in metadata)) return obj;
  // A new metadata object rather than `delete`, which would leave it a slow dictionary-mode object.
  const { managedFields: _dropped, ...rest } = metadata;
  return { ...obj, metadata: rest };
}
