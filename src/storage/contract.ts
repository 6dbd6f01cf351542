/**
 * The storage contract as a test suite: every Backend implementation runs these same tests
 * (sqlite.test.ts does; an etcd backend would add one line). It checks behaviour through the
 * Backend interface only, so it cannot lean on how a backend stores things.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import {
  CompactedError,
  FutureRevisionError,
  type Backend,
  type KeyValue,
  type WatchCloseReason,
  type WatchEvent,
  type WriteResult,
} from './types.ts';

/** Hints a backend may honour when the suite opens it; ignoring them only makes some tests less sharp. */
export interface ContractOpenOptions {
  /** Keep only this many events in memory, so a watch from an older revision replays from the store. */
  watchRingSize?: number;
  /** Replay history in pages this small, so live writes interleave with a replay. */
  replayPageSize?: number;
}

/** A test this backend skips, and why. */
export interface Skip {
  readonly test: string;
  readonly reason: string;
}

type Open = (opts?: ContractOpenOptions) => Promise<Backend>;

export function storageContract(name: string, open: Open, skip: readonly Skip[] = []): void {
  const test = (title: string, fn: (b: Backend) => Promise<void>, opts?: ContractOpenOptions) => {
    const skipped = skip.find((s) => s.test === title);
    it(title, skipped ? { skip: skipped.reason } : {}, async () => {
      const b = await open(opts);
      try {
        await fn(b);
      } finally {
        await b.close();
      }
    });
  };

  describe(`storage contract: ${name}`, () => {
    test('create stores a value that get returns; creating a live key fails with the current value', async (b) => {
      const r = ok(await b.create('/c/a', 'v1'));
      assert.ok(r.revision > 0);
      assert.deepEqual(r.kv, { key: '/c/a', value: 'v1', createRevision: r.revision, modRevision: r.revision });
      assert.deepEqual(await b.get('/c/a'), r.kv);
      assert.equal(await b.get('/c/missing'), undefined);
      const again = await b.create('/c/a', 'v2');
      assert.equal(again.ok, false);
      assert.deepEqual(!again.ok && again.current, r.kv);
      assert.equal((await b.get('/c/a'))?.value, 'v1');
    });

    test('update is a compare-and-swap on the modRevision', async (b) => {
      const created = ok(await b.create('/u/a', 'v1'));
      const updated = ok(await b.update('/u/a', 'v2', created.revision));
      assert.ok(updated.revision > created.revision);
      assert.deepEqual(updated.kv, { key: '/u/a', value: 'v2', createRevision: created.revision, modRevision: updated.revision });
      const stale = await b.update('/u/a', 'v3', created.revision);
      assert.equal(stale.ok, false);
      assert.deepEqual(!stale.ok && stale.current, updated.kv);
      const missing = await b.update('/u/missing', 'v', 1);
      assert.deepEqual(missing, { ok: false });
      assert.equal((await b.get('/u/a'))?.value, 'v2');
    });

    test('delete (with and without a precondition), then recreate', async (b) => {
      const created = ok(await b.create('/d/a', 'v1'));
      const updated = ok(await b.update('/d/a', 'v2', created.revision));
      const stale = await b.delete('/d/a', created.revision);
      assert.equal(stale.ok, false);
      assert.deepEqual(!stale.ok && stale.current, updated.kv);
      const deleted = ok(await b.delete('/d/a', updated.revision));
      assert.ok(deleted.revision > updated.revision);
      // The result carries the last value, stamped with the delete's revision.
      assert.deepEqual(deleted.kv, { key: '/d/a', value: 'v2', createRevision: created.revision, modRevision: deleted.revision });
      assert.equal(await b.get('/d/a'), undefined);
      assert.deepEqual(await b.delete('/d/a'), { ok: false });
      assert.deepEqual(await b.update('/d/a', 'v', deleted.revision), { ok: false });
      const recreated = ok(await b.create('/d/a', 'v3'));
      assert.equal(recreated.kv.createRevision, recreated.revision);
      assert.deepEqual(await b.get('/d/a'), recreated.kv);
      ok(await b.delete('/d/a'));
      assert.equal(await b.get('/d/a'), undefined);
    });

    test('list returns the newest live value of each key under the prefix, in key order', async (b) => {
      for (const key of ['/l/a/3', '/l/a/1', '/l/a/2', '/l/a/4', '/l/ab', '/l/a', '/l/b/1']) ok(await b.create(key, `${key}@1`));
      const two = ok(await b.get('/l/a/2').then((kv) => b.update('/l/a/2', 'two', kv!.modRevision)));
      ok(await b.delete('/l/a/4'));
      const list = await b.list('/l/a/');
      assert.deepEqual(keys(list.kvs), ['/l/a/1', '/l/a/2', '/l/a/3']);
      assert.deepEqual(list.kvs[1], two.kv);
      assert.equal(list.more, false);
      assert.equal(list.revision, await b.currentRevision());
      assert.deepEqual(keys((await b.list('/l/')).kvs), ['/l/a', '/l/a/1', '/l/a/2', '/l/a/3', '/l/ab', '/l/b/1']);
      assert.deepEqual((await b.list('/nothing/')).kvs, []);
    });

    test('list pages with limit and startAfter at one revision', async (b) => {
      const all = Array.from({ length: 25 }, (_, i) => `/p/${String(i).padStart(2, '0')}`);
      await Promise.all(all.map((key) => b.create(key, key)));
      ok(await b.create('/q/after-the-prefix', 'x'));
      const first = await b.list('/p/', { limit: 10, countRemaining: true });
      assert.equal(first.kvs.length, 10);
      assert.equal(first.more, true);
      assert.equal(first.remaining, 15);
      // Writes after the first page must not show on later pages read at its revision.
      ok(await b.create('/p/99', 'late'));
      ok(await b.delete('/p/15'));
      const seen = keys(first.kvs);
      let page = first;
      while (page.more) {
        page = await b.list('/p/', { limit: 10, revision: first.revision, startAfter: page.kvs[page.kvs.length - 1]!.key, countRemaining: true });
        assert.equal(page.revision, first.revision);
        seen.push(...keys(page.kvs));
        if (page.more) assert.equal(page.remaining, all.length - seen.length);
      }
      assert.deepEqual(seen, all);
      assert.equal((await b.list('/p/', { limit: 10 })).remaining, undefined, 'remaining is counted only on request');
      const now = await b.list('/p/', { limit: 100, startAfter: '/p/14' });
      assert.deepEqual(keys(now.kvs), [...all.slice(16), '/p/99']);
      assert.equal(now.more, false);
      // A startAfter below the prefix is the same as none.
      assert.deepEqual(keys((await b.list('/p/', { limit: 2, startAfter: '/a' })).kvs), ['/p/00', '/p/01']);
    });

    test('list and get at an older revision see that revision', async (b) => {
      const a1 = ok(await b.create('/h/a', 'a1'));
      const b1 = ok(await b.create('/h/b', 'b1'));
      const a2 = ok(await b.update('/h/a', 'a2', a1.revision));
      ok(await b.delete('/h/b'));
      ok(await b.create('/h/c', 'c1'));
      assert.deepEqual(await b.get('/h/a', { revision: a1.revision }), a1.kv);
      assert.deepEqual(await b.get('/h/b', { revision: a2.revision }), b1.kv);
      assert.equal(await b.get('/h/b'), undefined);
      const old = await b.list('/h/', { revision: a2.revision });
      assert.equal(old.revision, a2.revision);
      assert.deepEqual(old.kvs, [a2.kv, b1.kv]);
      assert.deepEqual(keys((await b.list('/h/', { revision: b1.revision })).kvs), ['/h/a', '/h/b']);
      assert.deepEqual(keys((await b.list('/h/')).kvs), ['/h/a', '/h/c']);
    });

    test('reads at a future revision fail with FutureRevisionError', async (b) => {
      ok(await b.create('/f/a', 'x'));
      const future = (await b.currentRevision()) + 10;
      await assert.rejects(b.list('/f/', { revision: future }), FutureRevisionError);
      await assert.rejects(b.get('/f/a', { revision: future }), FutureRevisionError);
      await assert.rejects(b.compact(future), FutureRevisionError);
    });

    test('count counts live keys under a prefix', async (b) => {
      assert.equal(await b.count('/n/'), 0);
      await Promise.all(['/n/1', '/n/2', '/n/3', '/nn/1'].map((k) => b.create(k, k)));
      ok(await b.delete('/n/2'));
      const kv = (await b.get('/n/3'))!;
      ok(await b.update('/n/3', 'again', kv.modRevision));
      assert.equal(await b.count('/n/'), 2);
      assert.equal(await b.count('/n'), 3);
    });

    test('every write gets a higher revision; currentRevision is the newest', async (b) => {
      let last = await b.currentRevision();
      const check = (r: WriteResult) => {
        const { revision } = ok(r);
        assert.ok(revision > last, `revision ${revision} after ${last}`);
        last = revision;
      };
      check(await b.create('/m/a', '1'));
      check(await b.update('/m/a', '2', last));
      check(await b.create('/m/b', '1'));
      check(await b.delete('/m/a'));
      check(await b.create('/m/a', '3'));
      assert.equal(await b.currentRevision(), last);
      // A failed write takes no revision.
      assert.equal((await b.create('/m/a', 'dup')).ok, false);
      assert.equal(await b.currentRevision(), last);
    });

    test('writes issued in the same tick all commit, with distinct revisions', async (b) => {
      const before = await b.currentRevision();
      const n = 200;
      const results = await Promise.all(Array.from({ length: n }, (_, i) => b.create(`/g/${i}`, `v${i}`)));
      const revisions = results.map((r) => ok(r).revision);
      assert.equal(new Set(revisions).size, n);
      assert.deepEqual([...revisions].sort((x, y) => x - y), Array.from({ length: n }, (_, i) => before + 1 + i));
      assert.equal(await b.currentRevision(), before + n);
      assert.equal(await b.count('/g/'), n);
      assert.equal((await b.get('/g/123'))?.value, 'v123');
    });

    test('racing writers on one key: exactly one wins', async (b) => {
      const creates = await Promise.all([b.create('/r/a', 'one'), b.create('/r/a', 'two')]);
      assert.equal(creates.filter((r) => r.ok).length, 1);
      const base = (await b.get('/r/a'))!;
      const updates = await Promise.all([b.update('/r/a', 'x', base.modRevision), b.update('/r/a', 'y', base.modRevision)]);
      assert.equal(updates.filter((r) => r.ok).length, 1);
      const winner = ok(updates.find((r) => r.ok)!);
      const loser = updates.find((r) => !r.ok)!;
      assert.deepEqual(!loser.ok && loser.current, winner.kv);
      assert.deepEqual(await b.get('/r/a'), winner.kv);
      // Separate ticks too: the second reads after the first committed.
      const late = await b.update('/r/a', 'z', base.modRevision);
      assert.equal(late.ok, false);
      const deletes = await Promise.all([b.delete('/r/a', winner.revision), b.delete('/r/a', winner.revision)]);
      assert.equal(deletes.filter((r) => r.ok).length, 1);
    });

    test('watch from the current revision sees creates, updates and deletes', async (b) => {
      ok(await b.create('/w/before', 'x'));
      const w = watcher(b, '/w/', await b.currentRevision());
      await w.ready;
      const c = ok(await b.create('/w/a', 'a1'));
      ok(await b.create('/other/a', 'not watched'));
      const u = ok(await b.update('/w/a', 'a2', c.revision));
      const d = ok(await b.delete('/w/a'));
      await w.until(3);
      assert.deepEqual(w.events, [
        { type: 'create', kv: c.kv },
        { type: 'update', kv: u.kv, prevKv: c.kv },
        { type: 'delete', kv: { ...u.kv, modRevision: d.revision }, prevKv: u.kv },
      ]);
      w.stop();
    });

    test('watch replays history from an older revision, then continues live, no gaps or duplicates', async (b) => {
      const start = await b.currentRevision();
      for (let i = 0; i < 20; i++) ok(await b.create(`/wr/${i}`, String(i)));
      const from = start + 5;
      const w = watcher(b, '/wr/', from);
      const live = Promise.all(Array.from({ length: 10 }, (_, i) => b.create(`/wr/live-${i}`, 'l')));
      await w.ready;
      await live;
      await w.until(25);
      assertContiguous(w.events, from + 1, start + 30);
      w.stop();
    });

    test(
      'watch replays from the store when memory no longer covers the revision',
      async (b) => {
        const start = await b.currentRevision();
        // Many replay pages under the prefix, interleaved with another prefix.
        for (let round = 0; round < 6; round++) {
          await Promise.all(Array.from({ length: 200 }, (_, i) => b.create(`/${i % 2 ? 'x' : 'y'}/${round}-${i}`, 'v')));
        }
        const w = watcher(b, '/y/', start);
        // Writes racing the replay must arrive exactly once, after it.
        const racing = (async () => {
          for (let i = 0; i < 20; i++) await Promise.all([b.create(`/y/live-${i}`, 'l'), b.create(`/x/live-${i}`, 'l')]);
        })();
        await w.ready;
        await racing;
        await w.until(620);
        assert.equal(w.events.length, 620);
        const revisions = w.events.map((e) => e.kv.modRevision);
        assert.deepEqual(revisions, [...revisions].sort((x, y) => x - y));
        assert.equal(new Set(revisions).size, revisions.length);
        assert.ok(w.events.every((e) => e.kv.key.startsWith('/y/') && e.type === 'create'));
        w.stop();
      },
      { watchRingSize: 4, replayPageSize: 25 },
    );

    test('a watch from a revision not yet written starts there', async (b) => {
      const now = await b.currentRevision();
      const w = watcher(b, '/fw/', now + 2);
      await w.ready;
      for (let i = 1; i <= 4; i++) ok(await b.create(`/fw/${i}`, 'v'));
      await w.until(2);
      assertContiguous(w.events, now + 3, now + 4);
      w.stop();
    });

    test('many watchers each see every event once, in order', async (b) => {
      const start = await b.currentRevision();
      const watchers = Array.from({ length: 60 }, (_, i) => watcher(b, ['/mw/', '/mw/a/', ''][i % 3]!, start));
      await Promise.all(watchers.map((w) => w.ready));
      for (let round = 0; round < 10; round++) {
        const batch = Array.from({ length: 10 }, (_, i) => b.create(`/mw/${i % 2 ? 'a' : 'b'}/${round}-${i}`, 'v'));
        if (round % 2) await Promise.all(batch);
      }
      await b.create('/mw/last', 'v');
      const expected = { '/mw/': 101, '/mw/a/': 50, '': 101 } as Record<string, number>;
      for (const w of watchers) {
        await w.until(expected[w.prefix]!);
        const revisions = w.events.map((e) => e.kv.modRevision);
        assert.deepEqual(revisions, [...new Set(revisions)].sort((x, y) => x - y));
        assert.equal(w.events.length, expected[w.prefix]);
      }
      // The same event objects go to every watcher (consumers memoize on them).
      assert.equal(watchers[0]!.events[0], watchers[2]!.events[0]);
      for (const w of watchers) w.stop();
    });

    test('a watcher whose signal aborts receives nothing more', async (b) => {
      const w = watcher(b, '/ab/', await b.currentRevision());
      await w.ready;
      ok(await b.create('/ab/1', 'v'));
      await w.until(1);
      w.stop();
      ok(await b.create('/ab/2', 'v'));
      const after = watcher(b, '/ab/', await b.currentRevision());
      await after.ready;
      ok(await b.create('/ab/3', 'v'));
      await after.until(1);
      assert.equal(w.events.length, 1);
      assert.equal(w.closed, undefined);
      after.stop();
    });

    test('compaction removes old revisions and keeps current values', async (b) => {
      const a1 = ok(await b.create('/cp/a', 'a1'));
      let a = a1;
      for (let i = 2; i <= 4; i++) a = ok(await b.update('/cp/a', `a${i}`, a.revision));
      ok(await b.create('/cp/gone', 'g'));
      ok(await b.delete('/cp/gone'));
      ok(await b.create('/cp/back', 'b1'));
      ok(await b.delete('/cp/back'));
      const back = ok(await b.create('/cp/back', 'b2'));
      const still = ok(await b.create('/cp/still', 's'));
      const at = await b.currentRevision();
      const before = await b.list('/cp/', { revision: at });
      const tail = ok(await b.update('/cp/a', 'a5', a.revision));
      ok(await b.delete('/cp/still'));
      const current = await b.list('/cp/');

      await b.compact(at);
      assert.equal(await b.compactRevision(), at);
      await assert.rejects(b.get('/cp/a', { revision: a1.revision }), (e) => e instanceof CompactedError && e.compactRevision === at);
      await assert.rejects(b.list('/cp/', { revision: at - 1 }), CompactedError);
      await assert.rejects(b.watch('/cp/', { afterRevision: at - 1, signal: new AbortController().signal, onEvents: () => {} }), CompactedError);
      // The compact revision itself and everything after it read as before.
      assert.deepEqual(await b.list('/cp/', { revision: at }), before);
      assert.deepEqual(await b.list('/cp/'), current);
      assert.deepEqual(await b.get('/cp/a'), tail.kv);
      assert.deepEqual(await b.get('/cp/back'), back.kv);
      assert.equal(await b.get('/cp/gone'), undefined);
      assert.equal(await b.get('/cp/still'), undefined);
      assert.deepEqual(await b.get('/cp/still', { revision: at }), still.kv);
      const w = watcher(b, '/cp/', at);
      await w.ready;
      await w.until(2);
      assert.deepEqual(
        w.events.map((e) => [e.type, e.kv.key, e.kv.value, e.prevKv?.value]),
        [
          ['update', '/cp/a', 'a5', 'a4'],
          ['delete', '/cp/still', 's', 's'],
        ],
      );
      // Writes keep working on compacted keys: CAS on the survivors, create after a compacted delete.
      ok(await b.update('/cp/a', 'a6', tail.revision));
      ok(await b.create('/cp/gone', 'g2'));
      ok(await b.create('/cp/still', 's2'));
      await w.until(5);
      // Compacting again, to the newest revision, still keeps every live key.
      await b.compact(await b.currentRevision());
      assert.deepEqual(keys((await b.list('/cp/')).kvs), ['/cp/a', '/cp/back', '/cp/gone', '/cp/still']);
      assert.equal((await b.get('/cp/a'))?.value, 'a6');
      // Compacting backwards is a no-op.
      await b.compact(at);
      assert.equal(await b.compactRevision(), await b.currentRevision());
      w.stop();
    });

    test('a watch from below the compact revision replays from the store after a compaction elsewhere in the log', async (b) => {
      const start = await b.currentRevision();
      for (let i = 0; i < 30; i++) ok(await b.create(`/cw/${i}`, 'v'));
      await b.compact(start + 10);
      const w = watcher(b, '/cw/', start + 10);
      await w.ready;
      await w.until(20);
      assertContiguous(w.events, start + 11, start + 30);
      w.stop();
    }, { watchRingSize: 2 });
  });
}

