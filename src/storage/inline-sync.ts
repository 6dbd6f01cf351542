/**
 * Whether the next fsync of the WAL runs inline, on the event loop right after its COMMIT, or on
 * libuv's thread pool. On a disk that syncs in a fraction of a millisecond (an SSD, a VM's write
 * cache) inline is both faster and cheaper: the hand-over to the pool and the wake-up after it
 * cost more than the sync, and a batch is acknowledged in the turn it commits. Measured on the
 * API server benchmark (2 cores, idle): creates ÷ etcd puts 1.03–1.12 inline against 0.88–0.96
 * on the pool (issue 13, item 7). On a slow disk (a spinning one, a busy network volume) an
 * inline sync would stall every request for its length, so once syncs get slow the policy
 * moves them to the pool for a while, then tries inline again.
 */

export interface InlineSyncOptions {
  /**
   * Inline syncs slower than this on average send syncs to the pool (default 3 ms: a spinning
   * disk's or a network volume's, not a fast disk's 0.1–2 ms while its log file grows).
   */
  readonly slowMs?: number;
  /** How long syncs stay on the pool before inline is tried again (default 5 s). */
  readonly poolForMs?: number;
  /** Monotonic milliseconds (tests pass a fake). */
  readonly now?: () => number;
}

/** Weight of the newest sync in the running average: a few slow syncs in a row, not one, decide. */
const WEIGHT = 0.2;

export class InlineSyncPolicy {
  private readonly slowMs: number;
  private readonly poolForMs: number;
  private readonly now: () => number;
  private averageMs = 0;
  private poolUntil = -Infinity;

  constructor(o: InlineSyncOptions = {}) {
    this.slowMs = o.slowMs ?? 3;
    this.poolForMs = o.poolForMs ?? 5_000;
    this.now = o.now ?? (() => performance.now());
  }

  shouldInline(): boolean {
    return this.now() >= this.poolUntil;
  }

  /** After an inline sync that took `ms`. */
  record(ms: number): void {
    this.averageMs += WEIGHT * (ms - this.averageMs);
    if (this.averageMs <= this.slowMs) return;
    this.poolUntil = this.now() + this.poolForMs;
    // The next try starts from what it measures then, not from this slow spell.
    this.averageMs = 0;
  }
}
