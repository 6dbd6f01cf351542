/**
 * The SQLite backend: the shared storage contract, plus what only a file-backed log has —
 * reopening, a second writer on the same file, and printed (not asserted) throughput figures.
 */
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { storageContract } from './contract.ts';
import { openSqliteBackend } from './sqlite.ts';
import type { CheckpointReport } from './checkpointer.ts';
import { StorageError, type WatchEvent } from './types.ts';

/**
 * Yields turns of the event loop until `cond` holds (no clock: an fsync completes in some later
 * turn). How many turns that takes depends on the machine; the deadline is for a write that
 * never comes, and no busy machine reaches it.
 */
async function untilTrue(cond: () => boolean, what = 'condition'): Promise<void> {
  const deadline = performance.now() + 30_000;
  while (!cond()) {
    if (performance.now() > deadline) throw new Error(`${what} never held`);
    await new Promise((r) => setImmediate(r));
  }
}

/** As untilTrue, between polls of another writer's commits (every 20 ms here): a timer, not a turn. */
async function eventually(cond: () => boolean, what: string): Promise<void> {
  const deadline = performance.now() + 30_000;
  while (!cond()) {
    if (performance.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

const dir = mkdtempSync(join(tmpdir(), 'shipyard-storage-'));
let n = 0;
const freshPath = () => join(dir, `db-${++n}`, 'state.db');

describe('sqlite backend', () => {
  // Every database of this file, the contract's too, lives under `dir`: removed when this suite ends.
  after(() => rm(dir, { recursive: true, force: true }));

  storageContract('sqlite', (opts) =>
    openSqliteBackend({ path: freshPath(), watchRingSize: opts?.watchRingSize, replayPageSize: opts?.replayPageSize }),
  );

  it('keeps data, revisions and the compact revision across a reopen', async () => {
    const path = freshPath();
    const first = await openSqliteBackend({ path });
    const a = await first.create('/k/a', 'a1');
    assert.ok(a.ok);
    await first.create('/k/b', 'b1');
    await first.update('/k/a', 'a2', a.revision);
    await first.compact(a.revision + 1);
    const revision = await first.currentRevision();
    await first.close();
    await assert.rejects(first.get('/k/a'), /closed/);

    const second = await openSqliteBackend({ path });
    try {
      assert.equal(await second.currentRevision(), revision);
      assert.equal(await second.compactRevision(), a.revision + 1);
      assert.equal((await second.get('/k/a'))?.value, 'a2');
      const next = await second.create('/k/c', 'c1');
      assert.ok(next.ok && next.revision === revision + 1);
    } finally {
      await second.close();
    }
  });

  it('sees a second writer on the same file: reads, compare-and-swap and watches', async () => {
    const path = freshPath();
    const mine = await openSqliteBackend({ path, pollIntervalMs: 20 });
    const other = await openSqliteBackend({ path, pollIntervalMs: 0 });
    try {
      const events: WatchEvent[] = [];
      const ac = new AbortController();
      await mine.watch('/s/', { afterRevision: await mine.currentRevision(), signal: ac.signal, onEvents: (b) => events.push(...b) });
      const theirs = await other.create('/s/a', 'from other');
      assert.ok(theirs.ok);
      assert.equal((await mine.get('/s/a'))?.value, 'from other');
      // Our write lands after theirs, before our poll has run: the hub must fill in theirs first.
      const ours = await mine.update('/s/a', 'from me', theirs.revision);
      assert.ok(ours.ok);
      const stale = await other.update('/s/a', 'stale', theirs.revision);
      assert.equal(stale.ok, false);
      assert.deepEqual(
        events.map((e) => [e.type, e.kv.value, e.kv.modRevision]),
        [
          ['create', 'from other', theirs.revision],
          ['update', 'from me', ours.revision],
        ],
      );
      // A write by the other alone arrives through the poll.
      const late = await other.create('/s/b', 'late');
      assert.ok(late.ok);
      await eventually(() => events.length >= 3, "the other writer's create, through the poll").catch(() => {});
      assert.deepEqual(events.map((e) => e.kv.modRevision), [theirs.revision, ours.revision, late.revision]);
      ac.abort();

      // A watch from a revision only the file knows of yet (the poll has not run) must not get it again.
      const again = await other.create('/s/c', 'c');
      assert.ok(again.ok);
      const fromFile = await mine.currentRevision();
      assert.equal(fromFile, again.revision);
      const later: WatchEvent[] = [];
      const ac2 = new AbortController();
      await mine.watch('/s/', { afterRevision: fromFile, signal: ac2.signal, onEvents: (b) => later.push(...b) });
      const last = await other.create('/s/d', 'd');
      assert.ok(last.ok);
      await eventually(() => later.length >= 1, 'the event after the watch began').catch(() => {});
      assert.deepEqual(later.map((e) => e.kv.key), ['/s/d']);
      ac2.abort();
    } finally {
      await other.close();
      await mine.close();
    }
  });

  it('by default a write is acknowledged, read and watched only after an fsync that began after its commit', async () => {
    let fsyncs = 0;
    let hold: Promise<void> | undefined;
    const transactions: number[] = [];
    const b = await openSqliteBackend({
      path: freshPath(),
      onBatchCommitted: (jobs) => transactions.push(jobs),
      aroundFsync: async (fsync) => {
        fsyncs++;
        await hold;
        await fsync();
      },
    });
    const ac = new AbortController();
    try {
      const first = await b.create('/d/a', 'a');
      assert.ok(first.ok);
      assert.equal(fsyncs, 1, 'the first write waited for an fsync');
      const events: WatchEvent[] = [];
      await b.watch('/d/', { afterRevision: first.revision, signal: ac.signal, onEvents: (batch) => events.push(...batch) });

      let release!: () => void;
      hold = new Promise((r) => (release = r));
      const acked: string[] = [];
      const create = (key: string) => b.create(key, key).then((r) => (acked.push(key), r));
      const held = create('/d/b');
      await untilTrue(() => fsyncs === 2);
      // The next turn's write commits and starts a second fsync (two may run at once); the writes
      // of the two turns after it find both running and gather in one open transaction.
      const behind = [create('/d/c')];
      await untilTrue(() => fsyncs === 3);
      behind.push(create('/d/d'));
      await new Promise((r) => setImmediate(r));
      behind.push(create('/d/e'));
      await new Promise((r) => setImmediate(r));
      assert.deepEqual(transactions, [1, 1, 1], 'the last two writes are not committed yet');
      assert.deepEqual(acked, [], 'nothing acknowledged before its fsync');
      assert.equal(await b.get('/d/b'), undefined, 'nor visible to readers');
      assert.equal(await b.currentRevision(), first.revision);
      assert.equal((await b.list('/d/')).kvs.length, 1);
      assert.deepEqual(events, [], 'nor to watchers');

      release();
      assert.ok((await held).ok);
      const results = await Promise.all(behind);
      assert.ok(results.every((r) => r.ok));
      assert.deepEqual(acked, ['/d/b', '/d/c', '/d/d', '/d/e']);
      assert.equal(fsyncs, 4, 'one more fsync for the two writes that waited');
      assert.deepEqual(transactions, [1, 1, 1, 2], 'and one transaction for them');
      assert.equal((await b.get('/d/e'))?.value, '/d/e');
      assert.deepEqual(events.map((e: WatchEvent) => e.kv.key), ['/d/b', '/d/c', '/d/d', '/d/e']);
    } finally {
      ac.abort();
      await b.close();
    }
  });

  it('process-crash-only acknowledges at COMMIT, with no fsync', async () => {
    let fsyncs = 0;
    const b = await openSqliteBackend({ path: freshPath(), durability: 'process-crash-only', aroundFsync: (fsync) => (fsyncs++, fsync()) });
    try {
      assert.ok((await b.create('/f/a', 'a')).ok);
      assert.equal((await b.get('/f/a'))?.value, 'a');
      assert.equal(fsyncs, 0);
    } finally {
      await b.close();
    }
    await assert.rejects(openSqliteBackend({ path: freshPath(), durability: 'sometimes' as never }), /durability "sometimes" is not one of fsync, process-crash-only/);
  });

  it('a failed fsync fails its writes and every later one', async () => {
    const b = await openSqliteBackend({ path: freshPath(), aroundFsync: () => Promise.reject(new Error('EIO: i/o error, fsync')) });
    try {
      await assert.rejects(b.create('/e/a', 'a'), (e) => e instanceof StorageError && !e.retryable && /EIO/.test(e.message));
      await assert.rejects(b.create('/e/b', 'b'), /EIO/);
    } finally {
      await b.close();
    }
  });

  it('concurrent writes share transactions: one commit (one fsync) serves many writes', async () => {
    const batches: number[] = [];
    const b = await openSqliteBackend({ path: freshPath(), onBatchCommitted: (jobs) => batches.push(jobs) });
    try {
      const n = 64;
      const results = await Promise.all(Array.from({ length: n }, (_, i) => b.create(`/g/${i}`, `v${i}`)));
      assert.ok(results.every((r) => r.ok));
      assert.equal(batches.reduce((a, x) => a + x, 0), n, 'every write acknowledged by a counted commit');
      assert.ok(batches.length < n, `${n} concurrent creates took ${batches.length} transactions`);
      // Writes issued while a batch is open join it; the next turn's writes open the next one.
      batches.length = 0;
      const first = Promise.all([b.create('/g/x1', 'x'), b.create('/g/x2', 'x')]);
      await new Promise((r) => setImmediate(r));
      const second = Promise.all([b.create('/g/y1', 'y'), b.create('/g/y2', 'y'), b.create('/g/y3', 'y')]);
      await Promise.all([first, second]);
      assert.deepEqual(batches, [2, 3]);
    } finally {
      await b.close();
    }
  });

  it('checkpoints the WAL on its own thread, not in the COMMIT, and keeps the WAL bounded', async () => {
    const path = freshPath();
    const reports: CheckpointReport[] = [];
    const b = await openSqliteBackend({ path, checkpoints: { everyWrites: 20, maxFrames: 40, onCheckpoint: (r) => reports.push(r) } });
    const value = 'v'.repeat(2000);
    let rounds = 0;
    try {
      // Rounds of writes, each followed by a pause in which a started checkpoint can report (as
      // between a busy server's turns), until the thread has checkpointed several times and the
      // writer has finished one and the WAL started over: a thread that never reports times the test out.
      const deadline = performance.now() + 30_000;
      // The WAL started over: a checkpoint found fewer frames than one before it that had reached maxFrames.
      const startedOver = () => {
        const full = reports.findIndex((r) => r.log >= 40);
        return full >= 0 && reports.slice(full + 1).some((r) => r.log < reports[full]!.log);
      };
      while (reports.filter((r) => r.where === 'thread').length < 3 || !reports.some((r) => r.where === 'writer') || !startedOver()) {
        if (performance.now() > deadline) throw new Error(`no checkpoints on the thread and the writer: ${JSON.stringify(reports)}`);
        await Promise.all(Array.from({ length: 10 }, (_, i) => b.create(`/c/${rounds}/${i}`, value)));
        rounds++;
        await new Promise((r) => setTimeout(r, 10));
      }
      for (const r of reports) assert.ok(r.checkpointed <= r.log);
      assert.ok(reports.some((r) => r.where === 'thread' && r.log > 0 && r.checkpointed === r.log), JSON.stringify(reports));
      assert.equal((await b.list('/c/', {})).kvs.length, rounds * 10);
    } finally {
      await b.close();
    }
    const again = await openSqliteBackend({ path });
    try {
      assert.equal((await again.list('/c/', {})).kvs.length, rounds * 10);
      assert.equal((await again.get(`/c/${rounds - 1}/9`))?.value, value);
    } finally {
      await again.close();
    }
  });

  it('stops the checkpoint thread when no checkpoint is asked for, and starts it again for the next', async () => {
    const path = freshPath();
    const reports: CheckpointReport[] = [];
    const threads: string[] = [];
    const b = await openSqliteBackend({ path, checkpoints: { everyWrites: 5, idleStopMs: 20, onCheckpoint: (r) => reports.push(r), onThread: (e) => threads.push(e) } });
    let i = 0;
    const writeUntil = async (cond: () => boolean, what: string): Promise<void> => {
      const deadline = performance.now() + 30_000;
      while (!cond()) {
        if (performance.now() > deadline) throw new Error(`timed out waiting for ${what}: ${JSON.stringify({ reports, threads })}`);
        await Promise.all(Array.from({ length: 5 }, () => b.create(`/idle/${i++}`, 'v')));
        await new Promise((r) => setTimeout(r, 5));
      }
    };
    try {
      await writeUntil(() => reports.some((r) => r.where === 'thread'), 'a checkpoint on the thread');
      await eventually(() => threads.at(-1) === 'exited', 'the idle thread to exit');
      const before = reports.length;
      await writeUntil(() => reports.slice(before).some((r) => r.where === 'thread'), 'a checkpoint on a thread started again');
      assert.ok(threads.filter((e) => e === 'started').length >= 2, JSON.stringify(threads));
    } finally {
      await b.close();
    }
    // Every thread started has exited by the time close resolves.
    assert.equal(threads.filter((e) => e === 'started').length, threads.filter((e) => e === 'exited').length, JSON.stringify(threads));
    const again = await openSqliteBackend({ path });
    try {
      assert.equal((await again.list('/idle/', {})).kvs.length, i);
    } finally {
      await again.close();
    }
  });

  it('replays a quiet prefix from a wide window of history, in order and complete', async () => {
    // 12,000 sequential writes: durability is not what this test is about, so no fsync per write.
    const backend = await openSqliteBackend({ path: freshPath(), watchRingSize: 10, replayPageSize: 2, durability: 'process-crash-only' });
    try {
      const quiet: number[] = [];
      let busy = await backend.create('/busy/k', '0');
      for (let i = 0; i < 12_000; i++) {
        if (i % 4000 === 0) {
          const r = await backend.create(`/quiet/${i}`, 'q');
          assert.ok(r.ok);
          quiet.push(r.revision);
        }
        assert.ok(busy.ok);
        busy = await backend.update('/busy/k', String(i), busy.revision);
      }
      const got: number[] = [];
      await backend.watch('/quiet/', { afterRevision: 0, signal: AbortSignal.timeout(10_000), onEvents: (batch) => got.push(...batch.map((e) => e.kv.modRevision)) });
      assert.deepEqual(got, quiet);
    } finally {
      await backend.close();
    }
  });

  it('closing ends watches with reason closed and fails later calls', async () => {
    const b = await openSqliteBackend({ path: freshPath() });
    let reason: unknown;
    await b.watch('/', { afterRevision: 0, signal: new AbortController().signal, onEvents: () => {}, onClose: (r) => (reason = r) });
    const pending = b.create('/x', 'written before close');
    await b.close();
    assert.ok((await pending).ok, 'a write accepted before close is committed');
    assert.deepEqual(reason, { kind: 'closed' });
    await assert.rejects(b.create('/y', 'v'), /closed/);
  });

  for (const durability of ['fsync', 'process-crash-only'] as const) {
    it(`throughput and list latency, durability ${durability} (printed, not asserted)`, async (t) => {
      const b = await openSqliteBackend({ path: freshPath(), durability });
      try {
        const value = JSON.stringify({ kind: 'Pod', metadata: { name: 'x' }, spec: { pad: 'x'.repeat(900) } });
        const sequential = 2000;
        let start = performance.now();
        for (let i = 0; i < sequential; i++) await b.create(`/bench/seq/${i}`, value);
        const seqRate = sequential / ((performance.now() - start) / 1000);

        const total = 8000;
        let next = 0;
        start = performance.now();
        await Promise.all(
          Array.from({ length: 16 }, async () => {
            for (let i = next++; i < total; i = next++) await b.create(`/bench/conc/${i}`, value);
          }),
        );
        const concRate = total / ((performance.now() - start) / 1000);

        const keys = 10_000;
        await Promise.all(Array.from({ length: keys }, (_, i) => b.create(`/bench/list/ns${i % 10}/p${String(i).padStart(5, '0')}`, value)));
        await b.list('/bench/list/', { limit: 500 });
        const rounds = 20;
        start = performance.now();
        for (let i = 0; i < rounds; i++) await b.list('/bench/list/', { limit: 500 });
        const listMs = (performance.now() - start) / rounds;
        start = performance.now();
        for (let i = 0; i < rounds; i++) await b.list('/bench/list/', { limit: 500, startAfter: '/bench/list/ns5/p05000' });
        const midMs = (performance.now() - start) / rounds;

        const lines = [
          `sqlite creates/s (${durability}), sequential awaits: ${Math.round(seqRate)}`,
          `sqlite creates/s (${durability}), 16 concurrent clients: ${Math.round(concRate)}`,
          `sqlite list 500 of ${keys} keys (with remaining count): first page ${listMs.toFixed(2)} ms, middle page ${midMs.toFixed(2)} ms`,
        ];
        for (const line of lines) t.diagnostic(line);
        if (process.env.SHIPYARD_BENCH_LOG) console.log(lines.join('\n'));
      } finally {
        await b.close();
      }
    });
  }
});
