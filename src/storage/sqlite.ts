/**
 * The default storage backend: the revision log in one SQLite file (better-sqlite3, WAL mode),
 * shaped as kine shapes it. Two connections: writes go through one connection and group commit
 * (see group-commit.ts); reads use the other, so they only ever see committed data. The watch
 * hub (watch-hub.ts) gets each batch straight from the write path once it is acknowledged. By
 * default a batch is acknowledged only after an fsync of the WAL that began after its COMMIT, so
 * an acknowledged write survives power loss and an OS crash, as in etcd (see StoreDurability);
 * until then readers do not see it either.
 *
 * Several processes may write the same file (API server replicas, issue 17): SQLite serialises
 * the writers (a BEGIN that finds the lock taken is retried from a timer, group-commit.ts), the
 * schema arbitrates compare-and-swap, and each process tells the others what it acknowledged
 * through commit notices (commit-notices.ts), which wake their watch hubs at once; a poll every
 * `pollIntervalMs` is the safety net. The durability fence holds across processes: a row another
 * process committed is served only once it is known durable, because its writer (or any later
 * one) announced a revision at or past it, or because this process fsynced the WAL itself after
 * seeing it (the poll does, for rows nobody announced within an interval).
 */
import { closeSync, fdatasync, fdatasyncSync, fsyncSync, mkdirSync, openSync } from 'node:fs';
import Database from 'better-sqlite3';
import { dirname } from 'node:path';
import {
  CompactedError,
  FutureRevisionError,
  type Backend,
  type KeyValue,
  type ListOptions,
  type ListResult,
  StorageError,
  type WatchOptions,
  type WriteResult,
} from './types.ts';
import {
  configure,
  KEY_END,
  readStatements,
  writeStatements,
  type InsertParams,
  type LatestRow,
  type ReadStatements,
  type WriteStatements,
} from './schema.ts';
import { GroupCommit, type JobOutcome } from './group-commit.ts';
import { WalCheckpointer, type CheckpointerOptions } from './checkpointer.ts';
import { InlineSyncPolicy } from './inline-sync.ts';
import { revisionOf, toKeyValue, toWatchEvent } from './log-row.ts';
import { CommitNotices } from './commit-notices.ts';
import { closedError, isBusy, isUniqueViolation, translateSqliteError } from './sqlite-errors.ts';
import { WatchHub } from './watch-hub.ts';

/**
 * What an acknowledged write survives (issue 13, item 7).
 * - `fsync` (the default): power loss and an OS crash too, as in etcd, which fsyncs every batch
 *   before it answers. Each group-commit batch is acknowledged, and becomes visible to readers
 *   and watchers, only after an fsync of the WAL that began after its COMMIT; one fsync serves
 *   every batch committed while the previous one ran (group-commit.ts).
 * - `process-crash-only`: a killed process, but not power loss or an OS crash, which may lose
 *   the last acknowledged writes. A batch is acknowledged when its COMMIT has handed the WAL to
 *   the OS (kine's setting, `synchronous = NORMAL`); the WAL is fsynced at checkpoints only.
 */
export const storeDurabilities = ['fsync', 'process-crash-only'] as const;
export type StoreDurability = (typeof storeDurabilities)[number];

export function isStoreDurability(value: string): value is StoreDurability {
  return (storeDurabilities as readonly string[]).includes(value);
}

