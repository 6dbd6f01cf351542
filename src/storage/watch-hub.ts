/**
 * The watch fan-out: one hub per backend turns the revision log into event batches for every
 * watcher, without a database read per watcher. Events reach the hub once, from two places: the
 * in-process write path hands over each committed batch, and a poll (`revision > lastSeen`) picks
 * up what other processes wrote to the same file, run when one of them announces a commit
 * (commit-notices.ts) and about once a second besides. The hub keeps the most
 * recent events in a bounded ring, so a new watch from a recent revision replays from memory; an
 * older one replays from the database page by page and then joins the live stream at exactly the
 * revision it reached, with no gap and no duplicate.
 *
 * Event objects are shared by every subscriber (and with the ring): the API server memoizes the
 * decoded object on them, so a pod update is decoded once however many watchers see it.
 */
import { CompactedError, type WatchCloseReason, type WatchEvent, type WatchOptions } from './types.ts';
import { revisionOf } from './log-row.ts';
import { closedError } from './sqlite-errors.ts';

/** How the hub reads the log. Every list is in revision order. */
export interface WatchHubSource {
  /** Every event with revision > `after`, at most `limit`. */
  eventsAfter(after: number, limit: number): WatchEvent[];
  /** Events under `prefix` with `after` < revision <= `upTo`, at most `limit`. */
  eventsUnder(prefix: string, after: number, upTo: number, limit: number): WatchEvent[];
  compactRevision(): number;
}

export interface WatchHubOptions {
  source: WatchHubSource;
  /** The newest revision in the store when the hub starts; the hub delivers what comes after it. */
  startRevision: number;
  /** Events kept in memory for replay (default 10,000). */
  ringSize?: number;
  /** How often to look for other processes' writes, in ms (default 1000; 0 = never). */
  pollIntervalMs?: number;
  /** Rows per database read, and events per replayed batch (default 500). */
  pageSize?: number;
  /**
   * How long a hole in the revision sequence may stay open before the poll moves past it
   * (default 1000 ms). SQLite assigns ids under its write lock and a rolled-back transaction
   * gives its ids back, and readers stay below the durability fence, so the rows a poll reads
   * are contiguous but for those a compaction removed, which the compact revision read after
   * them accounts for; the wait only matters for a driver where ids can commit out of order.
   */
  gapTimeoutMs?: number;
  now?: () => number;
}

interface Subscriber {
  readonly prefix: string;
  /** Every event at or below this revision has been delivered or did not match. */
  cursor: number;
  /** False while replaying history: live batches are skipped, the replay reads them instead. */
  live: boolean;
  done: boolean;
  readonly opts: WatchOptions;
  unlisten: () => void;
}

const yieldTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

export class WatchHub {
  private readonly source: WatchHubSource;
  private readonly ringSize: number;
  private readonly pageSize: number;
  private readonly gapTimeoutMs: number;
  private readonly now: () => number;
  private readonly subscribers = new Set<Subscriber>();
  private readonly timer: NodeJS.Timeout | undefined;
  private lastSeen: number;
  /** ring[ringStart..] holds every event with revision > ringFloor, in order. */
  private ring: WatchEvent[] = [];
  private ringStart = 0;
  private ringFloor: number;
  private gap: { from: number; since: number } | undefined;
  private closed = false;

  constructor(opts: WatchHubOptions) {
    this.source = opts.source;
    this.ringSize = Math.max(1, opts.ringSize ?? 10_000);
    this.pageSize = Math.max(1, opts.pageSize ?? 500);
    this.gapTimeoutMs = opts.gapTimeoutMs ?? 1000;
    this.now = opts.now ?? Date.now;
    this.lastSeen = this.ringFloor = opts.startRevision;
    const every = opts.pollIntervalMs ?? 1000;
    if (every > 0) {
      this.timer = setInterval(() => this.poll(), every);
      this.timer.unref();
    }
  }

  /** The newest revision the hub has delivered. */
  get revision(): number {
    return this.lastSeen;
  }

