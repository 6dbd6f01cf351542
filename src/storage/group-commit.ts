/**
 * Group commit for the single write connection. Writes that arrive in the same event-loop turn
 * share one transaction: the first opens `BEGIN IMMEDIATE`, a `setImmediate` commits. Each
 * write's compare-and-swap check and insert run synchronously inside the transaction, so later
 * writes in the batch see earlier ones and the unique index still arbitrates; but no write is
 * acknowledged, and no event published, before COMMIT returns. If the COMMIT fails, every
 * write of the batch fails with it.
 *
 * Why: a commit costs far more than an insert, and the API server issues its writes from many
 * concurrent requests; one commit per turn turns N commits into one without adding latency
 * beyond the current turn. With the default durability a COMMIT is also an fsync of the WAL
 * (issue 13, item 7), so the batch is what amortises the fsync, as etcd's batched raft log
 * does. Batches grow by themselves under load: the COMMIT (fsync included) runs on the event
 * loop, and the requests that arrive meanwhile wait in the sockets and are all read in the next
 * turn, so they share the next transaction.
 */
import type Database from 'better-sqlite3';
import type { WatchEvent } from './types.ts';
import { closedError } from './sqlite-errors.ts';

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
}

export interface GroupCommitOptions {
  db: Database.Database;
  /** The transaction statements, prepared on `db`. */
  statements: { begin: Database.Statement; commit: Database.Statement; rollback: Database.Statement };
  /** Runs after COMMIT with the batch's events in revision order, before any write resolves. Must not throw. */
  onCommit: (events: readonly WatchEvent[]) => void;
  /** Maps a database error to the error callers see. */
  translate: (e: unknown, during: string) => Error;
  /** Called after each successful COMMIT with the number of jobs it acknowledges (metrics, tests). Must not throw. */
  onCommitted?: (jobs: number) => void;
}

export class GroupCommit {
  private batch: Batch | undefined;
  private closed = false;

  constructor(private readonly opts: GroupCommitOptions) {}

  /**
   * Runs `work` inside the current batch's transaction, now, and resolves with its value once
   * the batch is committed. `work` throwing fails that job only, unless SQLite rolled the whole
   * transaction back (disk full, I/O error), which fails the batch.
   */
  submit<R>(work: () => JobOutcome<R>): Promise<R> {
    if (this.closed) return Promise.reject(closedError());
    let batch = this.batch;
    if (!batch) {
      try {
        this.opts.statements.begin.run();
      } catch (e) {
        return Promise.reject(this.opts.translate(e, 'begin transaction'));
      }
      const opened: Batch = { pending: [] };
      batch = this.batch = opened;
      setImmediate(() => this.commit(opened));
    }
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

  /** Commits what is pending now instead of waiting for the turn to end. */
  flush(): void {
    if (this.batch) this.commit(this.batch);
  }

  /** Commits what is pending; later submits fail. */
  close(): void {
    this.flush();
    this.closed = true;
  }

  private commit(batch: Batch): void {
    if (this.batch !== batch) return; // already committed by flush(), or failed
    this.batch = undefined;
    try {
      this.opts.statements.commit.run();
    } catch (e) {
      this.rollback();
      this.reject(batch, this.opts.translate(e, 'commit'));
      return;
    }
    this.opts.onCommitted?.(batch.pending.length);
    const events: WatchEvent[] = [];
    for (const p of batch.pending) if (p.outcome.event) events.push(p.outcome.event);
    try {
      if (events.length) this.opts.onCommit(events);
    } finally {
      for (const p of batch.pending) p.resolve(p.outcome.value);
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
