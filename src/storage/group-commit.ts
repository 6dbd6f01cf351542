/**
 * Group commit for the single write connection. Writes that arrive in the same event-loop turn
 * share one transaction: the first opens `BEGIN IMMEDIATE`, a `setImmediate` commits. Each
 * write's compare-and-swap check and insert run synchronously inside the transaction, so later
 * writes in the batch see earlier ones and the unique index still arbitrates; but no write is
 * acknowledged, and no event published, before its batch is committed and, when a `sync` is
 * given, made durable. If the COMMIT fails, every write of the batch fails with it.
 *
 * Why: a commit costs far more than an insert, and the API server issues its writes from many
 * concurrent requests; one commit per turn turns N commits into one without adding latency
 * beyond the current turn.
 *
 * Durability (issue 13, item 7): with a `sync` (an fsync of the log, run off the event loop),
 * committed batches are acknowledged only once a sync that began after their COMMIT has
 * finished, as etcd answers only after the fsync of its batch. Each COMMIT starts a sync, up to
 * `maxConcurrentSyncs` at once; when that many run, the open batch stays open, taking every
 * write that arrives, until one ends: its writes could not be acknowledged before a further sync
 * anyway, and one COMMIT of all of them writes each touched page to the WAL once instead of
 * once per turn. So under load each fsync serves one transaction holding everything that
 * arrived while the disk was busy, and the event loop keeps reading requests meanwhile instead
 * of waiting in a synchronous fsync.
 *
 * Several writers on one file (API server replicas, issue 17): with `lockWait`, a BEGIN that
 * finds another connection holding the write lock is tried again from a timer, and the writes
 * that arrive meanwhile queue behind it in order. SQLite's own busy handler would sleep on the
 * event loop instead, and when the holder is another backend in the same process, whose COMMIT
 * needs that very loop to run, it would sleep until its timeout and fail.
 */
import type Database from 'better-sqlite3';
import type { WatchEvent } from './types.ts';
import { closedError } from './sqlite-errors.ts';
import { revisionOf } from './log-row.ts';

/** What a job returns: the value its promise resolves with, and the event its write produced (if it wrote). */
export interface JobOutcome<R> {
  readonly value: R;
  readonly event?: WatchEvent;
}

interface Pending {
  readonly outcome: JobOutcome<unknown>;
  readonly resolve: (value: unknown) => void;
  readonly reject: (error: unknown) => void;
}

interface Batch {
  readonly pending: Pending[];
  /** Its turn ended while a sync ran: it commits when that sync ends. */
  deferred?: boolean;
}

export interface GroupCommitOptions {
  db: Database.Database;
  /** The transaction statements, prepared on `db`. */
  statements: { begin: Database.Statement; commit: Database.Statement; rollback: Database.Statement };
  /** Runs once writes are acknowledged, with their events in revision order, before any of them resolves. Must not throw. */
  onCommit: (events: readonly WatchEvent[]) => void;
  /** Maps a database error to the error callers see. */
  translate: (e: unknown, during: string) => Error;
  /**
   * Makes everything committed so far durable (an fsync of the log, off the event loop). Without
   * it a batch is acknowledged right after its COMMIT: durable as far as the COMMIT itself is.
   */
  sync?: () => Promise<void>;
  /**
   * Makes everything committed so far durable now, on this thread, if it can do so quickly;
   * returns false to have `sync` do it off the event loop instead (inline-sync.ts). Tried only
   * when no sync is under way, so acknowledgements stay in commit order. Throws if the sync failed.
   */
  syncNow?: () => boolean;
  /**
   * Syncs that may run at once (default 2). A batch committed while one runs need not wait for
   * it to end before its own starts, which would add half an fsync to every write's latency;
   * when this many run, new writes gather in the open transaction until one ends.
   */
  maxConcurrentSyncs?: number;
  /** Called after each successful COMMIT with the number of jobs the transaction holds (metrics, tests). Must not throw. */
  onCommitted?: (jobs: number) => void;
  /**
   * Waiting for another connection's write lock without blocking the event loop: `isBusy` says
   * whether a failed BEGIN found the lock taken (the connection's own busy timeout should then
   * be 0); it is tried again, backing off from 1 to 16 ms, for up to `timeoutMs` before the
   * writes queued behind it fail. Without it a BEGIN that fails fails its write.
   */
  lockWait?: { readonly timeoutMs: number; readonly isBusy: (e: unknown) => boolean };
}

