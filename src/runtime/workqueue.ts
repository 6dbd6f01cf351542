/**
 * The queue between event handlers and reconcile workers, with client-go workqueue semantics.
 * Handlers add keys, never events (style example 2), so a key already waiting absorbs further
 * adds: ten updates to one object cost one reconcile. A key is never handed to two workers at
 * once; one added while it is being processed is marked dirty and queued again when the
 * worker calls `done`, so the change that arrived mid-reconcile is not lost. Delayed adds
 * (`addAfter`) and rate-limited adds (`addRateLimited`) live here too, because the queue owns
 * retries, in one place (style example 4).
 */
import { realClock, type Cancel, type Clock } from './clock.ts';
import { defaultControllerRateLimiter, type RateLimiter } from './rate-limiter.ts';

export interface RateLimitingQueue {
  add(key: string): void;
  /** Adds `key` once `ms` have passed; if it is already waiting, the earlier time wins. */
  addAfter(key: string, ms: number): void;
  /** Adds `key` after the rate limiter's delay for it (records a failure). */
  addRateLimited(key: string): void;
  /** Clears the rate limiter's failure history for `key`; does not remove it from the queue. */
  forget(key: string): void;
  numRequeues(key: string): number;
  /**
   * The next key, marked as processing until `done(key)`. Waits while the queue is empty;
   * resolves undefined once the queue is shut down and has nothing left to hand out.
   */
  get(): Promise<string | undefined>;
  done(key: string): void;
  /** Keys ready to be handed out (not those processing or waiting on a delay). */
  len(): number;
  /** Stops accepting adds and drops delayed ones; keys already queued are still handed out. */
  shutDown(): void;
  /** As `shutDown`, then resolves once every queued key has been handed out and is `done`. */
  shutDownWithDrain(): Promise<void>;
  isShuttingDown(): boolean;
}

export interface WorkQueueOptions {
  clock?: Clock;
  rateLimiter?: RateLimiter;
}

interface Delayed {
  readonly due: number;
  readonly cancel: Cancel;
}

export class WorkQueue implements RateLimitingQueue {
  private readonly clock: Clock;
  private readonly rateLimiter: RateLimiter;
  /** Ready keys in FIFO order; every key here is also in `dirty`. */
  private readonly queue: string[] = [];
  /** Keys that need processing: queued, or added again while processing. */
  private readonly dirty = new Set<string>();
  private readonly processing = new Set<string>();
  private readonly delayed = new Map<string, Delayed>();
  private readonly getters: Array<(key: string | undefined) => void> = [];
  private drainWaiters: Array<() => void> = [];
  private shuttingDown = false;

  constructor(opts: WorkQueueOptions = {}) {
    this.clock = opts.clock ?? realClock;
    this.rateLimiter = opts.rateLimiter ?? defaultControllerRateLimiter({ clock: this.clock });
  }

  add(key: string): void {
    if (this.shuttingDown || this.dirty.has(key)) return;
    this.dirty.add(key);
    // A key being processed goes back on the queue at done(), not now: that is what keeps
    // two workers off the same key.
    if (this.processing.has(key)) return;
    this.queue.push(key);
    this.dispatch();
  }

  addAfter(key: string, ms: number): void {
    if (this.shuttingDown) return;
    if (!(ms > 0)) {
      this.add(key);
      return;
    }
    const due = this.clock.now() + ms;
    const existing = this.delayed.get(key);
    // A requeueAfter poll must not postpone an earlier retry already scheduled for the key.
    if (existing && existing.due <= due) return;
    existing?.cancel();
    const cancel = this.clock.setTimeout(() => {
      this.delayed.delete(key);
      this.add(key);
    }, ms);
    this.delayed.set(key, { due, cancel });
  }

  addRateLimited(key: string): void {
    if (this.shuttingDown) return;
    this.addAfter(key, this.rateLimiter.when(key));
  }

  forget(key: string): void {
    this.rateLimiter.forget(key);
  }

  numRequeues(key: string): number {
    return this.rateLimiter.numRequeues(key);
  }

  get(): Promise<string | undefined> {
    if (this.queue.length > 0) return Promise.resolve(this.take());
    if (this.shuttingDown) return Promise.resolve(undefined);
    return new Promise((resolve) => this.getters.push(resolve));
  }

  done(key: string): void {
    if (!this.processing.delete(key)) return;
    if (this.dirty.has(key)) {
      // Re-queued even when shutting down: the add was accepted before shutdown, and a
      // draining queue promised to hand out everything it had accepted.
      this.queue.push(key);
      this.dispatch();
    }
    this.checkDrained();
  }

  len(): number {
    return this.queue.length;
  }

  shutDown(): void {
    if (this.shuttingDown) return;
    this.shuttingDown = true;
    for (const d of this.delayed.values()) d.cancel();
    this.delayed.clear();
    // Getters only wait while the queue is empty, so every one of them now gets undefined.
    for (const resolve of this.getters.splice(0)) resolve(undefined);
    this.checkDrained();
  }

  shutDownWithDrain(): Promise<void> {
    const drained = new Promise<void>((resolve) => this.drainWaiters.push(resolve));
    this.shutDown();
    this.checkDrained();
    return drained;
  }

  isShuttingDown(): boolean {
    return this.shuttingDown;
  }

  private take(): string {
    const key = this.queue.shift()!;
    this.dirty.delete(key);
    this.processing.add(key);
    return key;
  }

  /** Hands ready keys straight to waiting getters, marking them processing before any await. */
  private dispatch(): void {
    while (this.getters.length > 0 && this.queue.length > 0) this.getters.shift()!(this.take());
  }

  private checkDrained(): void {
    if (!this.shuttingDown || this.queue.length > 0 || this.processing.size > 0) return;
    for (const resolve of this.drainWaiters.splice(0)) resolve();
  }
}
