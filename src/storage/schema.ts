/**
 * The SQLite dialect of the revision log: the kine-shaped table, its indexes, the connection
 * settings, and every statement the backend runs, each under a name. Nothing outside this file
 * writes SQL, so a second dialect would be a second file shaped like this one.
 *
 * Every write is an INSERT and the row id is the revision. `created=1` marks the first row of
 * a key's life (its own id is then the create revision, so `create_revision` stays 0 as in
 * kine); `deleted=1` marks a tombstone, which carries the last live value in `value` and
 * `old_value` so that a delete event can be built from the row alone, even after compaction
 * removed the row it superseded. Values are TEXT rather than kine's BLOB because they are
 * UTF-8 JSON and the API server wants strings: no Buffer round trip per row.
 */
import type Database from 'better-sqlite3';

/** Largest code point: `prefix + KEY_END` sorts after every key that starts with `prefix`. */
export const KEY_END = '\u{10FFFF}';

export const COMPACT_REVISION_KEY = 'compact_revision';

const schema = `
CREATE TABLE IF NOT EXISTS kine (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  name TEXT NOT NULL,
  created INTEGER NOT NULL,
  deleted INTEGER NOT NULL,
  create_revision INTEGER NOT NULL,
  prev_revision INTEGER NOT NULL,
  lease INTEGER NOT NULL DEFAULT 0,
  value TEXT,
  old_value TEXT
);
-- Compare-and-swap lives in the schema: two writers that both read row N of a key and both
-- append a successor with prev_revision = N cannot both commit.
CREATE UNIQUE INDEX IF NOT EXISTS kine_name_prev_revision_uindex ON kine (name, prev_revision);
-- Current-state reads: newest row per key, by key. 'deleted' makes counting index-only.
CREATE INDEX IF NOT EXISTS kine_name_id_deleted_index ON kine (name, id, deleted);
-- kine keeps its compact revision as a row of the log; a side table keeps the log pure.
CREATE TABLE IF NOT EXISTS kine_meta (key TEXT PRIMARY KEY, value INTEGER NOT NULL) WITHOUT ROWID;
`;

/**
 * Connection settings. `synchronous = NORMAL` in WAL mode: a COMMIT writes the WAL and returns
 * without an fsync (the WAL is fsynced at checkpoints), which survives a killed process, and is
 * what kine uses. The default durability adds an fsync of the WAL per group-commit batch, run
 * off the event loop (sqlite.ts), rather than `FULL`, whose fsync inside COMMIT would stop the
 * event loop for the length of every fsync.
 */
export function configure(db: Database.Database, opts: { busyTimeoutMs: number; writer: boolean }): void {
  db.pragma(`busy_timeout = ${Math.max(0, Math.floor(opts.busyTimeoutMs))}`);
  if (opts.writer) {
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    // A compaction can grow the WAL a lot; this caps what stays on disk once it is checkpointed.
    db.pragma('journal_size_limit = 67108864');
    db.exec(schema);
  } else {
    db.pragma('query_only = ON');
    // Lists read whole values; a bigger page cache keeps a hot prefix in memory.
    db.pragma('cache_size = -32768');
  }
}

/** A row as the statements return it. */
export interface LogRow {
  id: number;
  name: string;
  created: number;
  deleted: number;
  create_revision: number;
  prev_revision: number;
  value: string | null;
  old_value: string | null;
}

/** The newest row of one key, as get and the write path need it. */
export type LatestRow = Pick<LogRow, 'id' | 'created' | 'deleted' | 'create_revision' | 'value'>;

/** A live row as list returns it. */
export type ListRow = Pick<LogRow, 'id' | 'name' | 'created' | 'create_revision' | 'value'>;

/** A row to insert: everything but the id, which is the new revision. */
export type InsertParams = Omit<LogRow, 'id'>;

interface RangeParams {
  lo: string;
  hi: string;
  rev: number;
}

const rowColumns = 'id, name, created, deleted, create_revision, prev_revision, value, old_value';
const latestColumns = 'id, created, deleted, create_revision, value';

/**
 * The list query walks the (name, id, deleted) index in key order and keeps a row only if it is
 * its key's newest at the revision, so it stops as soon as `limit` keys are found: a page costs
 * the page, not the prefix. The grouped count reads the index alone (SQLite takes the bare
 * `deleted` column from the MAX(id) row).
 */
function listSql(lower: '>=' | '>'): string {
  return `SELECT k.id AS id, k.name AS name, k.created AS created, k.create_revision AS create_revision, k.value AS value
    FROM kine AS k INDEXED BY kine_name_id_deleted_index
    WHERE k.name ${lower} :lo AND k.name < :hi AND k.deleted = 0
      AND k.id = (SELECT MAX(m.id) FROM kine AS m WHERE m.name = k.name AND m.id <= :rev)
    ORDER BY k.name
    LIMIT :limit`;
}

function countSql(lower: '>=' | '>'): string {
  return `SELECT COUNT(*) FROM (
      SELECT MAX(id) AS id, deleted FROM kine INDEXED BY kine_name_id_deleted_index
      WHERE name ${lower} :lo AND name < :hi AND id <= :rev
      GROUP BY name
    ) WHERE deleted = 0`;
}

