/**
 * WAL checkpoints off the event loop (issue 13, item 7). SQLite's automatic checkpoint runs in
 * the COMMIT that crosses 1,000 WAL pages, on the writer's connection: it copies the pages into
 * the database file and fsyncs the WAL and the file, two fsyncs that stop the event loop for
 * 2 ms and more. The writer here runs with `wal_autocheckpoint = 0` instead, and after every
 * `everyWrites` committed writes a thread with its own connection runs a PASSIVE checkpoint
 * (checkpoint-thread.ts), which never blocks the writer or the readers.
 *
 * Keeping the WAL bounded: SQLite starts the WAL over from its beginning when a write
 * transaction begins while every frame is already copied. A checkpoint on another thread
 * rarely ends in the instant between a COMMIT and the next BEGIN of a busy writer, so the WAL
 * could grow without end; when a checkpoint reports that the WAL holds `maxFrames` frames or
 * more, the writer checkpoints what little is left itself right after its next COMMIT (as the
 * automatic checkpoint would have), and its next transaction starts the WAL over.
 *
 * The thread starts at the first checkpoint (a store with few writes never starts it) and exits
 * once `idleStopMs` pass without one: a second V8 isolate is about 10 MiB of an API server's
 * resident memory, and an idle cluster's lease renewals ask for a checkpoint every few minutes
 * (500 writes), while starting the thread again costs some 30 ms of CPU off the event loop. A
 * busy store keeps its thread. If the thread fails, the writer goes back to SQLite's automatic
 * checkpoints.
 */
import { Worker } from 'node:worker_threads';
import type Database from 'better-sqlite3';
import { workerEntry } from '../api/worker-entry.ts';

export interface CheckpointThreadInput {
  path: string;
  busyTimeoutMs: number;
}
export type CheckpointRequest = 'checkpoint' | 'close';
export type CheckpointReply = { log: number; checkpointed: number } | { error: string };

/** What one checkpoint did: WAL frames in the log, frames copied, and where it ran. */
export interface CheckpointReport {
  log: number;
  checkpointed: number;
  where: 'thread' | 'writer';
}

export interface CheckpointerOptions {
  /** Committed writes between checkpoints (default 500). */
  everyWrites?: number;
  /** WAL frames from which the writer finishes a checkpoint itself so that the WAL starts over (default 4,096: 16 MiB of 4 KiB pages). */
  maxFrames?: number;
  /** How long the thread stays without a checkpoint to run before it exits (default 30 s). */
  idleStopMs?: number;
  /** Called after each checkpoint (tests). Must not throw. */
  onCheckpoint?: (report: CheckpointReport) => void;
  /** Called when the thread starts and when it exits (tests). Must not throw. */
  onThread?: (event: 'started' | 'exited') => void;
}

/** SQLite's default automatic checkpoint, restored when the thread fails. */
const SQLITE_AUTOCHECKPOINT_PAGES = 1000;

export class WalCheckpointer {
  private worker: Worker | undefined;
  /** Until each thread started has exited, the current one and any idle one still closing. */
  private readonly exits = new Set<Promise<void>>();
  private idleTimer: NodeJS.Timeout | undefined;
  private writes = 0;
  private running = false;
  private finishHere = false;
  private failed = false;
  private closed = false;
  private readonly everyWrites: number;
  private readonly maxFrames: number;
  private readonly idleStopMs: number;

  constructor(
    private readonly writer: Database.Database,
    private readonly input: CheckpointThreadInput,
    private readonly opts: CheckpointerOptions = {},
  ) {
    this.everyWrites = Math.max(1, Math.floor(opts.everyWrites ?? 500));
    this.maxFrames = Math.max(1, Math.floor(opts.maxFrames ?? 4096));
    this.idleStopMs = Math.max(0, opts.idleStopMs ?? 30_000);
    writer.pragma('wal_autocheckpoint = 0');
  }

  /** Call right after each COMMIT of the writer (outside any transaction), with the writes it held. */
  committed(writes: number): void {
    if (this.finishHere) {
      this.finishHere = false;
      this.checkpointHere();
    }
    this.writes += writes;
    if (this.writes < this.everyWrites || this.running || this.failed || this.closed) return;
    this.writes = 0;
    this.running = true;
    clearTimeout(this.idleTimer);
    (this.worker ?? this.start()).postMessage('checkpoint' satisfies CheckpointRequest);
  }

  /** Stops the thread (after the checkpoint under way, if any). */
  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.idleTimer);
    const w = this.worker;
    if (w) {
      // Unref'd, the thread would not keep the process up while it finishes.
      w.ref();
      w.postMessage('close' satisfies CheckpointRequest);
    }
    await Promise.all(this.exits);
  }

  private start(): Worker {
    const w = new Worker(workerEntry(import.meta.url, 'checkpoint-thread'), { workerData: this.input, execArgv: [], name: 'wal-checkpoints' });
    w.unref();
    /** Told to exit for idleness: its exit is no failure. */
    let retired = false;
    w.on('message', (m: CheckpointReply) => {
      if (retired) return;
      this.running = false;
      if ('error' in m) return this.fail();
      this.opts.onCheckpoint?.({ ...m, where: 'thread' });
      if (m.log >= this.maxFrames) this.finishHere = true;
      this.stopWhenIdle(() => {
        retired = true;
        w.postMessage('close' satisfies CheckpointRequest);
      });
    });
    w.on('error', () => {
      if (!retired) this.fail();
    });
    const exited = new Promise<void>((resolve) => {
      w.on('exit', () => {
        this.exits.delete(exited);
        if (this.worker === w) this.worker = undefined;
        if (!this.closed && !retired) this.fail();
        this.opts.onThread?.('exited');
        resolve();
      });
    });
    this.exits.add(exited);
    this.worker = w;
    this.opts.onThread?.('started');
    return w;
  }

  /** Retires the current thread unless a checkpoint is asked for within `idleStopMs`. */
  private stopWhenIdle(retire: () => void): void {
    clearTimeout(this.idleTimer);
    if (this.closed || this.failed) return;
    this.idleTimer = setTimeout(() => {
      if (this.running || this.closed || this.failed || !this.worker) return;
      this.worker = undefined;
      retire();
    }, this.idleStopMs);
    this.idleTimer.unref();
  }

  /** The thread cannot checkpoint: SQLite's automatic checkpoints take over again. */
  private fail(): void {
    if (this.failed) return;
    this.failed = true;
    this.running = false;
    if (this.closed || !this.writer.open) return;
    try {
      this.writer.pragma(`wal_autocheckpoint = ${SQLITE_AUTOCHECKPOINT_PAGES}`);
    } catch {
      // The writer is closing.
    }
    void this.worker?.terminate();
  }

  private checkpointHere(): void {
    if (this.writer.inTransaction || !this.writer.open) return;
    try {
      const [r] = this.writer.pragma('wal_checkpoint(PASSIVE)') as { log: number; checkpointed: number }[];
      this.opts.onCheckpoint?.({ log: r!.log, checkpointed: r!.checkpointed, where: 'writer' });
    } catch {
      // Housekeeping: the next one will do.
    }
  }
}