export interface SqliteBackendOptions {
  /** The database file (its directory is created). */
  path: string;
  /** How long a statement waits for another process's lock before failing, in ms (default 5000). */
  busyTimeoutMs?: number;
  /** Events the watch hub keeps in memory for replay (default 10,000). */
  watchRingSize?: number;
  /**
   * How often to look for other processes' writes that no commit notice announced, in ms
   * (default 1000; 0 = never): the safety net under the notices, which deliver within milliseconds.
   */
  pollIntervalMs?: number;
  /** Rows per watch-replay read and per replayed batch (default 500). */
  replayPageSize?: number;
  /**
   * Revisions compacted per transaction (default 200). A batch holds this process's event loop
   * and the write lock while it runs: compacting 155,000 Lease revisions under 500 writes a
   * second, write p99 was 7 ms with batches of 200 against 20 ms with batches of 1,000.
   */
  compactBatchSize?: number;
  /**
   * The share of time a compaction may take (default 0.25): after each batch it pauses three
   * times as long as the batch took. Run back to back, the batches of a compaction of 200,000
   * revisions kept the process busy for 14 s, and Lease renewals queued behind them for up to a
   * second; paced, the same work is spread over about four times as long, so writes wait less
   * behind it (a batch's time includes its wait in the write queue, so a busy server paces it
   * more). 1 disables pacing.
   */
  compactDutyCycle?: number;
  /**
   * What an acknowledged write survives (default `fsync`: power loss and OS crash too, as in
   * etcd; `process-crash-only` trades that for speed). See StoreDurability.
   */
  durability?: StoreDurability;
  /** Called after each group-commit transaction with the number of jobs it holds (metrics, tests). Must not throw. */
  onBatchCommitted?: (jobs: number) => void;
  /**
   * Runs each fsync of the WAL, handed over as `fsync` (default: just runs it). Tests wrap it to
   * count fsyncs or to hold one open; never called with durability `process-crash-only`.
   */
  aroundFsync?: (fsync: () => Promise<void>) => Promise<void>;
  /** Whether a quick fsync may run inline, right after its COMMIT (inline-sync.ts; default true, off with aroundFsync). */
  inlineFsync?: boolean;
  /** When and how the WAL is checkpointed, off the event loop (checkpointer.ts; tests). */
  checkpoints?: CheckpointerOptions;
}

export async function openSqliteBackend(options: SqliteBackendOptions): Promise<Backend> {
  return SqliteBackend.open(options);
}

function fsyncFailed(e: unknown): never {
  throw new StorageError(`storage: fsync of the write-ahead log failed: ${e instanceof Error ? e.message : String(e)}`, false, { cause: e });
}

/**
 * fsync (fdatasync) of the WAL: inline, right after the COMMIT, while the disk syncs quickly
 * (inline-sync.ts), else on libuv's thread pool, so the event loop goes on reading and
 * committing requests meanwhile. Linux syncs a file's data whichever descriptor asks, so a
 * descriptor of our own covers what SQLite's connection wrote. SQLite creates the WAL when the database is
 * first written (before the first COMMIT returns) and deletes it only when its last connection
 * closes, so the file opened at the first fsync stays the WAL while the backend is open; the
 * first fsync also syncs the directory, so that the file's name survives as well.
 */
class WalFsync {
  private fd: number | undefined;
  private readonly inline = new InlineSyncPolicy();
  constructor(private readonly dbPath: string) {}

  /** The WAL's descriptor, opened at the first sync (after syncing the directory, once). */
  private wal(): number {
    if (this.fd === undefined) {
      const dir = openSync(dirname(this.dbPath), 'r');
      try {
        fsyncSync(dir);
      } finally {
        closeSync(dir);
      }
      this.fd = openSync(`${this.dbPath}-wal`, 'r+');
    }
    return this.fd;
  }

  /**
   * At open, on this thread: what earlier processes (or others running now) committed to the WAL
   * becomes durable before this one serves it. No WAL yet: nothing in it to sync.
   */
  syncAtOpen(): void {
    try {
      fdatasyncSync(this.wal());
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
    }
  }

  /** The sync, on this thread, when the policy says the disk is quick enough; false otherwise. */
  fsyncNow(): boolean {
    if (!this.inline.shouldInline()) return false;
    const fd = this.wal();
    const started = performance.now();
    fdatasyncSync(fd);
    this.inline.record(performance.now() - started);
    return true;
  }

  /**
   * The sync on libuv's thread pool. fdatasync, as SQLite's own syncs on Linux: the data and
   * what is needed to read it back (the size), without a journal commit for the modification time.
   */
  async fsync(): Promise<void> {
    const fd = this.wal();
    await new Promise<void>((resolve, reject) => fdatasync(fd, (err) => (err ? reject(err) : resolve())));
  }

  /** After the last sync has ended (the group commit closes first). */
  async close(): Promise<void> {
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
  }
}