/** Statements for the read connection (sees committed data only). */
export function readStatements(db: Database.Database) {
  return {
    /** Current and compact revision in one snapshot. sqlite_sequence, not MAX(id): compaction may delete the newest row. */
    header: db.prepare<[], { current: number; compact: number }>(
      `SELECT COALESCE((SELECT seq FROM sqlite_sequence WHERE name = 'kine'), 0) AS current,
              COALESCE((SELECT value FROM kine_meta WHERE key = '${COMPACT_REVISION_KEY}'), 0) AS compact`,
    ),
    latest: db.prepare<[string], LatestRow>(`SELECT ${latestColumns} FROM kine WHERE name = ? ORDER BY id DESC LIMIT 1`),
    /**
     * Never below the compact revision, where superseded rows are gone: a reader fenced below it
     * (another process compacted what this one has not yet seen announced) reads at it instead.
     */
    latestAt: db.prepare<[string, number], LatestRow>(
      `SELECT ${latestColumns} FROM kine
       WHERE name = ? AND id <= MAX(?, COALESCE((SELECT value FROM kine_meta WHERE key = '${COMPACT_REVISION_KEY}'), 0))
       ORDER BY id DESC LIMIT 1`,
    ),
    listFrom: db.prepare<[RangeParams & { limit: number }], ListRow>(listSql('>=')),
    listAfter: db.prepare<[RangeParams & { limit: number }], ListRow>(listSql('>')),
    countFrom: db.prepare<[RangeParams], number>(countSql('>=')).pluck(),
    countAfter: db.prepare<[RangeParams], number>(countSql('>')).pluck(),
    /** The watch poll: every row after the last one seen, all keys, up to what readers may see. */
    rowsAfter: db.prepare<[number, number, number], LogRow>(`SELECT ${rowColumns} FROM kine WHERE id > ? AND id <= ? ORDER BY id LIMIT ?`),
    /** Watch replay from the database: rows under a prefix in a revision window, walking the window. */
    rowsUnder: db.prepare<[{ after: number; upTo: number; lo: string; hi: string; limit: number }], LogRow>(
      `SELECT ${rowColumns} FROM kine
       WHERE id > :after AND id <= :upTo AND name >= :lo AND name < :hi
       ORDER BY id LIMIT :limit`,
    ),
    /**
     * The same rows, found through the (name, id) index: walking a wide window reads every row
     * in it, which for a quiet prefix behind a busy one (ConfigMaps behind 500 Lease renewals a
     * second) means hundreds of thousands of rows for none; the index holds only the prefix's.
     */
    rowsUnderByName: db.prepare<[{ after: number; upTo: number; lo: string; hi: string; limit: number }], LogRow>(
      `SELECT ${rowColumns} FROM kine WHERE id IN (
         SELECT id FROM kine INDEXED BY kine_name_id_deleted_index
         WHERE name >= :lo AND name < :hi AND id > :after AND id <= :upTo
         ORDER BY id LIMIT :limit
       ) ORDER BY id`,
    ),
  };
}

/** Statements for the write connection (they run inside the group-commit transaction). */
export function writeStatements(db: Database.Database) {
  return {
    begin: db.prepare('BEGIN IMMEDIATE'),
    commit: db.prepare('COMMIT'),
    rollback: db.prepare('ROLLBACK'),
    latest: db.prepare<[string], LatestRow>(`SELECT ${latestColumns} FROM kine WHERE name = ? ORDER BY id DESC LIMIT 1`),
    insert: db.prepare<[InsertParams]>(
      `INSERT INTO kine (name, created, deleted, create_revision, prev_revision, value, old_value)
       VALUES (:name, :created, :deleted, :create_revision, :prev_revision, :value, :old_value)`,
    ),
    compactRevision: db
      .prepare<[], number>(`SELECT COALESCE((SELECT value FROM kine_meta WHERE key = '${COMPACT_REVISION_KEY}'), 0)`)
      .pluck(),
    /** Rows superseded by a row in (from, to]: every successor names the row it replaced in prev_revision. */
    compactSuperseded: db.prepare<[{ from: number; to: number }]>(
      `DELETE FROM kine WHERE id IN (
         SELECT prev_revision FROM kine WHERE id > :from AND id <= :to AND prev_revision != 0
       )`,
    ),
    /** A tombstone at or below the compact revision says nothing a reader at or after it needs. */
    compactTombstones: db.prepare<[{ from: number; to: number }]>(
      `DELETE FROM kine WHERE id > :from AND id <= :to AND deleted = 1`,
    ),
    /** Monotonic, so racing compactions cannot move it back. */
    setCompactRevision: db.prepare<[number]>(
      `INSERT INTO kine_meta (key, value) VALUES ('${COMPACT_REVISION_KEY}', ?)
       ON CONFLICT (key) DO UPDATE SET value = MAX(value, excluded.value)`,
    ),
  };
}

export type ReadStatements = ReturnType<typeof readStatements>;
export type WriteStatements = ReturnType<typeof writeStatements>;