  /** In-process commits, in revision order. */
  publish(events: readonly WatchEvent[]): void {
    if (this.closed || events.length === 0) return;
    const first = revisionOf(events[0]!);
    const last = revisionOf(events[events.length - 1]!);
    // Contiguous with what we have: the common case, no read at all. Otherwise another process
    // committed in between; the log has both, in order.
    if (first === this.lastSeen + 1 && last - first === events.length - 1) this.deliver(events);
    else this.poll();
  }

  /** Reads rows newer than the last delivered one (other processes' writes) and delivers them. */
  poll(): void {
    if (this.closed) return;
    try {
      for (;;) {
        const events = this.source.eventsAfter(this.lastSeen, this.pageSize);
        // Read after the rows: a compaction (by another process) that left holes in them had
        // committed before they were read, so it shows here, and the holes are known for what
        // they are instead of being waited out and passed with events missing.
        const compact = this.source.compactRevision();
        if (compact > this.lastSeen) this.compactedBeyond(compact);
        if (events.length === 0) return;
        let take = 0;
        let expected = this.lastSeen + 1;
        for (const event of events) {
          const revision = revisionOf(event);
          if (revision !== expected && !this.gapClosed(expected, revision - 1, compact)) break;
          expected = revision + 1;
          take++;
        }
        if (take > 0) this.deliver(take === events.length ? events : events.slice(0, take));
        if (take < events.length || events.length < this.pageSize) return;
      }
    } catch {
      // A failed poll (database busy, backend closing) is simply tried again on the next tick.
    }
  }

  /**
   * Streams events under `prefix` after `opts.afterRevision`. Resolves once history is replayed
   * and the watch is live; ends when the signal aborts (silently) or via `onClose`.
   */
  async watch(prefix: string, opts: WatchOptions): Promise<void> {
    if (this.closed) throw closedError();
    if (opts.signal.aborted) return;
    const compact = this.source.compactRevision();
    if (opts.afterRevision < compact) throw new CompactedError(opts.afterRevision, compact);
    const sub: Subscriber = { prefix, cursor: opts.afterRevision, live: false, done: false, opts, unlisten: () => {} };
    // Subscribe before replaying, so nothing committed during the replay can fall between the two.
    this.subscribers.add(sub);
    const onAbort = () => this.end(sub);
    opts.signal.addEventListener('abort', onAbort, { once: true });
    sub.unlisten = () => opts.signal.removeEventListener('abort', onAbort);
    try {
      await this.catchUp(sub);
    } catch (e) {
      this.end(sub);
      throw e;
    }
  }

  /** Ends every watch with `closed` and stops polling. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    if (this.timer) clearInterval(this.timer);
    for (const sub of this.subscribers) this.end(sub, { kind: 'closed' });
    this.ring = [];
  }

  /** Number of active watches (for tests and metrics). */
  get size(): number {
    return this.subscribers.size;
  }

  private async catchUp(sub: Subscriber): Promise<void> {
    while (!sub.done) {
      if (sub.cursor >= this.lastSeen) {
        sub.live = true;
        return;
      }
      if (sub.cursor >= this.ringFloor) {
        // From memory, synchronously up to lastSeen, then live in the same turn: no gap.
        this.replayRing(sub);
        sub.live = true;
        return;
      }
      const compact = this.source.compactRevision();
      if (sub.cursor < compact) {
        this.end(sub, { kind: 'compacted', compactRevision: compact, requested: sub.cursor });
        return;
      }
      const upTo = this.lastSeen;
      const page = this.source.eventsUnder(sub.prefix, sub.cursor, upTo, this.pageSize);
      // A short page means nothing else under the prefix up to upTo.
      sub.cursor = page.length < this.pageSize ? upTo : revisionOf(page[page.length - 1]!);
      if (page.length) this.send(sub, page);
      await yieldTurn();
    }
  }

