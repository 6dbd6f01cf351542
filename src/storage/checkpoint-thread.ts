/**
 * The WAL checkpointer's thread (see checkpointer.ts): its own connection to the database,
 * which on each request copies what the WAL holds into the database file with a PASSIVE
 * checkpoint (it never waits for, nor blocks, the writer or readers). With `synchronous =
 * NORMAL` SQLite fsyncs the WAL before it copies and the database file after, here, off the
 * server's event loop.
 */
import { parentPort, workerData } from 'node:worker_threads';
import Database from 'better-sqlite3';
import type { CheckpointReply, CheckpointRequest, CheckpointThreadInput } from './checkpointer.ts';

const input = workerData as CheckpointThreadInput;
const port = parentPort!;
let db: Database.Database | undefined;
try {
  db = new Database(input.path, { fileMustExist: true });
  db.pragma(`busy_timeout = ${input.busyTimeoutMs}`);
  db.pragma('synchronous = NORMAL');
} catch (e) {
  port.postMessage({ error: e instanceof Error ? e.message : String(e) } satisfies CheckpointReply);
}

port.on('message', (m: CheckpointRequest) => {
  if (m === 'close' || !db) {
    db?.close();
    port.close();
    return;
  }
  try {
    const [r] = db.pragma('wal_checkpoint(PASSIVE)') as { busy: number; log: number; checkpointed: number }[];
    port.postMessage({ log: r!.log, checkpointed: r!.checkpointed } satisfies CheckpointReply);
  } catch (e) {
    port.postMessage({ error: e instanceof Error ? e.message : String(e) } satisfies CheckpointReply);
  }
});