type Write = JobOutcome<WriteResult>;

/**
 * Revisions beyond which a watch replay looks its prefix up by name instead of walking the
 * window: walking is cheapest while the window is small or the prefix busy, the index when a
 * wide window holds few of the prefix's rows (measured on 300,000 rows: 0.4 ms instead of
 * 125 ms for 50 ConfigMaps; 35 ms instead of 2 ms for the busiest prefix).
 */
const WIDE_REPLAY_WINDOW = 10_000;

class SqliteBackend implements Backend {
  private readonly writes: GroupCommit;
  private readonly hub: WatchHub;
  private closing: Promise<void> | undefined;
  private readonly notices: CommitNotices;
  /**
   * Every row at or below this revision is durable (`fsync` mode; unbounded in
   * `process-crash-only`, which serves whatever is committed): rows of this process once their
   * batch is acknowledged, other processes' once announced or synced here (see the file header).
   */
  private durableThrough: number;
  private readonly pollTimer: NodeJS.Timeout | undefined;
  private pollSoon = false;
  /** The file's newest revision at the previous poll: rows up to it had a whole interval to be announced. */
  private seenAtLastPoll: number;
  private ownSync: Promise<void> | undefined;

  static open(options: SqliteBackendOptions): SqliteBackend {
    if (!options.path || options.path === ':memory:') {
      throw new TypeError('openSqliteBackend: path must be a file (reads use a second connection)');
    }
    const durability = options.durability ?? 'fsync';
    if (!isStoreDurability(durability)) {
      throw new TypeError(`openSqliteBackend: durability ${JSON.stringify(durability)} is not one of ${storeDurabilities.join(', ')}`);
    }
    mkdirSync(dirname(options.path), { recursive: true });
    const busyTimeoutMs = options.busyTimeoutMs ?? 5000;
    const writer = new Database(options.path);
    let reader: Database.Database | undefined;
    try {
      configure(writer, { busyTimeoutMs, writer: true });
      // Past the schema, the writer waits for another's lock on a timer (group-commit.ts), never in SQLite's busy handler.
      writer.pragma('busy_timeout = 0');
      reader = new Database(options.path);
      configure(reader, { busyTimeoutMs, writer: false });
      return new SqliteBackend(writer, reader, options, durability === 'fsync' ? new WalFsync(options.path) : undefined);
    } catch (e) {
      reader?.close();
      writer.close();
      throw translateSqliteError(e, 'open');
    }
  }

  private readonly r: ReadStatements;
  private readonly w: WriteStatements;
  private readonly compactBatchSize: number;
  private readonly compactPauseFactor: number;
  private readonly checkpointer: WalCheckpointer;

