/**
 * Serving `?watch=true`: initial events for resourceVersion "" or "0", replay after an exact
 * resourceVersion, 410 Expired (as an ERROR event, then close) for a compacted one, label
 * and field filtering with the ADDED/DELETED transitions kube's watch cache produces when an
 * object starts or stops matching, bookmarks, timeouts, and closing slow watchers.
 * Each event is encoded once and the bytes are shared by every watcher that sends them.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { CompactedError, type KeyValue, type WatchEvent } from '../storage/types.ts';
import { errors } from './errors.ts';
import type { ObjectMatcher } from './registry/list-filter.ts';
import { apiVersionOf, type KubeObject, type ResourceDefinition } from './registry/resource.ts';
import type { ObjectStore } from './registry/store.ts';

export interface WatchParams {
  readonly def: ResourceDefinition;
  readonly namespace?: string;
  /** Set when the watch is on one object (a name in the path or a metadata.name field selector). */
  readonly name?: string;
  readonly matcher?: ObjectMatcher;
  readonly resourceVersion?: string;
  readonly allowBookmarks: boolean;
  readonly timeoutSeconds?: number;
  readonly sendInitialEvents?: boolean;
  /** Turns an object into what is sent (the object itself, or a one-row Table). */
  readonly render: (obj: KubeObject) => unknown;
  /** Identifies `render`, so encodings are shared only between watchers that render alike. */
  readonly renderKey: string;
  /** `render` returns the object itself: without a matcher, stored text can be sent as it is served. */
  readonly rendersObject?: boolean;
}

export interface WatchServerOptions {
  readonly bookmarkIntervalMs: number;
  /** Bytes buffered for a watcher before it is closed as too slow. */
  readonly maxBufferedBytes: number;
  readonly onOpen?: (def: ResourceDefinition) => void;
  readonly onClose?: (def: ResourceDefinition) => void;
  /** Told of each watch with the way to end it cleanly (the server shutting down); returns its deregistration. */
  readonly drain?: { addWatch(end: () => void | Promise<void>): () => void };
}

type EventType = 'ADDED' | 'MODIFIED' | 'DELETED';

// Per storage event: the decoded object per served version, and the encoded line per renderer.
// Every live watcher is handed a batch in the turn the hub delivers it, so the memos are
// dropped when that turn ends. Kept as long as the hub's ring keeps the event (10,000 of them),
// they held every recent object decoded and encoded: with 60,000 pods starting, the server's
// live heap was 179 MB with them and 79 MB without.
const decoded = new Map<KeyValue, Map<string, KubeObject>>();
const encoded = new Map<KeyValue, Map<string, string | undefined>>();
let clearing = false;

function memoTurn(): void {
  if (clearing) return;
  clearing = true;
  setImmediate(() => {
    clearing = false;
    decoded.clear();
    encoded.clear();
  });
}

function decodeShared(store: ObjectStore, def: ResourceDefinition, kv: KeyValue): KubeObject {
  let byVersion = decoded.get(kv);
  if (!byVersion) decoded.set(kv, (byVersion = new Map())), memoTurn();
  const key = apiVersionOf(def);
  let obj = byVersion.get(key);
  if (!obj) byVersion.set(key, (obj = store.decode(def, kv)));
  return obj;
}

function encodeShared(kv: KeyValue, type: EventType, renderKey: string, make: () => unknown): string {
  let byRender = encoded.get(kv);
  if (!byRender) encoded.set(kv, (byRender = new Map())), memoTurn();
  const key = `${type}/${renderKey}`;
  let line = byRender.get(key);
  if (!line) byRender.set(key, (line = `{"type":"${type}","object":${JSON.stringify(make())}}\n`));
  return line;
}

/** The event line made from the stored text as served (see `ObjectStore.served`), when it can be. */
function servedShared(store: ObjectStore, def: ResourceDefinition, kv: KeyValue, type: EventType): string | undefined {
  let byRender = encoded.get(kv);
  if (!byRender) encoded.set(kv, (byRender = new Map())), memoTurn();
  const key = `${type}/served/${apiVersionOf(def)}`;
  if (byRender.has(key)) return byRender.get(key);
  const text = store.served(def, kv);
  const line = text === undefined ? undefined : `{"type":"${type}","object":${text}}\n`;
  byRender.set(key, line);
  return line;
}

