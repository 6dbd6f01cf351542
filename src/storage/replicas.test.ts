/**
 * Several backends on one SQLite file, as API server replicas share a store (issue 17): commit
 * notices carry one's writes to the others' watches with the poll switched off; the durability
 * fence holds across them (a row another process has committed but not yet synced is served
 * nowhere, until its writer acknowledges it or the reader syncs it itself); writes from two
 * backends in one turn of one process wait for each other's lock without stalling; a compaction
 * by one is a 410 on every other; and two compactors racing compact once.
 */
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openSqliteBackend } from './sqlite.ts';
import { decodeNotice, encodeNotice } from './commit-notices.ts';
import { Compactor } from './compactor.ts';
import { CompactedError, type Backend, type WatchCloseReason, type WatchEvent } from './types.ts';

/** Between reads of what another backend delivers (a notice arrives in some later turn); the deadline is for one that never comes. */
async function eventually<T>(what: string, probe: () => Promise<T | undefined> | T | undefined): Promise<T> {
  const deadline = performance.now() + 30_000;
  for (;;) {
    const v = await probe();
    if (v !== undefined) return v;
    if (performance.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

const dir = mkdtempSync(join(tmpdir(), 'shipyard-replicas-'));
let n = 0;
const freshPath = () => join(dir, `db-${++n}`, 'state.db');

function watchAll(b: Backend, prefix: string, afterRevision: number) {
  const events: WatchEvent[] = [];
  const closed: WatchCloseReason[] = [];
  const ac = new AbortController();
  const ready = b.watch(prefix, { afterRevision, signal: ac.signal, onEvents: (batch) => events.push(...batch), onClose: (r) => closed.push(r) });
  return { events, closed, ready, stop: () => ac.abort() };
}

describe('several backends on one store', () => {
  after(() => rm(dir, { recursive: true, force: true }));

  it('commit notices: a notice read torn by a concurrent write is refused', () => {
    assert.equal(decodeNotice(encodeNotice(12345)), 12345);
    const old = encodeNotice(99);
    const next = encodeNotice(100);
    const torn = Buffer.concat([next.subarray(0, 15), old.subarray(15)]);
    assert.equal(decodeNotice(torn), undefined);
    assert.equal(decodeNotice(Buffer.alloc(0)), undefined, 'a peer that has announced nothing yet');
  });

  it("another backend's writes reach a watch through its commit notice, with the poll off, in order across WAL restarts", async () => {
    const path = freshPath();
    // Checkpoints every few writes, finished by the writer, so the WAL starts over again and again.
    const a = await openSqliteBackend({ path, pollIntervalMs: 0, checkpoints: { everyWrites: 5, maxFrames: 1 } });
    const b = await openSqliteBackend({ path, pollIntervalMs: 0 });
    const w = watchAll(b, '/r/', await b.currentRevision());
    try {
      await w.ready;
      const first = await a.create('/r/first', 'one');
      assert.ok(first.ok);
      // B knew A from its start: a read right after A's acknowledgement sees it, without waiting for the watch.
      assert.equal((await b.get('/r/first'))?.value, 'one');
      await eventually('the create through its notice', () => (w.events.length >= 1 ? true : undefined));
      const revisions = [first.revision];
      for (let i = 0; i < 60; i++) {
        const r = await a.create(`/r/k${i}`, String(i));
        assert.ok(r.ok);
        revisions.push(r.revision);
      }
      await eventually('every write', () => (w.events.length >= revisions.length ? true : undefined));
      assert.deepEqual(w.events.map((e) => e.kv.modRevision), revisions);
      assert.deepEqual(w.closed, []);
      // A learns of B through the directory watch (B started after it), and then B's writes reach A's reads and watches too.
      const back = watchAll(a, '/back/', await a.currentRevision());
      await back.ready;
      const fromB = await b.create('/back/x', 'x');
      assert.ok(fromB.ok);
      await eventually("B's write on A", () => (back.events.length ? true : undefined));
      assert.equal((await a.get('/back/x'))?.value, 'x');
      back.stop();
    } finally {
      w.stop();
      await b.close();
      await a.close();
    }
    assert.deepEqual(readdirSync(`${path}-notify`), [], 'each backend removes its notice directory when it closes');
  });

  it("a row another backend committed but has not yet synced is served nowhere until it is durable", async () => {
    const path = freshPath();
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    let holding = false;
    const a = await openSqliteBackend({
      path,
      pollIntervalMs: 0,
      aroundFsync: async (fsync) => {
        if (holding) await held;
        await fsync();
      },
    });
    const b = await openSqliteBackend({ path, pollIntervalMs: 0 });
    try {
      const before = await a.create('/f/before', 'b');
      assert.ok(before.ok);
      const w = watchAll(b, '/f/', before.revision);
      await w.ready;
      holding = true;
      const pending = a.create('/f/held', 'h');
      // Committed at once (this turn), then its fsync is held: wait until the row is in the file.
      const reader = await openSqliteBackend({ path, pollIntervalMs: 0, durability: 'process-crash-only' });
      try {
        await eventually('the commit of the held write', async () => ((await reader.get('/f/held')) ? true : undefined));
      } finally {
        await reader.close();
      }
      assert.equal(await b.get('/f/held'), undefined, 'not read');
      assert.equal((await b.list('/f/')).kvs.length, 1, 'not listed');
      assert.equal(await b.currentRevision(), before.revision, 'not counted in the current revision');
      await new Promise((r) => setTimeout(r, 50));
      assert.equal(w.events.length, 0, 'not watched');

      // A third backend whose poll runs finds the row unannounced for a whole interval and syncs it itself.
      const c = await openSqliteBackend({ path, pollIntervalMs: 20 });
      try {
        await eventually('the row, once synced by the reader', async () => ((await c.get('/f/held')) ? true : undefined));
      } finally {
        await c.close();
      }

      release();
      const done = await pending;
      assert.ok(done.ok);
      assert.equal((await b.get('/f/held'))?.value, 'h', 'served once its writer acknowledged it');
      await eventually('the event', () => (w.events.length ? true : undefined));
      assert.deepEqual(w.events.map((e) => e.kv.key), ['/f/held']);
      w.stop();
    } finally {
      release();
      await b.close();
      await a.close();
    }
  });

  it('two backends in one process writing in the same turn wait for each other’s lock without stalling the loop', async () => {
    const path = freshPath();
    const a = await openSqliteBackend({ path, pollIntervalMs: 0 });
    const b = await openSqliteBackend({ path, pollIntervalMs: 0 });
    try {
      const results = await Promise.all([a.create('/l/1', '1'), b.create('/l/2', '2'), a.create('/l/3', '3'), b.create('/l/4', '4'), b.update('/l/2', '2b', 0)]);
      assert.deepEqual(results.map((r) => r.ok), [true, true, true, true, false]);
      // A write that waited out SQLite's busy timeout would have failed above (SQLITE_BUSY), so every one committed.
      assert.deepEqual((await a.list('/l/')).kvs.map((kv) => kv.value), ['1', '2', '3', '4']);
    } finally {
      await b.close();
      await a.close();
    }
  });

  it('a compaction through one backend is a 410 on another for a watch or read from before it; a watch that kept up goes on', async () => {
    const path = freshPath();
    const a = await openSqliteBackend({ path, pollIntervalMs: 0 });
    const b = await openSqliteBackend({ path, pollIntervalMs: 0 });
    try {
      const first = await a.create('/c/x', '1');
      assert.ok(first.ok);
      let last = first;
      for (let i = 2; i <= 5; i++) {
        const r = await a.update('/c/x', String(i), last.revision);
        assert.ok(r.ok);
        last = r;
      }
      const live = watchAll(b, '/c/', first.revision - 1);
      await live.ready;
      await eventually('the history on B', () => (live.events.length === 5 ? true : undefined));
      await a.compact(last.revision - 1);
      await assert.rejects(b.watch('/c/', { afterRevision: first.revision, signal: new AbortController().signal, onEvents: () => {} }), CompactedError);
      await assert.rejects(b.list('/c/', { revision: first.revision }), CompactedError);
      assert.equal(await b.compactRevision(), last.revision - 1);
      assert.equal((await b.get('/c/x'))?.value, '5');
      const more = await a.update('/c/x', '6', last.revision);
      assert.ok(more.ok);
      await eventually('the next event on the watch that kept up', () => (live.events.length === 6 ? true : undefined));
      assert.deepEqual(live.closed, []);
      live.stop();
    } finally {
      await b.close();
      await a.close();
    }
  });

  it('two compactors racing on one key compact once; the loser learns the key and wins a later round alone', async () => {
    const path = freshPath();
    const a = await openSqliteBackend({ path, pollIntervalMs: 0 });
    const b = await openSqliteBackend({ path, pollIntervalMs: 0 });
    try {
      const ca = new Compactor({ backend: a, keepRevisions: 0 });
      const cb = new Compactor({ backend: b, keepRevisions: 0 });
      const write = async (count: number) => {
        for (let i = 0; i < count; i++) assert.ok((await a.create(`/k/${Math.random()}`, 'v')).ok);
      };
      await write(3);
      // First round: one creates the key (taking the clock, compacting nothing), the other learns it.
      const first = await Promise.all([ca.run(), cb.run()]);
      assert.deepEqual(first.map((r) => r.won).sort(), [false, true]);
      assert.equal(await a.compactRevision(), 0);
      await write(3);
      const second = await Promise.all([ca.run(), cb.run()]);
      const winners = second.filter((r) => r.won);
      assert.equal(winners.length, 1, 'one winner per round');
      const compacted = second.flatMap((r) => (r.won && r.compactedTo !== undefined ? [r.compactedTo] : []));
      assert.equal(compacted.length, 1, 'one compaction per round');
      assert.equal(await b.compactRevision(), compacted[0]);
      // The loser learned the key from its failed swap: should the winner stop running, its next run takes over.
      const loser = second[0]!.won ? cb : ca;
      await write(2);
      const takeover = await loser.run();
      assert.equal(takeover.won, true);
      assert.ok(takeover.won && takeover.compactedTo !== undefined && takeover.compactedTo > compacted[0]!);
    } finally {
      await b.close();
      await a.close();
    }
  });
});