  private constructor(
    private readonly writer: Database.Database,
    private readonly reader: Database.Database,
    options: SqliteBackendOptions,
    private readonly wal: WalFsync | undefined,
  ) {
    this.r = readStatements(reader);
    this.w = writeStatements(writer);
    this.compactBatchSize = Math.max(1, options.compactBatchSize ?? 200);
    const duty = Math.min(1, Math.max(0.01, options.compactDutyCycle ?? 0.25));
    this.compactPauseFactor = (1 - duty) / duty;
    this.checkpointer = new WalCheckpointer(writer, { path: options.path, busyTimeoutMs: options.busyTimeoutMs ?? 5000 }, options.checkpoints);
    wal?.syncAtOpen();
    this.durableThrough = wal ? this.r.header.get()!.current : Number.MAX_SAFE_INTEGER;
    this.seenAtLastPoll = this.durableThrough;
    this.notices = new CommitNotices({ dir: `${options.path}-notify`, onNotice: () => this.pollNow() });
    // Before the hub: its source reads through readableRevision(), which asks the group commit.
    this.writes = new GroupCommit({
      db: writer,
      statements: this.w,
      onCommit: (events) => {
        // Acknowledged: its sync began after this batch's COMMIT, so every row up to it is on disk.
        const last = revisionOf(events[events.length - 1]!);
        if (last > this.durableThrough) this.durableThrough = last;
        this.notices.announce(last);
        this.hub.publish(events);
      },
      translate: translateSqliteError,
      lockWait: { timeoutMs: options.busyTimeoutMs ?? 5000, isBusy },
      onCommitted: (jobs) => {
        this.checkpointer.committed(jobs);
        options.onBatchCommitted?.(jobs);
      },
      sync: wal && (() => (options.aroundFsync ? options.aroundFsync(() => wal.fsync()) : wal.fsync()).catch(fsyncFailed)),
      // Tests that wrap the fsync (to hold one open) need every sync to go through it.
      syncNow:
        wal && !options.aroundFsync && options.inlineFsync !== false
          ? () => {
              try {
                return wal.fsyncNow();
              } catch (e) {
                return fsyncFailed(e);
              }
            }
          : undefined,
    });
    this.hub = new WatchHub({
      source: {
        eventsAfter: (after, limit) => this.r.rowsAfter.all(after, this.readableRevision(), limit).map(toWatchEvent),
        eventsUnder: (prefix, after, upTo, limit) =>
          (upTo - after > WIDE_REPLAY_WINDOW ? this.r.rowsUnderByName : this.r.rowsUnder).all({ after, upTo, lo: prefix, hi: prefix + KEY_END, limit }).map(toWatchEvent),
        compactRevision: () => this.r.header.get()!.compact,
      },
      // Not past the fence: a row another process committed since the open's sync is not known durable yet.
      startRevision: Math.min(this.r.header.get()!.current, this.durableThrough),
      ringSize: options.watchRingSize,
      // Polled from here instead, so that a poll can first make unannounced rows durable.
      pollIntervalMs: 0,
      pageSize: options.replayPageSize,
    });
    const every = options.pollIntervalMs ?? 1000;
    if (every > 0) {
      this.pollTimer = setInterval(() => this.poll(), every);
      this.pollTimer.unref();
    }
  }

  /** A peer's notice: read its rows in the next turn (one read for a burst of notices). */
  private pollNow(): void {
    if (this.pollSoon || this.closing) return;
    this.pollSoon = true;
    setImmediate(() => {
      this.pollSoon = false;
      if (!this.closing) this.hub.poll();
    });
  }

  /**
   * The safety net, every `pollIntervalMs`: peers the directory watch missed are found, and rows
   * that were already in the file at the previous poll but that nobody has announced since (a
   * lost notice, a writer that crashed before its fsync, one that does not announce) are made
   * durable by an fsync of our own before the hub reads them.
   */
  private poll(): void {
    if (this.closing) return;
    this.notices.rescan();
    if (this.wal && !this.ownSync) {
      const target = this.seenAtLastPoll;
      try {
        this.seenAtLastPoll = this.r.header.get()!.current;
      } catch {
        // Busy or closing: the next poll tries again.
      }
      if (target > this.knownDurable()) {
        this.ownSync = this.wal
          .fsync()
          .then(
            () => {
              if (target > this.durableThrough) this.durableThrough = target;
              this.pollNow();
            },
            // Not proven durable, so not served; a failing disk fails this process's own writes too.
            () => {},
          )
          .finally(() => (this.ownSync = undefined));
      }
    }
    this.hub.poll();
  }

  /** durableThrough, raised to what peers have announced by now (a pread of each peer's notice). */
  private knownDurable(): number {
    if (this.durableThrough === Number.MAX_SAFE_INTEGER || this.notices.peerCount === 0) return this.durableThrough;
    const announced = this.notices.highestAnnounced();
    if (announced > this.durableThrough) this.durableThrough = announced;
    return this.durableThrough;
  }

  async currentRevision(): Promise<number> {
    return this.header().current;
  }

  async compactRevision(): Promise<number> {
    return this.header().compact;
  }

  async get(key: string, opts?: { revision?: number }): Promise<KeyValue | undefined> {
    const revision = opts?.revision ?? 0;
    const row = this.read('get', () => {
      if (revision <= 0) {
        const readable = this.readableRevision();
        return readable === Number.MAX_SAFE_INTEGER ? this.r.latest.get(key) : this.r.latestAt.get(key, readable);
      }
      this.checkReadable(revision, this.header());
      return this.r.latestAt.get(key, revision);
    });
    return row && !row.deleted ? toKeyValue(key, row) : undefined;
  }

