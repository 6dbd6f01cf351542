/**
 * Acceptance suite: Kubernetes watch semantics on the wire (raw HTTPS, one JSON event per
 * line). Initial ADDED events for resourceVersion unset/"0", exact replay after a
 * resourceVersion, 410 Expired after compaction, bookmarks, timeoutSeconds, label and field
 * selector transitions (as kube's watch cache produces them), single-object watches, Table
 * events and many concurrent watchers. Every case works in its own namespace and asserts the
 * exact event sequence it should have seen, using a later "sentinel" write instead of sleeps
 * to prove that nothing else arrives.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestServer, type TestServer } from '../support/server.ts';
import { assertExpiredEvent, getObject, openStream, pollUntil, sendJson, withTimeout, type Json, type StreamHandle } from './support.ts';

interface WatchEvent {
  type: string;
  object: Json;
}

const cmPath = (ns: string, name?: string) => `/api/v1/namespaces/${ns}/configmaps${name ? `/${name}` : ''}`;

/** Parses every line received so far (each must be one JSON watch event). */
function eventsOf(s: StreamHandle): WatchEvent[] {
  return s.lines.map((l, i) => {
    try {
      return JSON.parse(l) as WatchEvent;
    } catch {
      assert.fail(`watch line ${i} is not JSON: ${l.slice(0, 300)}`);
    }
  });
}

/** Non-bookmark events, as compact "TYPE name" strings. */
const summary = (evs: readonly WatchEvent[]) => evs.filter((e) => e.type !== 'BOOKMARK').map((e) => `${e.type} ${e.object?.metadata?.name ?? '?'}`);

/** Polls until the stream holds at least `n` non-bookmark events; returns them all. */
async function waitForEvents(s: StreamHandle, n: number, what: string, timeoutMs = 30_000): Promise<WatchEvent[]> {
  return pollUntil(
    `${what}: ${n} watch events`,
    async () => {
      const evs = eventsOf(s).filter((e) => e.type !== 'BOOKMARK');
      return evs.length >= n ? evs : (false as const);
    },
    { timeoutMs, intervalMs: 20 },
  ).catch((err: Error) => {
    throw new Error(`${err.message}\nreceived so far: ${JSON.stringify(summary(eventsOf(s)))}`);
  });
}

/** Opens a watch and waits for its 200 response headers. */
async function watch(ts: TestServer, path: string, accept?: string): Promise<StreamHandle> {
  const s = openStream(ts, path, accept);
  const res = await withTimeout(s.response, 10_000, `watch response headers for ${path}`);
  assert.equal(res.status, 200, `GET ${path} → HTTP ${res.status}`);
  return s;
}