/** A write that arrived while the write lock was taken, to run once the BEGIN succeeds. */
interface Queued {
  readonly work: () => JobOutcome<unknown>;
  readonly resolve: (value: unknown) => void;
  readonly reject: (error: unknown) => void;
}

interface LockWait {
  readonly queued: Queued[];
  readonly since: number;
  attempts: number;
  timer?: NodeJS.Timeout;
}

/** A sync under way and the batches it makes durable (every batch committed before it began and not yet acknowledged). */
interface SyncRun {
  readonly batches: Batch[];
  readonly done: Promise<void>;
}

export class GroupCommit {
  private batch: Batch | undefined;
  private closed = false;
  /** Committed batches no running sync covers yet, in commit order. */
  private unsynced: Batch[] = [];
  /** Syncs under way, oldest first. */
  private running: SyncRun[] = [];
  private readonly maxSyncs: number;
  /** Set when a sync failed: what was committed may not be on disk, so nothing more is accepted. */
  private broken: Error | undefined;
  /** Set while another connection holds the write lock: writes queue here, in arrival order. */
  private waiting: LockWait | undefined;

  constructor(private readonly opts: GroupCommitOptions) {
    this.maxSyncs = Math.max(1, Math.floor(opts.maxConcurrentSyncs ?? 2));
  }

  /**
   * Runs `work` inside the current batch's transaction, now, and resolves with its value once
   * the batch is committed (and synced). `work` throwing fails that job only, unless SQLite
   * rolled the whole transaction back (disk full, I/O error), which fails the batch.
   */
  submit<R>(work: () => JobOutcome<R>): Promise<R> {
    if (this.broken) return Promise.reject(this.broken);
    if (this.closed) return Promise.reject(closedError());
    if (this.waiting) return this.queue(this.waiting, work);
    let batch = this.batch;
    if (!batch) {
      try {
        this.opts.statements.begin.run();
      } catch (e) {
        if (this.opts.lockWait?.isBusy(e)) return this.queue(this.waitForLock(), work);
        return Promise.reject(this.opts.translate(e, 'begin transaction'));
      }
      batch = this.open();
    }
    return this.run(batch, work);
  }

  private open(): Batch {
    const opened: Batch = { pending: [] };
    this.batch = opened;
    setImmediate(() => this.commit(opened));
    return opened;
  }

  private queue<R>(wait: LockWait, work: () => JobOutcome<R>): Promise<R> {
    return new Promise<R>((resolve, reject) => wait.queued.push({ work, resolve: resolve as (value: unknown) => void, reject }));
  }

  private waitForLock(): LockWait {
    const wait: LockWait = { queued: [], since: performance.now(), attempts: 0 };
    this.waiting = wait;
    this.retryBegin(wait);
    return wait;
  }

  private retryBegin(wait: LockWait): void {
    wait.timer = setTimeout(() => {
      wait.timer = undefined;
      const refuse = (error: Error): void => {
        this.waiting = undefined;
        for (const q of wait.queued) q.reject(error);
      };
      if (this.broken) return refuse(this.broken);
      if (this.closed) return refuse(closedError());
      try {
        this.opts.statements.begin.run();
      } catch (e) {
        if (this.opts.lockWait!.isBusy(e) && performance.now() - wait.since < this.opts.lockWait!.timeoutMs) {
          wait.attempts++;
          this.retryBegin(wait);
          return;
        }
        return refuse(this.opts.translate(e, 'begin transaction'));
      }
      this.waiting = undefined;
      this.open();
      // Through submit: should one of them fail the batch, the next ones begin another.
      for (const q of wait.queued) this.submit(q.work).then(q.resolve, q.reject);
    }, Math.min(2 ** wait.attempts, 16));
  }

  /** Runs `work` in the open transaction `batch`; resolves once the batch is acknowledged. */
  private run<R>(batch: Batch, work: () => JobOutcome<R>): Promise<R> {
    let outcome: JobOutcome<R>;
    try {
      outcome = work();
    } catch (e) {
      const error = this.opts.translate(e, 'write');
      if (!this.opts.db.inTransaction) this.fail(batch, error);
      return Promise.reject(error);
    }
    return new Promise<R>((resolve, reject) => {
      batch.pending.push({ outcome, resolve: resolve as (value: unknown) => void, reject });
    });
  }

