/**
 * How long a key waits before it is retried. These follow client-go's workqueue rate limiters
 * by their documented behaviour: a per-key exponential backoff so one broken object backs off
 * alone, a shared token bucket so a burst of failures across many keys cannot hammer the API
 * server, and `maxOf` to combine them so the longer wait wins. `defaultControllerRateLimiter`
 * is the combination every controller gets unless it asks otherwise (style example 4).
 */
import { realClock, type Clock } from './clock.ts';

export interface RateLimiter {
  /** Records one more attempt for `item` and returns how long to wait before it, in ms. */
  when(item: string): number;
  /** Stops tracking `item`: its next failure starts from the base delay again. */
  forget(item: string): void;
  /** Failures recorded for `item` since it was last forgotten. */
  numRequeues(item: string): number;
}

export interface ExponentialOptions {
  /** Delay after the first failure. Default 5 ms. */
  baseMs?: number;
  /** Ceiling, reached after enough doublings. Default 1000 s. */
  maxMs?: number;
}

/**
 * baseMs · 2^failures, capped at maxMs. It counts failures rather than reading the clock, so it
 * takes no Clock: the delay depends only on how often the key has failed since `forget`.
 */
export class ExponentialFailureRateLimiter implements RateLimiter {
  private readonly baseMs: number;
  private readonly maxMs: number;
  private readonly failures = new Map<string, number>();

  constructor(opts: ExponentialOptions = {}) {
    this.baseMs = opts.baseMs ?? 5;
    this.maxMs = opts.maxMs ?? 1_000_000;
    if (!(this.baseMs > 0)) throw new RangeError(`baseMs must be > 0, got ${this.baseMs}`);
    if (!(this.maxMs >= this.baseMs)) throw new RangeError(`maxMs must be >= baseMs, got ${this.maxMs}`);
  }

  when(item: string): number {
    const n = this.failures.get(item) ?? 0;
    this.failures.set(item, n + 1);
    // For a key that fails forever 2 ** n eventually becomes Infinity; min() still caps it.
    return Math.min(this.baseMs * 2 ** n, this.maxMs);
  }

  forget(item: string): void {
    this.failures.delete(item);
  }

  numRequeues(item: string): number {
    return this.failures.get(item) ?? 0;
  }
}

export interface TokenBucketOptions {
  /** Tokens added per second. Default 10. */
  qps?: number;
  /** Bucket size, and so the largest burst served without waiting. Default 100. */
  burst?: number;
  clock?: Clock;
}

/**
 * An overall limit shared by every key. Each `when` reserves a token: while tokens remain the
 * wait is 0; once the bucket is empty the balance goes negative and the wait is how long it
 * takes to refill to that reservation, so callers are spaced 1/qps apart rather than refused.
 * It is not per item, so `forget` does nothing and `numRequeues` is always 0.
 */
export class TokenBucketRateLimiter implements RateLimiter {
  private readonly qps: number;
  private readonly burst: number;
  private readonly clock: Clock;
  private tokens: number;
  private last: number;

  constructor(opts: TokenBucketOptions = {}) {
    this.qps = opts.qps ?? 10;
    this.burst = opts.burst ?? 100;
    this.clock = opts.clock ?? realClock;
    if (!(this.qps > 0)) throw new RangeError(`qps must be > 0, got ${this.qps}`);
    if (!(this.burst >= 1)) throw new RangeError(`burst must be >= 1, got ${this.burst}`);
    this.tokens = this.burst;
    this.last = this.clock.now();
  }

  when(_item: string): number {
    const now = this.clock.now();
    this.tokens = Math.min(this.burst, this.tokens + ((now - this.last) * this.qps) / 1000);
    this.last = now;
    this.tokens -= 1;
    return this.tokens >= 0 ? 0 : (-this.tokens * 1000) / this.qps;
  }

  forget(_item: string): void {}

  numRequeues(_item: string): number {
    return 0;
  }
}

/** The longest wait of its parts wins; `forget` reaches all of them. */
export class MaxOfRateLimiter implements RateLimiter {
  private readonly limiters: readonly RateLimiter[];

  constructor(...limiters: RateLimiter[]) {
    if (limiters.length === 0) throw new RangeError('MaxOfRateLimiter needs at least one limiter');
    this.limiters = limiters;
  }

  when(item: string): number {
    // Every part must see the attempt (each keeps its own count or tokens), so no short-circuit.
    return Math.max(...this.limiters.map((l) => l.when(item)));
  }

  forget(item: string): void {
    for (const l of this.limiters) l.forget(item);
  }

  numRequeues(item: string): number {
    return Math.max(...this.limiters.map((l) => l.numRequeues(item)));
  }
}

export function maxOf(...limiters: RateLimiter[]): RateLimiter {
  return new MaxOfRateLimiter(...limiters);
}

/** Per key 5 ms doubling to 1000 s, combined with an overall 10 qps / burst 100 bucket. */
export function defaultControllerRateLimiter(opts: { clock?: Clock } = {}): RateLimiter {
  return maxOf(
    new ExponentialFailureRateLimiter({ baseMs: 5, maxMs: 1_000_000 }),
    new TokenBucketRateLimiter({ qps: 10, burst: 100, clock: opts.clock ?? realClock }),
  );
}