  async list(prefix: string, opts: ListOptions = {}): Promise<ListResult> {
    return this.read('list', () => {
      const header = this.header();
      const revision = opts.revision && opts.revision > 0 ? opts.revision : header.current;
      this.checkReadable(revision, header);
      const limit = opts.limit && opts.limit > 0 ? Math.floor(opts.limit) : 0;
      const hi = prefix + KEY_END;
      const after = opts.startAfter !== undefined && opts.startAfter >= prefix ? opts.startAfter : undefined;
      const range = { lo: after ?? prefix, hi, rev: revision };
      // One extra row tells whether there is more without counting.
      const rows = (after === undefined ? this.r.listFrom : this.r.listAfter).all({ ...range, limit: limit ? limit + 1 : -1 });
      const more = limit > 0 && rows.length > limit;
      if (more) rows.length = limit;
      const kvs = rows.map((row) => toKeyValue(row.name, row));
      if (!opts.countRemaining) return { kvs, revision, more };
      // The count walks only the (name, id, deleted) index: a few ms for 10,000 keys, so only on request.
      const remaining = more ? this.r.countAfter.get({ lo: kvs[kvs.length - 1]!.key, hi, rev: revision })! : 0;
      return { kvs, revision, more, remaining };
    });
  }

  async count(prefix: string): Promise<number> {
    return this.read('count', () => {
      const { current } = this.header();
      return this.r.countFrom.get({ lo: prefix, hi: prefix + KEY_END, rev: current })!;
    });
  }

  create(key: string, value: string): Promise<WriteResult> {
    return this.write(() => {
      const latest = this.w.latest.get(key);
      if (latest && !latest.deleted) return { value: { ok: false, current: toKeyValue(key, latest) } };
      // After a delete, the tombstone is the predecessor: a racing second create then collides on (name, prev_revision).
      const id = this.insert({ name: key, created: 1, deleted: 0, create_revision: 0, prev_revision: latest?.id ?? 0, value, old_value: null });
      if (id === undefined) return this.conflict(key);
      const kv: KeyValue = { key, value, createRevision: id, modRevision: id };
      return { value: { ok: true, revision: id, kv }, event: { type: 'create', kv } };
    });
  }

  update(key: string, value: string, expectedRevision: number): Promise<WriteResult> {
    return this.write(() => {
      const latest = this.w.latest.get(key);
      if (!latest || latest.deleted) return { value: { ok: false } };
      const prevKv = toKeyValue(key, latest);
      if (latest.id !== expectedRevision) return { value: { ok: false, current: prevKv } };
      const id = this.insert({
        name: key,
        created: 0,
        deleted: 0,
        create_revision: prevKv.createRevision,
        prev_revision: latest.id,
        value,
        old_value: prevKv.value,
      });
      if (id === undefined) return this.conflict(key);
      const kv: KeyValue = { key, value, createRevision: prevKv.createRevision, modRevision: id };
      return { value: { ok: true, revision: id, kv }, event: { type: 'update', kv, prevKv } };
    });
  }

  delete(key: string, expectedRevision?: number): Promise<WriteResult> {
    return this.write(() => {
      const latest = this.w.latest.get(key);
      if (!latest || latest.deleted) return { value: { ok: false } };
      const prevKv = toKeyValue(key, latest);
      if (expectedRevision !== undefined && latest.id !== expectedRevision) return { value: { ok: false, current: prevKv } };
      // The tombstone keeps the last value, so a delete event can carry it after compaction.
      const id = this.insert({
        name: key,
        created: 0,
        deleted: 1,
        create_revision: prevKv.createRevision,
        prev_revision: latest.id,
        value: prevKv.value,
        old_value: prevKv.value,
      });
      if (id === undefined) return this.conflict(key);
      const kv: KeyValue = { key, value: prevKv.value, createRevision: prevKv.createRevision, modRevision: id };
      return { value: { ok: true, revision: id, kv }, event: { type: 'delete', kv, prevKv } };
    });
  }

