/**
 * The storage contract: a revisioned key/value log shaped as kine shapes it on SQL.
 * Every write appends a row whose id is the new global revision; the API server uses
 * that revision as `resourceVersion`. Values are opaque bytes (JSON text here): decoding
 * belongs to the API server, so the store and its watch fan-out never parse objects.
 */

export interface KeyValue {
  readonly key: string;
  /** The stored bytes (UTF-8 JSON text for the API server). */
  readonly value: string;
  /** Revision at which this key was (last) created. */
  readonly createRevision: number;
  /** Revision of the write that produced this value. */
  readonly modRevision: number;
}

export type WatchEventType = 'create' | 'update' | 'delete';

export interface WatchEvent {
  readonly type: WatchEventType;
  /** For create/update the new value; for delete the last live value, with modRevision = the delete's revision. */
  readonly kv: KeyValue;
  /** The value before this write (update and delete). */
  readonly prevKv?: KeyValue;
}

export interface ListOptions {
  /** Read the state as of this revision (0 or unset: the current revision). */
  revision?: number;
  /** Only keys strictly greater than this one (for `continue` tokens). */
  startAfter?: string;
  /** At most this many keys (0 or unset: no limit). */
  limit?: number;
  /** Also count the keys after the returned ones (`ListResult.remaining`); costs a scan. */
  countRemaining?: boolean;
}

export interface ListResult {
  readonly kvs: KeyValue[];
  /** The revision the list was read at. */
  readonly revision: number;
  /** True when more keys exist under the prefix after the last returned one. */
  readonly more: boolean;
  /** How many keys remain after the returned ones (with `countRemaining`). */
  readonly remaining?: number;
}

export type WriteResult =
  | { readonly ok: true; readonly revision: number; readonly kv: KeyValue }
  | { readonly ok: false; readonly current?: KeyValue };

export interface WatchOptions {
  /** Deliver every event with revision > afterRevision (replaying history first). */
  afterRevision: number;
  signal: AbortSignal;
  /** Called once per event batch, in revision order. Must not throw. */
  onEvents: (events: readonly WatchEvent[]) => void;
  /** Called once if the watch ends for a reason other than `signal` (compaction, slow consumer, close). */
  onClose?: (reason: WatchCloseReason) => void;
  /**
   * Called, once the watch is live, with a revision up to which every event under the prefix
   * has been handed to `onEvents`, even when none of the newest were under it: what a bookmark
   * may carry, so a quiet watch resumes from a recent revision rather than a long-gone one.
   */
  onProgress?: (revision: number) => void;
}

export type WatchCloseReason =
  | { readonly kind: 'compacted'; readonly compactRevision: number; readonly requested: number }
  | { readonly kind: 'slow' }
  | { readonly kind: 'closed' };

/** Thrown when a read asks for a revision older than the compaction point. */
export class CompactedError extends Error {
  constructor(readonly requested: number, readonly compactRevision: number) {
    super(`required revision ${requested} has been compacted (compacted to ${compactRevision})`);
    this.name = 'CompactedError';
  }
}

/** Thrown when a read asks for a revision newer than the current one. */
export class FutureRevisionError extends Error {
  constructor(readonly requested: number, readonly currentRevision: number) {
    super(`required revision ${requested} is a future revision (current ${currentRevision})`);
    this.name = 'FutureRevisionError';
  }
}

export interface Backend {
  /** The newest revision written. */
  currentRevision(): Promise<number>;
  /** Revisions at or below this one are gone. */
  compactRevision(): Promise<number>;
  get(key: string, opts?: { revision?: number }): Promise<KeyValue | undefined>;
  /** Live keys under `prefix` (a plain string prefix, e.g. `/registry/pods/default/`), ordered by key. */
  list(prefix: string, opts?: ListOptions): Promise<ListResult>;
  /** Live keys under `prefix`, counted. */
  count(prefix: string): Promise<number>;
  /** Fails (ok:false, current) when the key is live. */
  create(key: string, value: string): Promise<WriteResult>;
  /** Compare-and-swap on the key's current modRevision. */
  update(key: string, value: string, expectedRevision: number): Promise<WriteResult>;
  /** Deletes the key, compare-and-swap when expectedRevision is given. ok:false with no current = not found. */
  delete(key: string, expectedRevision?: number): Promise<WriteResult>;
  /** Watch every key under `prefix`. Throws CompactedError when afterRevision < compactRevision. */
  watch(prefix: string, opts: WatchOptions): Promise<void>;
  /** Drop superseded history at or below `revision`. */
  compact(revision: number): Promise<void>;
  close(): Promise<void>;
}

/**
 * The store itself failed (database busy past its timeout, disk full, I/O error, or the
 * backend is closed). Not the caller's fault: `retryable` says whether trying again may help.
 */
export class StorageError extends Error {
  constructor(message: string, readonly retryable: boolean, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'StorageError';
  }
}