export async function serveWatch(req: IncomingMessage, res: ServerResponse, store: ObjectStore, p: WatchParams, opts: WatchServerOptions): Promise<void> {
  const { def } = p;
  // A name pins the watch to one key only where it names one object: across namespaces, a
  // metadata.name selector matches that name in every namespace (the matcher checks it).
  const exactKey = p.name && (p.namespace || !def.namespaced) ? store.key(def, p.namespace, p.name) : undefined;
  const prefix = exactKey ?? store.prefix(def, p.namespace);
  const rv = p.resourceVersion ?? '';
  if (rv !== '' && !/^\d+$/.test(rv)) throw errors.badRequest(`resourceVersion: Invalid value: ${JSON.stringify(rv)}: must be a non-negative integer`);

  const controller = new AbortController();
  const signal = controller.signal;
  let lastRv = 0;
  let closed = false;
  const timers: NodeJS.Timeout[] = [];
  let undrain = (): void => {};
  const finish = (): void => {
    if (closed) return;
    closed = true;
    undrain();
    controller.abort();
    for (const t of timers) clearTimeout(t), clearInterval(t);
    opts.onClose?.(def);
    if (!res.writableEnded) res.end();
  };
  res.on('close', finish);

  // The connection serves this watch only. When the watch ends (its timeout, or the replica
  // shutting down) the client re-watches on a new connection, which a load balancer sends to
  // a ready replica; a kept-alive one would carry the next request back to this replica, and
  // one closed under a request the client had just sent on it fails that request.
  res.writeHead(200, { 'Content-Type': 'application/json', 'Cache-Control': 'no-cache, private', 'Transfer-Encoding': 'chunked', Connection: 'close' });
  res.flushHeaders();
  opts.onOpen?.(def);

  const send = (line: string): void => {
    if (closed) return;
    res.write(line);
    if (res.writableLength > opts.maxBufferedBytes) finish();
  };
  const bookmark = (annotations?: Record<string, string>): void => {
    if (!p.allowBookmarks) return;
    const metadata: KubeObject = { resourceVersion: String(lastRv) };
    if (annotations) metadata.annotations = annotations;
    send(JSON.stringify({ type: 'BOOKMARK', object: { kind: def.kind, apiVersion: apiVersionOf(def), metadata } }) + '\n');
  };
  const sendObject = (type: EventType, obj: KubeObject): void => {
    send(JSON.stringify({ type, object: p.render(obj) }) + '\n');
  };
  // Ended by a shutdown as by its timeout: a bookmark says how far it got, so the client
  // resumes from there on another replica instead of relisting.
  undrain = opts.drain?.addWatch(() => {
    if (lastRv > 0) bookmark();
    // Settles once the stream's last bytes are handed to the socket: cut before, the client
    // would see its stream aborted rather than ended.
    const flushed = res.writableFinished ? Promise.resolve() : new Promise<void>((resolve) => (res.once('finish', resolve), res.once('close', resolve)));
    finish();
    return flushed;
  }) ?? undrain;
  const expired = (requested: number, compacted: number): void => {
    const status = errors.expired(`too old resource version: ${requested} (${compacted})`).toStatus();
    send(JSON.stringify({ type: 'ERROR', object: status }) + '\n');
    // The client relists only once the stream closes (kube-apiserver closes right after the error).
    finish();
  };

  const matches = (obj: KubeObject): boolean => !p.matcher || p.matcher(obj);
  // Every event is sent, as stored: no parse and no stringify (the common informer watch).
  const verbatim = p.rendersObject === true && !p.matcher;

  const onEvents = (events: readonly WatchEvent[]): void => {
    // A batch's events leave in one chunk: one TLS record and one write instead of one per
    // event, which is most of what a busy watcher costs the server.
    res.cork();
    try {
      sendEvents(events);
    } finally {
      res.uncork();
    }
  };
  const sendEvents = (events: readonly WatchEvent[]): void => {
    for (const ev of events) {
      if (closed) return;
      if (exactKey && ev.kv.key !== exactKey) continue;
      if (!ev.kv.key.startsWith(prefix)) continue;
      lastRv = ev.kv.modRevision;
      if (verbatim) {
        const line = servedShared(store, def, ev.kv, ev.type === 'create' ? 'ADDED' : ev.type === 'delete' ? 'DELETED' : 'MODIFIED');
        if (line !== undefined) {
          send(line);
          continue;
        }
      }
      if (ev.type === 'delete') {
        // A delete event carries the last state, stamped with the deletion's revision.
        const kv = ev.kv;
        const obj = decodeShared(store, def, kv);
        if (matches(obj)) send(encodeShared(kv, 'DELETED', p.renderKey, () => p.render(obj)));
        continue;
      }
      const obj = decodeShared(store, def, ev.kv);
      const now = matches(obj);
      let before = false;
      if (ev.type === 'update' && ev.prevKv) before = p.matcher ? matches(decodeShared(store, def, ev.prevKv)) : true;
      let type: EventType | undefined;
      if (ev.type === 'create') type = now ? 'ADDED' : undefined;
      else if (now && before) type = 'MODIFIED';
      else if (now) type = 'ADDED';
      else if (before && ev.prevKv) {
        // As kube's watch cache: the object as the watcher last saw it, at this event's revision.
        const prevKv = ev.prevKv;
        send(
          encodeShared(ev.kv, 'DELETED', `${p.renderKey}/previous`, () => {
            const previous = structuredClone(decodeShared(store, def, prevKv));
            previous.metadata.resourceVersion = String(ev.kv.modRevision);
            return p.render(previous);
          }),
        );
        continue;
      }
      if (type) send(encodeShared(ev.kv, type, p.renderKey, () => p.render(obj)));
    }
  };

  let startAfter: number;
  if (rv === '' || rv === '0' || p.sendInitialEvents) {
    const list = p.name
      ? await store.list(def, p.namespace, { matcher: (o) => o.metadata?.name === p.name && matches(o) })
      : await store.list(def, p.namespace, { matcher: p.matcher });
    startAfter = Number(list.resourceVersion);
    lastRv = startAfter;
    if (rv === '' || rv === '0' || p.sendInitialEvents) for (const obj of list.items) sendObject('ADDED', obj);
    if (p.sendInitialEvents) bookmark({ 'k8s.io/initial-events-end': 'true' });
  } else {
    startAfter = Number(rv);
    lastRv = startAfter;
  }
  if (closed) return;

  try {
    await store.backend.watch(prefix, {
      afterRevision: startAfter,
      signal,
      onEvents,
      // Bookmarks carry how far the watch has got, not only its last event: a Lease renewal
      // every few milliseconds elsewhere would otherwise leave a quiet watch's resourceVersion
      // so far behind that resuming from it replays history from disk, or is compacted away.
      onProgress: (revision) => {
        if (revision > lastRv) lastRv = revision;
      },
      onClose: (reason) => {
        if (reason.kind === 'compacted') expired(reason.requested, reason.compactRevision);
        else finish();
      },
    });
  } catch (e) {
    if (e instanceof CompactedError) return expired(e.requested, e.compactRevision);
    throw e;
  }
  if (closed) return;

  if (p.allowBookmarks) timers.push(setInterval(() => bookmark(), opts.bookmarkIntervalMs));
  // Without timeoutSeconds kube-apiserver picks a random 30-60 minutes, so watchers reconnect at spread times.
  const timeoutMs = p.timeoutSeconds !== undefined ? p.timeoutSeconds * 1000 : (1800 + Math.random() * 1800) * 1000;
  timers.push(
    setTimeout(() => {
      bookmark();
      finish();
    }, timeoutMs),
  );
  void req;
}
