/**
 * Watch-hub behaviour that the storage contract cannot reach through a real store: a hole in the
 * revision sequence, a compaction by another process past what the hub has seen, and a consumer
 * that throws. The source is a plain array standing in for the log.
 */
import { it } from 'node:test';
import assert from 'node:assert/strict';
import { WatchHub, type WatchHubSource } from './watch-hub.ts';
import type { WatchCloseReason, WatchEvent } from './types.ts';

function event(revision: number, key = `/k/${revision}`): WatchEvent {
  return { type: 'create', kv: { key, value: 'v', createRevision: revision, modRevision: revision } };
}

function fakeLog() {
  const log = { events: [] as WatchEvent[], compact: 0 };
  const source: WatchHubSource = {
    eventsAfter: (after, limit) => log.events.filter((e) => e.kv.modRevision > after).slice(0, limit),
    eventsUnder: (prefix, after, upTo, limit) =>
      log.events.filter((e) => e.kv.key.startsWith(prefix) && e.kv.modRevision > after && e.kv.modRevision <= upTo).slice(0, limit),
    compactRevision: () => log.compact,
  };
  return { log, source };
}

function listen(hub: WatchHub, afterRevision: number) {
  const got: number[] = [];
  const closed: WatchCloseReason[] = [];
  const ready = hub.watch('/', {
    afterRevision,
    signal: new AbortController().signal,
    onEvents: (batch) => got.push(...batch.map((e) => e.kv.modRevision)),
    onClose: (r) => closed.push(r),
  });
  return { got, closed, ready };
}

it('watch hub: a hole in the revisions is waited for, then passed', async () => {
  const { log, source } = fakeLog();
  let clock = 0;
  const hub = new WatchHub({ source, startRevision: 0, pollIntervalMs: 0, gapTimeoutMs: 1000, now: () => clock });
  const w = listen(hub, 0);
  await w.ready;
  log.events.push(event(1), event(2), event(4));
  hub.poll();
  assert.deepEqual(w.got, [1, 2]);
  clock += 500;
  hub.poll();
  assert.deepEqual(w.got, [1, 2]);
  clock += 500;
  hub.poll();
  assert.deepEqual(w.got, [1, 2, 4]);
  hub.close();
  assert.deepEqual(w.closed, [{ kind: 'closed' }]);
});

it('watch hub: a compaction past what the hub saw ends live watches; new ones start after it', async () => {
  const { log, source } = fakeLog();
  const hub = new WatchHub({ source, startRevision: 0, pollIntervalMs: 0 });
  const old = listen(hub, 0);
  await old.ready;
  log.events.push(event(6), event(7));
  log.compact = 5;
  hub.poll();
  assert.deepEqual(old.got, []);
  assert.deepEqual(old.closed, [{ kind: 'compacted', compactRevision: 5, requested: 0 }]);
  const fresh = listen(hub, 5);
  await fresh.ready;
  assert.deepEqual(fresh.got, [6, 7]);
  hub.close();
});

it('watch hub: a consumer that throws is dropped without disturbing the others', async () => {
  const { source } = fakeLog();
  const hub = new WatchHub({ source, startRevision: 0, pollIntervalMs: 0 });
  const closed: WatchCloseReason[] = [];
  await hub.watch('/', {
    afterRevision: 0,
    signal: new AbortController().signal,
    onEvents: () => {
      throw new Error('broken consumer');
    },
    onClose: (r) => closed.push(r),
  });
  const good = listen(hub, 0);
  await good.ready;
  hub.publish([event(1)]);
  hub.publish([event(2)]);
  assert.deepEqual(good.got, [1, 2]);
  assert.deepEqual(closed, [{ kind: 'closed' }]);
  assert.equal(hub.size, 1);
  hub.close();
});

it('watch hub: a live watch is told how far it has got, also when nothing under its prefix changed', async () => {
  const { log, source } = fakeLog();
  const hub = new WatchHub({ source, startRevision: 0, pollIntervalMs: 0 });
  const progress: number[] = [];
  const got: number[] = [];
  await hub.watch('/quiet/', {
    afterRevision: 0,
    signal: new AbortController().signal,
    onEvents: (batch) => got.push(...batch.map((e) => e.kv.modRevision)),
    onProgress: (revision) => progress.push(revision),
  });
  log.events.push(event(1, '/busy/a'), event(2, '/busy/b'));
  hub.publish(log.events.slice(0, 2));
  log.events.push(event(3, '/quiet/x'));
  hub.publish(log.events.slice(2));
  assert.deepEqual(got, [3]);
  assert.deepEqual(progress, [2, 3]);
  hub.close();
});

it('watch hub: a compaction that lands between reading the rows and reading the compact revision is a 410, not a hole passed over', async () => {
  const { log, source } = fakeLog();
  let clock = 0;
  const hub = new WatchHub({ source, startRevision: 0, pollIntervalMs: 0, gapTimeoutMs: 1000, now: () => clock });
  const w = listen(hub, 0);
  await w.ready;
  // Another process wrote 1..5, then compacted to 4, removing the superseded 2 and 3, just as this hub read the log.
  log.events.push(event(1), event(4), event(5));
  const read = source.eventsAfter;
  source.eventsAfter = (after, limit) => {
    const rows = read(after, limit);
    log.compact = 4;
    return rows;
  };
  hub.poll();
  assert.deepEqual(w.closed, [{ kind: 'compacted', compactRevision: 4, requested: 0 }]);
  assert.deepEqual(w.got, [], 'nothing delivered to the watch that fell behind');
  clock += 5000;
  const fresh = listen(hub, 4);
  await fresh.ready;
  assert.deepEqual(fresh.got, [5]);
  hub.close();
});
