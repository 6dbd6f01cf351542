/**
 * Time, as something passed in. Backoff, token buckets, delayed re-adds and reconcile
 * durations all depend on "now" and on timers; taking them from a `Clock` lets tests drive
 * time forward explicitly instead of sleeping (style example 14; client-go's workqueue tests
 * do the same with a fake clock). `realClock` is what production code gets by default;
 * `FakeClock` is for tests.
 */

/** Cancels a pending timer; calling it after the timer has fired, or twice, is harmless. */
export type Cancel = () => void;

export interface Clock {
  /** Milliseconds on a monotonic scale: good for intervals, not a wall-clock timestamp. */
  now(): number;
  setTimeout(fn: () => void, ms: number): Cancel;
}

/** Node's own setTimeout refuses delays past this and fires after 1 ms instead. */
const MAX_TIMER_MS = 2 ** 31 - 1;

export const realClock: Clock = {
  // performance.now rather than Date.now: a wall-clock step (NTP, a laptop waking) must not
  // turn a 5 ms backoff into an hour, or refill a token bucket all at once.
  now: () => performance.now(),
  setTimeout(fn, ms) {
    const t = setTimeout(fn, Math.min(Math.max(0, ms), MAX_TIMER_MS));
    return () => clearTimeout(t);
  },
};

interface FakeTimer {
  readonly due: number;
  /** Breaks ties between timers due at the same instant: first scheduled runs first. */
  readonly seq: number;
  readonly fn: () => void;
}

/**
 * A clock that only moves when told to. `advance(ms)` is synchronous: it runs every timer that
 * falls due within the window, earliest first (ties in scheduling order), with `now()` set to
 * each timer's due time while it runs, so a timer scheduled by another timer inside the window
 * also runs. Promise continuations triggered by those timers run afterwards, as microtasks;
 * tests that wait on them must yield (e.g. `await new Promise(setImmediate)`) after advancing.
 */
export class FakeClock implements Clock {
  private current: number;
  private seq = 0;
  private readonly timers = new Set<FakeTimer>();

  constructor(start = 0) {
    this.current = start;
  }

  now(): number {
    return this.current;
  }

  setTimeout(fn: () => void, ms: number): Cancel {
    const timer: FakeTimer = { due: this.current + Math.max(0, ms), seq: this.seq++, fn };
    this.timers.add(timer);
    return () => {
      this.timers.delete(timer);
    };
  }

  advance(ms: number): void {
    if (!(ms >= 0)) throw new RangeError(`FakeClock.advance: ms must be >= 0, got ${ms}`);
    const target = this.current + ms;
    for (let next = this.nextDue(target); next; next = this.nextDue(target)) {
      this.timers.delete(next);
      this.current = next.due;
      next.fn();
    }
    this.current = target;
  }

  /** Timers scheduled and not yet fired or cancelled. */
  pending(): number {
    return this.timers.size;
  }

  private nextDue(limit: number): FakeTimer | undefined {
    let best: FakeTimer | undefined;
    for (const t of this.timers) {
      if (t.due > limit) continue;
      if (!best || t.due < best.due || (t.due === best.due && t.seq < best.seq)) best = t;
    }
    return best;
  }
}