  private replayRing(sub: Subscriber): void {
    let batch: WatchEvent[] = [];
    for (let i = this.indexAfter(sub.cursor); i < this.ring.length && !sub.done; i++) {
      const event = this.ring[i]!;
      if (!event.kv.key.startsWith(sub.prefix)) continue;
      batch.push(event);
      if (batch.length >= this.pageSize) {
        this.send(sub, batch);
        batch = [];
      }
    }
    sub.cursor = this.lastSeen;
    if (batch.length) this.send(sub, batch);
  }

  /** Index of the first ring event with revision > `revision`. */
  private indexAfter(revision: number): number {
    let lo = this.ringStart;
    let hi = this.ring.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (revisionOf(this.ring[mid]!) <= revision) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  private deliver(events: readonly WatchEvent[]): void {
    this.remember(events);
    this.lastSeen = revisionOf(events[events.length - 1]!);
    for (const sub of this.subscribers) {
      if (!sub.live) continue;
      const batch = matching(events, sub.prefix, sub.cursor);
      // Never backwards: a watch may start past what the hub has seen (a revision only the file knows yet).
      if (this.lastSeen > sub.cursor) sub.cursor = this.lastSeen;
      if (batch.length) this.send(sub, batch);
      if (!sub.done) this.progress(sub);
    }
  }

  private remember(events: readonly WatchEvent[]): void {
    for (const event of events) this.ring.push(event);
    const excess = this.ring.length - this.ringStart - this.ringSize;
    if (excess > 0) {
      this.ringStart += excess;
      this.ringFloor = revisionOf(this.ring[this.ringStart - 1]!);
    }
    // Drop the evicted prefix now and then rather than shifting on every event.
    if (this.ringStart >= this.ringSize) {
      this.ring = this.ring.slice(this.ringStart);
      this.ringStart = 0;
    }
  }

  /**
   * Another process compacted past what we have seen: rows we never read may be gone, so every
   * live watch (all are behind `compact`) must relist, and the ring restarts at `compact`.
   */
  private compactedBeyond(compact: number): void {
    for (const sub of this.subscribers) {
      if (sub.live && sub.cursor < compact) this.end(sub, { kind: 'compacted', compactRevision: compact, requested: sub.cursor });
    }
    this.ring = [];
    this.ringStart = 0;
    this.ringFloor = compact;
  }

  /** Whether the poll may move past missing revisions from..to. */
  private gapClosed(from: number, to: number, compact: number): boolean {
    if (to <= compact) return true;
    const now = this.now();
    if (!this.gap || this.gap.from !== from) this.gap = { from, since: now };
    if (now - this.gap.since < this.gapTimeoutMs) return false;
    this.gap = undefined;
    return true;
  }

  private progress(sub: Subscriber): void {
    try {
      sub.opts.onProgress?.(sub.cursor);
    } catch {
      this.end(sub, { kind: 'closed' });
    }
  }

  private send(sub: Subscriber, batch: readonly WatchEvent[]): void {
    if (sub.done) return;
    try {
      sub.opts.onEvents(batch);
    } catch {
      // The contract says onEvents must not throw; one that does is broken, and must not stop the others.
      this.end(sub, { kind: 'closed' });
    }
  }

  private end(sub: Subscriber, reason?: WatchCloseReason): void {
    if (sub.done) return;
    sub.done = true;
    this.subscribers.delete(sub);
    sub.unlisten();
    if (!reason || sub.opts.signal.aborted) return;
    try {
      sub.opts.onClose?.(reason);
    } catch {
      // Same as onEvents: a throwing callback only ends its own watch.
    }
  }
}

/** The events a subscriber wants; the batch itself when all match, so the common case allocates nothing. */
function matching(events: readonly WatchEvent[], prefix: string, after: number): readonly WatchEvent[] {
  let out: WatchEvent[] | undefined;
  for (let i = 0; i < events.length; i++) {
    const event = events[i]!;
    const wanted = revisionOf(event) > after && event.kv.key.startsWith(prefix);
    if (wanted) out?.push(event);
    else out ??= events.slice(0, i);
  }
  return out ?? events;
}