function ok(r: WriteResult): { revision: number; kv: KeyValue } {
  assert.ok(r.ok, `write failed: ${JSON.stringify(r)}`);
  return r;
}

function keys(kvs: readonly KeyValue[]): string[] {
  return kvs.map((kv) => kv.key);
}

function assertContiguous(events: readonly WatchEvent[], from: number, to: number): void {
  assert.deepEqual(
    events.map((e) => e.kv.modRevision),
    Array.from({ length: to - from + 1 }, (_, i) => from + i),
  );
}

/** A watch that records what it gets; `until(n)` waits for n events (or fails after a while). */
function watcher(b: Backend, prefix: string, afterRevision: number) {
  const ac = new AbortController();
  const events: WatchEvent[] = [];
  const waiters = new Set<() => void>();
  const state = {
    prefix,
    events,
    closed: undefined as WatchCloseReason | undefined,
    ready: b.watch(prefix, {
      afterRevision,
      signal: ac.signal,
      onEvents: (batch) => {
        events.push(...batch);
        for (const wake of waiters) wake();
      },
      onClose: (reason) => {
        state.closed = reason;
      },
    }),
    stop: () => ac.abort(),
    until: (n: number, timeoutMs = 5000) =>
      new Promise<void>((resolve, reject) => {
        const check = () => {
          if (events.length < n) return;
          waiters.delete(check);
          clearTimeout(timer);
          resolve();
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`watch ${prefix || '(all)'}: ${events.length} of ${n} events after ${timeoutMs} ms`));
        }, timeoutMs);
        waiters.add(check);
        check();
      }),
  };
  return state;
}
