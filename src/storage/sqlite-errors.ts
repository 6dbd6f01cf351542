/**
 * Translates better-sqlite3 errors into storage errors, so nothing above storage/ ever sees
 * an SQLite code. A unique-index violation is not an error at all to the caller: it is the
 * schema refusing the loser of a compare-and-swap, which the write path reports as a conflict.
 */
import Database from 'better-sqlite3';
import { StorageError } from './types.ts';

export function isUniqueViolation(e: unknown): boolean {
  return e instanceof Database.SqliteError && (e.code === 'SQLITE_CONSTRAINT_UNIQUE' || e.code === 'SQLITE_CONSTRAINT_PRIMARYKEY');
}

/** Another connection holds the lock this statement needs. */
export function isBusy(e: unknown): boolean {
  return e instanceof Database.SqliteError && e.code.startsWith('SQLITE_BUSY');
}

/** Codes where another attempt may succeed: a lock held too long by another process, or a transient I/O or space problem. */
const retryableCodes = /^SQLITE_(BUSY|LOCKED|FULL|IOERR|PROTOCOL)/;

export function translateSqliteError(e: unknown, during: string): Error {
  if (e instanceof StorageError) return e;
  if (e instanceof Database.SqliteError) {
    return new StorageError(`storage: ${during}: ${e.code}: ${e.message}`, retryableCodes.test(e.code), { cause: e });
  }
  if (e instanceof Error && e.name === 'TypeError' && /database connection is not open/.test(e.message)) {
    return closedError();
  }
  return e instanceof Error ? e : new StorageError(`storage: ${during}: ${String(e)}`, false, { cause: e });
}

export function closedError(): StorageError {
  return new StorageError('storage: the backend is closed', false);
}