  /**
   * The lowest revision committed but not yet acknowledged (its sync has not finished), if any.
   * Readers stay below it, so nothing that a power loss could still take back is ever seen.
   */
  unsyncedFrom(): number | undefined {
    for (const run of this.running) {
      for (const batch of run.batches) for (const p of batch.pending) if (p.outcome.event) return revisionOf(p.outcome.event);
    }
    for (const batch of this.unsynced) for (const p of batch.pending) if (p.outcome.event) return revisionOf(p.outcome.event);
    return undefined;
  }

  /** Commits what is pending now instead of waiting for the turn to end (or for a sync to end). */
  flush(): void {
    if (this.batch) this.commit(this.batch, { now: true });
  }

  /** Commits what is pending and waits until it is acknowledged; later submits fail, and so do writes still waiting for the lock. */
  async close(): Promise<void> {
    this.flush();
    this.closed = true;
    const wait = this.waiting;
    if (wait) {
      clearTimeout(wait.timer);
      this.waiting = undefined;
      for (const q of wait.queued) q.reject(closedError());
    }
    while (this.running.length) await this.running[this.running.length - 1]!.done;
  }

  private commit(batch: Batch, opts: { now?: boolean } = {}): void {
    if (this.batch !== batch) return; // already committed by flush(), or failed
    if (this.running.length >= this.maxSyncs && !opts.now) {
      batch.deferred = true;
      return;
    }
    this.batch = undefined;
    try {
      this.opts.statements.commit.run();
    } catch (e) {
      this.rollback();
      this.reject(batch, this.opts.translate(e, 'commit'));
      return;
    }
    this.opts.onCommitted?.(batch.pending.length);
    if (!this.opts.sync) {
      this.acknowledge([batch]);
      return;
    }
    if (this.opts.syncNow && this.running.length === 0 && this.unsynced.length === 0) {
      let synced: boolean;
      try {
        synced = this.opts.syncNow();
      } catch (e) {
        this.unsynced.push(batch);
        this.syncFailed(e);
        return;
      }
      if (synced) {
        this.acknowledge([batch]);
        return;
      }
    }
    this.unsynced.push(batch);
    if (this.running.length < this.maxSyncs) this.startSync();
  }

  /**
   * Starts a sync for every batch committed and not yet covered. When it ends, it and every
   * sync begun before it are done (what they covered was written before it began), so all
   * their batches are acknowledged, in commit order.
   */
  private startSync(): void {
    const run: SyncRun = {
      batches: this.unsynced,
      done: this.opts.sync!().then(
        () => this.synced(run),
        (e: unknown) => this.syncFailed(e),
      ),
    };
    this.unsynced = [];
    this.running.push(run);
  }

  private synced(run: SyncRun): void {
    const index = this.running.indexOf(run);
    if (index < 0) return; // an older sync failed, or a newer one covered this one already
    const done = this.running.splice(0, index + 1);
    this.acknowledge(done.flatMap((r) => r.batches));
    // The batch that gathered writes while the syncs were busy commits now, and a sync starts for it.
    if (this.batch?.deferred) this.commit(this.batch);
    if (this.unsynced.length && this.running.length < this.maxSyncs) this.startSync();
  }

  private syncFailed(e: unknown): void {
    if (this.broken) return;
    // After a failed fsync the kernel may have dropped the dirty pages: retrying proves
    // nothing. etcd exits; the store refuses every later write instead.
    const error = this.opts.translate(e, 'fsync');
    this.broken = error;
    const failed = [...this.running.flatMap((r) => r.batches), ...this.unsynced];
    this.running = [];
    this.unsynced = [];
    for (const batch of failed) this.reject(batch, error);
    if (this.batch) this.fail(this.batch, error);
  }

  private acknowledge(batches: readonly Batch[]): void {
    const events: WatchEvent[] = [];
    for (const batch of batches) for (const p of batch.pending) if (p.outcome.event) events.push(p.outcome.event);
    try {
      if (events.length) this.opts.onCommit(events);
    } finally {
      for (const batch of batches) for (const p of batch.pending) p.resolve(p.outcome.value);
    }
  }

  private fail(batch: Batch, error: Error): void {
    if (this.batch === batch) this.batch = undefined;
    this.rollback();
    this.reject(batch, error);
  }

  private rollback(): void {
    if (!this.opts.db.inTransaction) return;
    try {
      this.opts.statements.rollback.run();
    } catch {
      // Nothing more to undo: SQLite ends the transaction even when ROLLBACK reports an error.
    }
  }

  private reject(batch: Batch, error: Error): void {
    for (const p of batch.pending) p.reject(error);
  }
}