describe('watch semantics', { timeout: 55_000 }, () => {
  let ts: TestServer;
  const streams: StreamHandle[] = [];
  const open = async (path: string, accept?: string) => {
    const s = await watch(ts, path, accept);
    streams.push(s);
    return s;
  };

  const ns = async (name: string) => {
    const r = await sendJson(ts, 'POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
    assert.equal(r.status, 201, `create namespace ${name}: ${r.text}`);
  };
  /** Creates a ConfigMap; returns the stored object. */
  const create = async (namespace: string, name: string, data: Record<string, string> = {}, labels?: Record<string, string>): Promise<Json> => {
    const r = await sendJson(ts, 'POST', cmPath(namespace), { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, labels }, data });
    assert.equal(r.status, 201, `create configmap ${namespace}/${name}: ${r.text}`);
    return r.body;
  };
  /** Merge-patches a ConfigMap; returns the stored object. */
  const patch = async (namespace: string, name: string, body: Json): Promise<Json> => {
    const r = await sendJson(ts, 'PATCH', cmPath(namespace, name), body, 'application/merge-patch+json');
    assert.equal(r.status, 200, `patch configmap ${namespace}/${name}: ${r.text}`);
    return r.body;
  };
  /** Deletes a ConfigMap; returns the response body. */
  const remove = async (namespace: string, name: string): Promise<Json> => {
    const r = await sendJson(ts, 'DELETE', cmPath(namespace, name));
    assert.equal(r.status, 200, `delete configmap ${namespace}/${name}: ${r.text}`);
    return r.body;
  };
  const listRv = async (namespace: string): Promise<string> => (await getObject(ts, cmPath(namespace))).metadata.resourceVersion;

  before(async () => {
    ts = await startTestServer({ bookmarkIntervalMs: 200 });
  });
  after(async () => {
    for (const s of streams) s.close();
    await ts?.stop();
  });

  for (const rv of ['unset', '0'] as const) {
    it(`resourceVersion ${rv}: synthetic ADDED for every existing object, then live events`, async () => {
      const n = `initial-${rv === 'unset' ? 'unset' : 'zero'}`;
      await ns(n);
      const a = await create(n, 'a', { v: '1' });
      const b = await create(n, 'b', { v: '1' });
      const s = await open(`${cmPath(n)}?watch=true${rv === '0' ? '&resourceVersion=0' : ''}`);
      const initial = await waitForEvents(s, 2, 'initial ADDED events');
      assert.deepEqual(summary(initial).sort(), ['ADDED a', 'ADDED b']);
      const byName = new Map(initial.map((e) => [e.object.metadata.name, e.object]));
      assert.equal(byName.get('a').metadata.resourceVersion, a.metadata.resourceVersion, 'initial ADDED carries the current object');
      assert.equal(byName.get('b').metadata.uid, b.metadata.uid);
      assert.deepEqual(byName.get('a').data, { v: '1' });
      assert.equal(byName.get('a').kind, 'ConfigMap');
      assert.equal(byName.get('a').apiVersion, 'v1');

      const c = await create(n, 'c', { v: '1' });
      const a2 = await patch(n, 'a', { data: { v: '2' } });
      await remove(n, 'b');
      const all = await waitForEvents(s, 5, 'live events after the initial ones');
      assert.deepEqual(summary(all).slice(2), ['ADDED c', 'MODIFIED a', 'DELETED b']);
      assert.equal(all[2].object.metadata.resourceVersion, c.metadata.resourceVersion);
      assert.equal(all[3].object.metadata.resourceVersion, a2.metadata.resourceVersion);
      assert.deepEqual(all[3].object.data, { v: '2' });
      // Nothing more than those: a sentinel write is the next (and only next) event.
      await create(n, 'sentinel');
      const final = await waitForEvents(s, 6, 'sentinel');
      assert.deepEqual(summary(final), [...summary(all), 'ADDED sentinel']);
    });
  }

  it('an exact resourceVersion replays every change after it, in order, exactly once', async () => {
    const n = 'replay';
    await ns(n);
    const x0 = await create(n, 'x', { step: '0' });
    const start = x0.metadata.resourceVersion as string;
    const writes: { type: string; name: string; rv: string }[] = [];
    const y1 = await create(n, 'y', { step: '1' });
    writes.push({ type: 'ADDED', name: 'y', rv: y1.metadata.resourceVersion });
    const x2 = await patch(n, 'x', { data: { step: '2' } });
    writes.push({ type: 'MODIFIED', name: 'x', rv: x2.metadata.resourceVersion });
    const y3 = await patch(n, 'y', { data: { step: '3' } });
    writes.push({ type: 'MODIFIED', name: 'y', rv: y3.metadata.resourceVersion });
    await remove(n, 'x');
    writes.push({ type: 'DELETED', name: 'x', rv: '' });
    const z5 = await create(n, 'z', { step: '5' });
    writes.push({ type: 'ADDED', name: 'z', rv: z5.metadata.resourceVersion });

    const s = await open(`${cmPath(n)}?watch=true&resourceVersion=${start}`);
    const evs = await waitForEvents(s, writes.length, 'replay');
    assert.deepEqual(summary(evs), writes.map((w) => `${w.type} ${w.name}`), 'replayed events, in order');
    for (const [i, w] of writes.entries()) {
      if (w.rv) assert.equal(evs[i].object.metadata.resourceVersion, w.rv, `event ${i} (${w.type} ${w.name}) resourceVersion`);
    }
    assert.deepEqual(evs[1].object.data, { step: '2' }, 'the MODIFIED x event carries the state of that write');
    // The DELETED event's resourceVersion is the deletion's revision: after the last x write, before z.
    const delRv = Number(evs[3].object.metadata.resourceVersion);
    assert.ok(delRv > Number(y3.metadata.resourceVersion) && delRv < Number(z5.metadata.resourceVersion), `DELETED x resourceVersion ${delRv} lies between ${y3.metadata.resourceVersion} and ${z5.metadata.resourceVersion}`);
    const rvs = evs.map((e) => Number(e.object.metadata.resourceVersion));
    assert.deepEqual(rvs, [...rvs].sort((p, q) => p - q), 'resourceVersions increase');
    assert.ok(rvs.every((r) => r > Number(start)), 'nothing at or before the requested resourceVersion is replayed');

    // Replay is followed by live events, with no duplicates of the replayed ones.
    await create(n, 'sentinel');
    const final = await waitForEvents(s, writes.length + 1, 'sentinel after replay');
    assert.deepEqual(summary(final), [...writes.map((w) => `${w.type} ${w.name}`), 'ADDED sentinel']);

    // Starting from a later resourceVersion replays only what follows it.
    const s2 = await open(`${cmPath(n)}?watch=true&resourceVersion=${y3.metadata.resourceVersion}`);
    const later = await waitForEvents(s2, 3, 'replay from a later resourceVersion');
    assert.deepEqual(summary(later), ['DELETED x', 'ADDED z', 'ADDED sentinel']);
  });

  it('a compacted resourceVersion gets an ERROR event {code:410, reason:Expired}, then the stream closes', async () => {
    const n = 'compacted';
    await ns(n);
    const old = (await create(n, 'old')).metadata.resourceVersion as string;
    await patch(n, 'old', { data: { k: 'v' } });
    await create(n, 'newer');
    const current = await ts.server.backend.currentRevision();
    await ts.server.backend.compact(current);

    const s = openStream(ts, `${cmPath(n)}?watch=true&resourceVersion=${old}`);
    streams.push(s);
    const res = await withTimeout(s.response, 10_000, 'watch response');
    await withTimeout(s.ended, 10_000, 'the server closes the stream after the ERROR event');
    if (res.status === 410) {
      // Some apiserver paths answer HTTP 410 with a Status body instead; accept that form too.
      const st = JSON.parse(s.lines.join('\n'));
      assert.equal(st.reason, 'Expired');
      assert.equal(st.code, 410);
      return;
    }
    assert.equal(res.status, 200);
    const evs = eventsOf(s);
    assert.equal(evs.length, 1, `exactly one event before close: ${JSON.stringify(evs)}`);
    const [ev] = evs;
    assertExpiredEvent(ev);

    // A watch from the compaction point itself (or later) still works.
    const ok = await open(`${cmPath(n)}?watch=true&resourceVersion=${current}`);
    await patch(n, 'newer', { data: { after: 'compaction' } });
    const live = await waitForEvents(ok, 1, 'watch from the compaction revision');
    assert.deepEqual(summary(live), ['MODIFIED newer']);
  });

  it('allowWatchBookmarks=true delivers BOOKMARK events with kind, apiVersion and metadata.resourceVersion', async () => {
    const n = 'bookmarks';
    await ns(n);
    const first = await create(n, 'b1');
    const s = await open(`${cmPath(n)}?watch=true&allowWatchBookmarks=true&resourceVersion=${first.metadata.resourceVersion}`);
    const bookmarks = () => eventsOf(s).filter((e) => e.type === 'BOOKMARK');
    await pollUntil('two BOOKMARK events (interval 200 ms)', async () => bookmarks().length >= 2, { timeoutMs: 30_000, intervalMs: 50 });
    for (const b of bookmarks()) {
      assert.equal(b.object.kind, 'ConfigMap');
      assert.equal(b.object.apiVersion, 'v1');
      assert.match(b.object.metadata?.resourceVersion ?? '', /^\d+$/, `bookmark resourceVersion: ${JSON.stringify(b)}`);
      assert.ok(Number(b.object.metadata.resourceVersion) >= Number(first.metadata.resourceVersion), 'a bookmark is never older than the watch start');
      assert.equal(b.object.data, undefined, 'a bookmark carries no object content');
    }
    // After a write, a later bookmark has caught up with it.
    const w = await patch(n, 'b1', { data: { k: 'v' } });
    await waitForEvents(s, 1, 'MODIFIED b1');
    await pollUntil(
      `a BOOKMARK at or after ${w.metadata.resourceVersion}`,
      async () => bookmarks().some((b) => Number(b.object.metadata.resourceVersion) >= Number(w.metadata.resourceVersion)),
      { timeoutMs: 30_000, intervalMs: 50 },
    );
    const types = eventsOf(s).map((e) => e.type);
    assert.ok(types.every((t) => t === 'BOOKMARK' || t === 'MODIFIED'), `only bookmarks and the one change: ${JSON.stringify(types)}`);
  });

  it('without allowWatchBookmarks no BOOKMARK is sent; timeoutSeconds=1 closes the stream cleanly after a second', async () => {
    const n = 'timeout';
    await ns(n);
    await create(n, 't1');
    const started = performance.now();
    // ts.request resolves only on a complete response ('end'), and rejects if the connection is
    // aborted: a stream that ends at all was ended by the server, which only timeoutSeconds does.
    const res = await withTimeout(ts.request('GET', `${cmPath(n)}?watch=true&timeoutSeconds=1`, { accept: 'application/json' }), 30_000, 'watch with timeoutSeconds=1 ends');
    const elapsed = performance.now() - started;
    assert.equal(res.status, 200);
    // Timers fire late, never early: a lower bound a busy machine cannot break.
    assert.ok(elapsed >= 900, `stream closed after ${elapsed.toFixed(0)} ms, before its timeoutSeconds`);
    const lines = res.body.split('\n').filter((l) => l.trim());
    const evs = lines.map((l) => JSON.parse(l) as WatchEvent);
    assert.deepEqual(evs.map((e) => `${e.type} ${e.object?.metadata?.name}`), ['ADDED t1'], 'only the initial event; no BOOKMARK without allowWatchBookmarks, no ERROR');
  });

  it('a label-selector watch sees ADDED when an object starts matching and DELETED (with its last matching state) when it stops', async () => {
    const n = 'labels';
    await ns(n);
    const s = await open(`${cmPath(n)}?watch=true&labelSelector=${encodeURIComponent('app=web')}`);
    await create(n, 'p', { v: '0' });
    await create(n, 'other', { v: '0' }, { app: 'db' });
    const starts = await patch(n, 'p', { metadata: { labels: { app: 'web' } }, data: { v: '1' } });
    const mod = await patch(n, 'p', { data: { v: '2' } });
    const stops = await patch(n, 'p', { metadata: { labels: { app: 'other' } }, data: { v: '3' } });
    await patch(n, 'p', { data: { v: '4' } }); // no longer matching: invisible
    await patch(n, 'other', { data: { v: '1' } }); // never matching: invisible
    await create(n, 'sentinel', {}, { app: 'web' });
    const evs = await waitForEvents(s, 4, 'label transitions');
    assert.deepEqual(summary(evs), ['ADDED p', 'MODIFIED p', 'DELETED p', 'ADDED sentinel']);
    assert.equal(evs[0].object.metadata.resourceVersion, starts.metadata.resourceVersion);
    assert.deepEqual(evs[0].object.data, { v: '1' });
    assert.equal(evs[1].object.metadata.resourceVersion, mod.metadata.resourceVersion);
    // kube's watch cache sends the previous (still matching) object content on a stop-matching DELETED,
    // with the resourceVersion of the write that made it stop matching.
    assert.equal(evs[2].object.metadata.resourceVersion, stops.metadata.resourceVersion, 'DELETED carries the revision of the write that made it stop matching');
    assert.deepEqual(evs[2].object.metadata.labels, { app: 'web' }, `DELETED on stop-matching carries the last state that matched the selector: ${JSON.stringify(evs[2].object.metadata)}`);
    assert.deepEqual(evs[2].object.data, { v: '2' }, 'DELETED on stop-matching carries the last matching content');
  });

  it('a fieldSelector metadata.name=x watch sees only x; DELETED carries the last state', async () => {
    const n = 'fields';
    await ns(n);
    const s = await open(`${cmPath(n)}?watch=true&fieldSelector=${encodeURIComponent('metadata.name=x')}`);
    await create(n, 'y', { v: '0' });
    await create(n, 'x', { v: '0' });
    await patch(n, 'y', { data: { v: '1' } });
    const last = await patch(n, 'x', { data: { v: '1' }, metadata: { labels: { last: 'state' } } });
    await remove(n, 'y');
    await remove(n, 'x');
    const evs = await waitForEvents(s, 3, 'x events');
    assert.deepEqual(summary(evs), ['ADDED x', 'MODIFIED x', 'DELETED x']);
    const del = evs[2].object;
    assert.deepEqual(del.data, { v: '1' }, 'DELETED carries the last state');
    assert.deepEqual(del.metadata.labels, { last: 'state' });
    assert.equal(del.metadata.uid, last.metadata.uid);
    assert.ok(Number(del.metadata.resourceVersion) > Number(last.metadata.resourceVersion), 'DELETED resourceVersion is the deletion revision');
    // Recreate x: the watch continues and sees it; y stays invisible.
    await create(n, 'y', { v: 'again' });
    await create(n, 'x', { v: 'again' });
    const more = await waitForEvents(s, 4, 'recreated x');
    assert.deepEqual(summary(more), ['ADDED x', 'MODIFIED x', 'DELETED x', 'ADDED x']);
  });

  it('single-object watches: fieldSelector=metadata.name%3Dx on the collection and the object URL ?watch=true', async () => {
    const n = 'single';
    await ns(n);
    await create(n, 'x', { v: '0' });
    await create(n, 'y', { v: '0' });
    const bySelector = await open(`${cmPath(n)}?watch=true&fieldSelector=metadata.name%3Dx`);
    const byUrl = await open(`${cmPath(n, 'x')}?watch=true`);
    for (const [what, s] of [['fieldSelector', bySelector], ['object URL', byUrl]] as const) {
      const init = await waitForEvents(s, 1, `${what}: initial ADDED x`);
      assert.deepEqual(summary(init), ['ADDED x'], what);
    }
    await patch(n, 'y', { data: { v: '1' } });
    await patch(n, 'x', { data: { v: '1' } });
    await remove(n, 'x');
    for (const [what, s] of [['fieldSelector', bySelector], ['object URL', byUrl]] as const) {
      const evs = await waitForEvents(s, 3, `${what}: x events`);
      assert.deepEqual(summary(evs), ['ADDED x', 'MODIFIED x', 'DELETED x'], what);
      assert.deepEqual(evs[2].object.data, { v: '1' }, `${what}: DELETED carries the last state`);
    }
    // The object-URL watch of a name that does not exist yet starts empty and sees its creation.
    const future = await open(`${cmPath(n, 'later')}?watch=true`);
    await create(n, 'later', { v: 'new' });
    const evs = await waitForEvents(future, 1, 'object URL watch of a not-yet-existing object');
    assert.deepEqual(summary(evs), ['ADDED later']);
  });

  it('a fieldSelector metadata.name watch across all namespaces sees that name in every namespace', async () => {
    await ns('across-a');
    await ns('across-b');
    await create('across-a', 'pinned', { v: '0' });
    const s = await open(`/api/v1/configmaps?watch=true&fieldSelector=${encodeURIComponent('metadata.name=pinned')}`);
    await waitForEvents(s, 1, 'initial ADDED pinned');
    await create('across-b', 'pinned', { v: '0' });
    await create('across-b', 'other', { v: '0' });
    await patch('across-a', 'pinned', { data: { v: '1' } });
    await remove('across-b', 'pinned');
    const evs = await waitForEvents(s, 4, 'pinned events in both namespaces');
    assert.deepEqual(
      evs.filter((e) => e.type !== 'BOOKMARK').map((e) => `${e.type} ${e.object.metadata.namespace}/${e.object.metadata.name}`),
      ['ADDED across-a/pinned', 'ADDED across-b/pinned', 'MODIFIED across-a/pinned', 'DELETED across-b/pinned'],
    );
  });

  it('a watch with Accept: as=Table gets one-row Tables as event objects', async () => {
    const n = 'table';
    await ns(n);
    await create(n, 't1', { a: '1' });
    const accept = 'application/json;as=Table;v=v1;g=meta.k8s.io';
    const s = await open(`${cmPath(n)}?watch=true`, accept);
    await create(n, 't2', { a: '1', b: '2' });
    await patch(n, 't1', { data: { a: '2' } });
    await remove(n, 't2');
    const evs = await waitForEvents(s, 4, 'Table events');
    assert.deepEqual(
      evs.map((e) => e.type),
      ['ADDED', 'ADDED', 'MODIFIED', 'DELETED'],
    );
    const names = ['t1', 't2', 't1', 't2'];
    for (const [i, ev] of evs.entries()) {
      const t = ev.object;
      assert.equal(t.kind, 'Table', `event ${i}: ${JSON.stringify(t).slice(0, 300)}`);
      assert.equal(t.apiVersion, 'meta.k8s.io/v1');
      assert.equal(t.rows?.length, 1, `event ${i}: one row`);
      const row = t.rows[0];
      assert.equal(row.cells[0], names[i], `event ${i}: first cell is the name`);
      assert.equal(row.object?.kind, 'PartialObjectMetadata', `event ${i}: row.object defaults to PartialObjectMetadata`);
      assert.equal(row.object?.metadata?.name, names[i]);
      assert.match(String(t.metadata?.resourceVersion ?? row.object.metadata.resourceVersion), /^\d+$/);
    }
    const first = evs[0].object;
    assert.ok(Array.isArray(first.columnDefinitions) && first.columnDefinitions.length >= 2, 'the first event defines the columns');
    assert.equal(first.columnDefinitions[0].name, 'Name');
    const dataCol = first.columnDefinitions.findIndex((c: Json) => c.name === 'Data');
    assert.ok(dataCol > 0, `ConfigMap columns include Data: ${JSON.stringify(first.columnDefinitions.map((c: Json) => c.name))}`);
    assert.equal(evs[1].object.rows[0].cells[dataCol], 2, 'Data counts the keys of t2');
  });

  it('100 concurrent watchers each get every event exactly once, in order', async () => {
    const n = 'fanout';
    await ns(n);
    const rv = await listRv(n);
    const watchers = await Promise.all(Array.from({ length: 100 }, () => open(`${cmPath(n)}?watch=true&resourceVersion=${rv}`)));
    const expected: string[] = [];
    const rvs: string[] = [];
    for (let i = 0; i < 10; i++) {
      const o = await create(n, `o${i}`, { i: String(i) });
      expected.push(`ADDED o${i}`);
      rvs.push(o.metadata.resourceVersion);
    }
    for (let i = 0; i < 5; i++) {
      const o = await patch(n, `o${i}`, { data: { i: `${i}-b` } });
      expected.push(`MODIFIED o${i}`);
      rvs.push(o.metadata.resourceVersion);
    }
    for (let i = 5; i < 8; i++) {
      await remove(n, `o${i}`);
      expected.push(`DELETED o${i}`);
      rvs.push('');
    }
    await create(n, 'sentinel');
    expected.push('ADDED sentinel');
    await pollUntil(
      `every watcher has ${expected.length} events`,
      async () => watchers.every((s) => s.lines.length >= expected.length),
      { timeoutMs: 20_000, intervalMs: 50 },
    ).catch((err: Error) => {
      throw new Error(`${err.message}; counts: ${JSON.stringify(watchers.map((s) => s.lines.length))}`);
    });
    for (const [w, s] of watchers.entries()) {
      const evs = eventsOf(s);
      assert.deepEqual(summary(evs), expected, `watcher ${w}`);
      for (const [i, r] of rvs.entries()) if (r) assert.equal(evs[i].object.metadata.resourceVersion, r, `watcher ${w} event ${i} resourceVersion`);
    }
    for (const s of watchers) s.close();
  });
});
