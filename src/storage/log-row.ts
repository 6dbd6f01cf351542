/**
 * Turns rows of the revision log into the contract's values: a row into a KeyValue, and a row
 * into the WatchEvent it stands for. A row is self-describing (its predecessor's id and value
 * travel with it), so an event can be rebuilt from one row even after compaction removed the
 * predecessor.
 */
import type { KeyValue, WatchEvent } from './types.ts';
import type { LogRow } from './schema.ts';

/** A created row is its own create revision; later rows carry it (kine's convention). */
export function createRevisionOf(row: { id: number; created: number; create_revision: number }): number {
  return row.created ? row.id : row.create_revision;
}

export function toKeyValue(key: string, row: { id: number; created: number; create_revision: number; value: string | null }): KeyValue {
  return { key, value: row.value ?? '', createRevision: createRevisionOf(row), modRevision: row.id };
}

export function toWatchEvent(row: LogRow): WatchEvent {
  const kv = toKeyValue(row.name, row);
  if (row.created) return { type: 'create', kv };
  const prevKv: KeyValue = {
    key: row.name,
    value: row.old_value ?? row.value ?? '',
    createRevision: kv.createRevision,
    modRevision: row.prev_revision,
  };
  return { type: row.deleted ? 'delete' : 'update', kv, prevKv };
}

/** The revision an event was written at. */
export function revisionOf(event: WatchEvent): number {
  return event.kv.modRevision;
}
