/**
 * Controller.resyncEvery on a fake clock: the keys come back every period whatever the events,
 * a key waiting out a long failure backoff is looked at again within a period, and nothing is
 * left scheduled once the controller stops.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { FakeClock } from './clock.ts';
import { ApiError } from '../api/status.ts';
import { Controller, logSyncFailure } from './controller.ts';
import { ExponentialFailureRateLimiter } from './rate-limiter.ts';
import type { Reconcile } from './reconcile-loop.ts';

const flush = () => new Promise<void>((resolve) => setImmediate(resolve));

function start(reconcile: Reconcile, o: { failureDelayMs?: number } = {}) {
  const clock = new FakeClock();
  // A failure waits this long: the doubling backoff after many failures in a row, at once.
  const rateLimiter = new ExponentialFailureRateLimiter({ baseMs: o.failureDelayMs ?? 5, maxMs: o.failureDelayMs ?? 5 });
  const controller = new Controller({ name: 'test', reconcile, clock, rateLimiter }).resyncEvery(60_000, () => ['cluster']);
  const ac = new AbortController();
  const done = controller.run(ac.signal);
  return { clock, controller, ac, done };
}

describe('runtime/controller resyncEvery', () => {
  it('enqueues its keys once a period with no event at all', async (t) => {
    const calls: number[] = [];
    let clock!: FakeClock;
    const c = start(async () => {
      calls.push(clock.now());
    });
    clock = c.clock;
    t.after(async () => {
      c.ac.abort();
      await c.done;
    });
    c.clock.advance(59_999);
    await flush();
    assert.deepEqual(calls, [], 'nothing before the first period');
    c.clock.advance(1);
    await flush();
    c.clock.advance(60_000);
    await flush();
    assert.deepEqual(calls, [60_000, 120_000]);
  });

  it('brings back a key waiting out a failure backoff longer than the period', async (t) => {
    const calls: number[] = [];
    let clock!: FakeClock;
    const c = start(
      async () => {
        calls.push(clock.now());
        // The first try fails: a 10-minute backoff follows (its 12th failure in a row, say).
        if (calls.length === 1) throw new Error('the API server is restarting');
      },
      { failureDelayMs: 600_000 },
    );
    clock = c.clock;
    t.after(async () => {
      c.ac.abort();
      await c.done;
    });
    c.controller.enqueue('cluster');
    await flush();
    assert.deepEqual(calls, [0]);
    c.clock.advance(60_000);
    await flush();
    assert.deepEqual(calls, [0, 60_000], 'the resync, not the backoff, runs it again');
    assert.equal(c.controller.queue.numRequeues('cluster'), 0, 'its success reset the backoff');
  });

  it('leaves no timer once the controller stops', async () => {
    const c = start(async () => {});
    c.clock.advance(60_000);
    await flush();
    c.ac.abort();
    await c.done;
    assert.equal(c.clock.pending(), 0);
  });

  it('refuses a period that is not a positive number', () => {
    const controller = new Controller({ name: 'test', reconcile: async () => {} });
    assert.throws(() => controller.resyncEvery(0, () => []), /controller test: resync period must be a positive number of milliseconds, got 0/);
  });
});

describe('runtime/controller logSyncFailure', () => {
  const capture = () => {
    const lines: { level: string; fields: object; message: string }[] = [];
    const at = (level: string) => (fields: object, message: string) => void lines.push({ level, fields, message });
    return { lines, logger: { debug: at('debug'), warn: at('warn') } };
  };
  const conflict = new ApiError(409, 'Conflict', 'the object has been modified');

  it('says why a sync failed at warn, with the key; a conflict only at debug', () => {
    const { lines, logger } = capture();
    const onError = logSyncFailure(logger, 'installer sync failed');
    onError({ key: 'cluster', result: 'error', durationMs: 1, error: new Error('connect ECONNREFUSED 127.0.0.1:6443') });
    onError({ key: 'cluster', result: 'error', durationMs: 1, error: conflict });
    assert.deepEqual(lines.map((l) => l.level), ['warn', 'debug']);
    assert.deepEqual(lines[0], { level: 'warn', fields: { key: 'cluster', err: 'connect ECONNREFUSED 127.0.0.1:6443' }, message: 'installer sync failed' });
  });

  it("takes the controller's own idea of a routine failure", () => {
    const { lines, logger } = capture();
    const onError = logSyncFailure(logger, 'sync failed', (err) => err instanceof RangeError);
    onError({ key: 'a', result: 'error', durationMs: 1, error: new RangeError('stale') });
    onError({ key: 'a', result: 'error', durationMs: 1, error: conflict });
    assert.deepEqual(lines.map((l) => l.level), ['debug', 'warn']);
  });
});