  async watch(prefix: string, opts: WatchOptions): Promise<void> {
    if (this.closing) throw closedError();
    try {
      await this.hub.watch(prefix, opts);
    } catch (e) {
      throw e instanceof CompactedError ? e : translateSqliteError(e, 'watch');
    }
  }

  /**
   * Removes every row superseded at or below `revision` and every tombstone at or below it, a
   * batch of revisions per transaction, recording progress as it goes so a crash mid-way leaves
   * a consistent compact revision. A key's newest row is never superseded, so current values stay.
   */
  async compact(revision: number): Promise<void> {
    const header = this.read('compact', () => this.header());
    if (revision > header.current) throw new FutureRevisionError(revision, header.current);
    for (;;) {
      const started = performance.now();
      // Progress is re-read inside each transaction, so concurrent compactions cannot overlap badly.
      const done = await this.writes.submit(() => {
        const from = this.w.compactRevision.get()!;
        if (from >= revision) return { value: true };
        const to = Math.min(from + this.compactBatchSize, revision);
        this.w.compactSuperseded.run({ from, to });
        this.w.compactTombstones.run({ from, to });
        this.w.setCompactRevision.run(to);
        return { value: to >= revision };
      });
      if (done) break;
      const pauseMs = (performance.now() - started) * this.compactPauseFactor;
      if (pauseMs >= 1) await new Promise((r) => setTimeout(r, pauseMs));
    }
    // Give the freed WAL frames back; PASSIVE never waits on readers, and a write that opened a
    // transaction meanwhile leaves it to SQLite's own auto-checkpoint.
    if (!this.writer.inTransaction && this.writer.open) {
      try {
        this.writer.pragma('wal_checkpoint(PASSIVE)');
      } catch {
        // A checkpoint is housekeeping; the next one will do.
      }
    }
  }

  close(): Promise<void> {
    this.closing ??= (async () => {
      clearInterval(this.pollTimer);
      await this.writes.close();
      await this.ownSync;
      this.notices.close();
      await this.checkpointer.close();
      await this.wal?.close();
      this.hub.close();
      this.reader.close();
      this.writer.close();
    })();
    return this.closing;
  }

  private write(work: () => Write): Promise<WriteResult> {
    return this.writes.submit(work);
  }

  /** Inserts a row; undefined when the unique (name, prev_revision) index refuses it. */
  private insert(row: InsertParams): number | undefined {
    try {
      return Number(this.w.insert.run(row).lastInsertRowid);
    } catch (e) {
      if (isUniqueViolation(e)) return undefined;
      throw e;
    }
  }

  /** The schema refused a write another writer beat us to: report what is there now. */
  private conflict(key: string): Write {
    const latest: LatestRow | undefined = this.w.latest.get(key);
    return { value: latest && !latest.deleted ? { ok: false, current: toKeyValue(key, latest) } : { ok: false } };
  }

  /**
   * The current revision as readers see it: below the first write still waiting for its fsync,
   * ours or another process's. Never below the compact revision: a compactor compacts only what
   * it could read, so everything up to there is durable (and below it reads would find holes).
   */
  private header(): { current: number; compact: number } {
    const header = this.r.header.get()!;
    header.current = Math.min(header.current, Math.max(this.readableRevision(), header.compact));
    return header;
  }

  /** The newest revision readers may see: everything acknowledged, nothing a power loss could still take back. */
  private readableRevision(): number {
    const unsynced = this.writes.unsyncedFrom();
    return Math.min(unsynced === undefined ? Number.MAX_SAFE_INTEGER : unsynced - 1, this.knownDurable());
  }

  private checkReadable(revision: number, header: { current: number; compact: number }): void {
    if (revision < header.compact) throw new CompactedError(revision, header.compact);
    if (revision > header.current) throw new FutureRevisionError(revision, header.current);
  }

  private read<T>(during: string, fn: () => T): T {
    if (this.closing) throw closedError();
    try {
      return fn();
    } catch (e) {
      if (e instanceof CompactedError || e instanceof FutureRevisionError) throw e;
      throw translateSqliteError(e, during);
    }
  }
}
