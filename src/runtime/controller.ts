/**
 * A controller: a reconcile function, a work queue of keys, and the informer events that feed
 * it. Event handlers only ever enqueue keys (style example 2); what a key means is decided in
 * reconcile, which reads the current state from the cache, so missing or coalesced events
 * cannot leave the controller wrong (level-triggered, idempotent).
 *
 * `watch*` helpers say which keys an event concerns: the object itself, its controlling
 * owner (a Pod → its ReplicaSet), or anything a mapping function returns (a Node → the
 * DaemonSets that may place a pod on it).
 */
import type { KubernetesObject, V1OwnerReference } from '@kubernetes/client-node';
import { errorText, isConflict } from '../api/status.ts';
import { objectKey } from './cache.ts';
import type { Informer } from './informer.ts';
import type { DeepReadonly } from './readonly.ts';
import { runWorkers, type Reconcile, type ReconcileReport } from './reconcile-loop.ts';
import { WorkQueue } from './workqueue.ts';
import type { RateLimiter } from './rate-limiter.ts';
import { realClock, type Clock } from './clock.ts';

/** What a controller reports to; ComponentMetrics.forController() satisfies it. */
export interface ControllerObserver {
  observe(report: ReconcileReport): void;
  setDepth(n: number): void;
  countAdd(): void;
}

export interface ControllerOptions {
  name: string;
  reconcile: Reconcile;
  workers?: number;
  rateLimiter?: RateLimiter;
  clock?: Clock;
  observer?: ControllerObserver;
  /** Told about every reconcile failure, e.g. to log it with the key. */
  onError?: (report: ReconcileReport) => void;
}

export class Controller {
  readonly name: string;
  readonly queue: WorkQueue;
  private readonly options: ControllerOptions;
  private resync: { readonly everyMs: number; readonly keys: () => Iterable<string> } | undefined;

  constructor(options: ControllerOptions) {
    this.name = options.name;
    this.options = options;
    this.queue = new WorkQueue({ clock: options.clock, rateLimiter: options.rateLimiter });
  }

  enqueue(key: string): void {
    this.options.observer?.countAdd();
    this.queue.add(key);
    this.options.observer?.setDepth(this.queue.len());
  }

  enqueueAfter(key: string, ms: number): void {
    this.queue.addAfter(key, ms);
  }

  /** Enqueues the object's own key on add, update and delete. */
  watch<T extends KubernetesObject>(informer: Informer<T>, filter?: (obj: DeepReadonly<T>) => boolean): this {
    return this.watchMapped(informer, (o) => (!filter || filter(o) ? [objectKey(o)] : []));
  }

  /**
   * Enqueues the controlling owner of kind `ownerKind` (same namespace, as ownerReferences are),
   * on add, update and delete; on an update that changed owner, both.
   */
  watchOwned<T extends KubernetesObject>(informer: Informer<T>, ownerKind: string): this {
    return this.watchMapped(informer, (o) => {
      const ref = controllerOf(o);
      if (!ref || ref.kind !== ownerKind) return [];
      return [o.metadata?.namespace ? `${o.metadata.namespace}/${ref.name}` : ref.name];
    });
  }

  /** Enqueues whatever keys `map` returns for the object (old and new, on update). */
  watchMapped<T extends KubernetesObject>(informer: Informer<T>, map: (obj: DeepReadonly<T>) => readonly string[]): this {
    const enqueueAll = (o: DeepReadonly<T>): void => {
      for (const k of map(o)) this.enqueue(k);
    };
    informer.on('add', enqueueAll);
    informer.on('update', (obj, old) => {
      enqueueAll(obj);
      enqueueAll(old);
    });
    informer.on('delete', enqueueAll);
    return this;
  }

  /**
   * Enqueues `keys()` every `everyMs` while running, whatever else happens (library-go's
   * `ResyncEvery`): a safety net under the events. A key whose last reconcile failed waits out
   * its failure backoff, which doubles up to 16 minutes, and only an event brings it back
   * sooner; in a quiet cluster none may come. The resync bounds that wait, and a lost event's,
   * to one period. A plain add, so it never lengthens a backoff; a reconcile that succeeds
   * resets it.
   */
  resyncEvery(everyMs: number, keys: () => Iterable<string>): this {
    if (!(everyMs > 0)) throw new RangeError(`controller ${this.name}: resync period must be a positive number of milliseconds, got ${everyMs}`);
    this.resync = { everyMs, keys };
    return this;
  }

  /** Runs the workers until `signal` aborts; in-flight reconciles are awaited. */
  run(signal: AbortSignal): Promise<void> {
    const { observer, onError } = this.options;
    const stopResync = this.startResync(signal);
    return runWorkers({
      queue: this.queue,
      workers: this.options.workers ?? 1,
      reconcile: this.options.reconcile,
      signal,
      clock: this.options.clock,
      onResult: (report) => {
        observer?.observe(report);
        observer?.setDepth(this.queue.len());
        if (report.result === 'error' || report.result === 'terminal') onError?.(report);
      },
    }).finally(stopResync);
  }

  private startResync(signal: AbortSignal): () => void {
    const resync = this.resync;
    if (!resync || signal.aborted) return () => {};
    const clock = this.options.clock ?? realClock;
    let cancel = (): void => {};
    const tick = (): void => {
      if (signal.aborted) return;
      for (const key of resync.keys()) this.enqueue(key);
      cancel = clock.setTimeout(tick, resync.everyMs);
    };
    cancel = clock.setTimeout(tick, resync.everyMs);
    const stop = (): void => cancel();
    signal.addEventListener('abort', stop, { once: true });
    return () => {
      signal.removeEventListener('abort', stop);
      stop();
    };
  }
}

/** The two levels logSyncFailure writes at; a pino Logger has them. */
export interface SyncFailureLogger {
  debug(fields: object, message: string): void;
  warn(fields: object, message: string): void;
}

/**
 * An `onError` that logs a failed sync with its key and error at warn, so a controller that
 * keeps failing says why in its log; one that `routine` says is a normal outcome of optimistic
 * concurrency (a 409 by default: another writer got there first, and the retry reads again) at
 * debug.
 */
export function logSyncFailure(logger: SyncFailureLogger, message: string, routine: (err: unknown) => boolean = isConflict): (report: ReconcileReport) => void {
  return (r) => logger[routine(r.error) ? 'debug' : 'warn']({ key: r.key, err: errorText(r.error) }, message);
}

/** The ownerReference with `controller: true`, if any. */
export function controllerOf(obj: { readonly metadata?: { readonly ownerReferences?: readonly DeepReadonly<V1OwnerReference>[] } }): DeepReadonly<V1OwnerReference> | undefined {
  return obj.metadata?.ownerReferences?.find((r) => r.controller === true);
}

/** Splits a queue key back into namespace and name. */
export function splitKey(key: string): { namespace: string | undefined; name: string } {
  const slash = key.indexOf('/');
  return slash < 0 ? { namespace: undefined, name: key } : { namespace: key.slice(0, slash), name: key.slice(slash + 1) };
}
