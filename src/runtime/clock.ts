/**
 * Time, as something passed in. Backoff, token buckets, delayed re-adds and reconcile
 * durations all depend on "now" and on timers; taking them from a `Clock` lets tests drive
 * time forward explicitly instead of sleeping (style example 14; client-go's workqueue tests
 * do the same with a fake clock). `realClock` is what production code gets by default;
 * `FakeClock` is for tests.
 *
 * A clock has two readings. `now()` is monotonic, for intervals: backoffs, deadlines, rates.
 * `wallNow()` is calendar time, for what is written down as a time or compared with one read
 * from an object (a condition's lastTransitionTime, a taint's timeAdded, an Event's timestamps).
 * Taking wall time from the clock too lets a test fix the timestamps a controller writes
 * (issue 13, item 9).
 */

/** Cancels a pending timer; calling it after the timer has fired, or twice, is harmless. */
export type Cancel = () => void;

export interface Clock {
  /** Milliseconds on a monotonic scale: good for intervals, not a wall-clock timestamp. */
  now(): number;
  /** Wall-clock time in ms since the Unix epoch: for timestamps; it can step, so never for an interval. */
  wallNow(): number;
  setTimeout(fn: () => void, ms: number): Cancel;
}

/** Node's own setTimeout refuses delays past this and fires after 1 ms instead. */
const MAX_TIMER_MS = 2 ** 31 - 1;

export const realClock: Clock = {
  // performance.now rather than Date.now: a wall-clock step (NTP, a laptop waking) must not
  // turn a 5 ms backoff into an hour, or refill a token bucket all at once.
  now: () => performance.now(),
  wallNow: () => Date.now(),
  setTimeout(fn, ms) {
    const t = setTimeout(fn, Math.min(Math.max(0, ms), MAX_TIMER_MS));
    return () => clearTimeout(t);
  },
};

/** Where a FakeClock's wall time starts unless told otherwise: a fixed instant, so what a test writes is reproducible. */
export const FAKE_WALL_START = Date.parse('2024-01-01T00:00:00Z');

/**
 * Resolves after `ms` on `clock`, or as soon as `signal` aborts (at once if it already has).
 * It never rejects: a loop that sleeps looks at `signal.aborted` when it wakes. The one
 * cancellable sleep of the code that can reach runtime/ (issue 13, item 9).
 */
export function sleep(ms: number, signal: AbortSignal, clock: Clock = realClock): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const done = (): void => {
      cancel();
      signal.removeEventListener('abort', done);
      resolve();
    };
    const cancel = clock.setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });
}

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
 *
 * Its wall time starts at `options.wall` (default `FAKE_WALL_START`) and moves with `advance`;
 * `setWall` steps it, as NTP or a laptop waking would, without touching `now()` or the timers.
 */
export class FakeClock implements Clock {
  private current: number;
  /** Wall time minus monotonic time. */
  private wallOffset: number;
  private seq = 0;
  private readonly timers = new Set<FakeTimer>();

  constructor(start = 0, options: { wall?: Date | number } = {}) {
    this.current = start;
    this.wallOffset = Number(options.wall ?? FAKE_WALL_START) - start;
  }

  now(): number {
    return this.current;
  }

  wallNow(): number {
    return this.current + this.wallOffset;
  }

  setWall(at: Date | number): void {
    this.wallOffset = Number(at) - this.current;
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
