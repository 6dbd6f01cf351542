/**
 * runWorkers against a real WorkQueue and a fake clock: each outcome's queue action, parallel
 * workers on distinct keys, one worker per key, and a shutdown that waits for in-flight work.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { FakeClock } from './clock.ts';
import { ExponentialFailureRateLimiter } from './rate-limiter.ts';
import { runWorkers, terminal, TerminalError, type Reconcile, type ReconcileReport } from './reconcile-loop.ts';
import { WorkQueue } from './workqueue.ts';

const flush = () => new Promise<void>((resolve) => setImmediate(resolve));

function deferred() {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

function start(reconcile: Reconcile, workers = 1) {
  const clock = new FakeClock();
  const queue = new WorkQueue({ clock, rateLimiter: new ExponentialFailureRateLimiter() });
  const ac = new AbortController();
  const reports: ReconcileReport[] = [];
  const done = runWorkers({ queue, workers, reconcile, signal: ac.signal, clock, onResult: (r) => reports.push(r) });
  return { clock, queue, ac, reports, done };
}

const results = (reports: ReconcileReport[]) => reports.map((r) => `${r.key}:${r.result}`);

describe('runtime/reconcile-loop', () => {
  it('success forgets the key and reports the duration from the clock', async () => {
    const calls: string[] = [];
    let clock!: FakeClock;
    const t = start(async (key) => {
      calls.push(key);
      clock.advance(7);
    });
    clock = t.clock;
    t.queue.addRateLimited('a');
    t.queue.addRateLimited('a');
    assert.equal(t.queue.numRequeues('a'), 2);
    t.clock.advance(10);
    await flush();
    assert.deepEqual(calls, ['a']);
    assert.deepEqual(t.reports, [{ key: 'a', result: 'success', durationMs: 7 }]);
    assert.equal(t.queue.numRequeues('a'), 0);
    t.ac.abort();
    await t.done;
  });

  it('requeueAfterMs re-adds the key after that long, with no backoff recorded', async () => {
    let n = 0;
    const t = start(async () => (++n === 1 ? { requeueAfterMs: 1000 } : undefined));
    t.queue.add('a');
    await flush();
    assert.deepEqual(results(t.reports), ['a:requeue']);
    assert.equal(t.queue.numRequeues('a'), 0);
    t.clock.advance(999);
    await flush();
    assert.equal(n, 1);
    t.clock.advance(1);
    await flush();
    assert.deepEqual(results(t.reports), ['a:requeue', 'a:success']);
    t.ac.abort();
    await t.done;
  });

  it('a thrown error is retried with backoff until it succeeds, then the backoff is forgotten', async () => {
    const boom = new Error('boom');
    let n = 0;
    const t = start(async () => {
      if (++n <= 2) throw boom;
    });
    t.queue.add('a');
    await flush();
    assert.deepEqual(t.reports.map((r) => [r.result, r.error]), [['error', boom]]);
    t.clock.advance(4);
    await flush();
    assert.equal(n, 1, 'first retry waits 5 ms');
    t.clock.advance(1);
    await flush();
    assert.equal(n, 2);
    t.clock.advance(9);
    await flush();
    assert.equal(n, 2, 'second retry waits 10 ms');
    t.clock.advance(1);
    await flush();
    assert.deepEqual(results(t.reports), ['a:error', 'a:error', 'a:success']);
    assert.equal(t.queue.numRequeues('a'), 0);
    t.ac.abort();
    await t.done;
  });

  it('a terminal error is reported and not retried', async () => {
    let n = 0;
    const t = start(async () => {
      n++;
      throw terminal(new Error('spec.replicas must be >= 0'));
    });
    t.queue.add('a');
    await flush();
    t.clock.advance(2_000_000);
    await flush();
    assert.equal(n, 1);
    assert.deepEqual(results(t.reports), ['a:terminal']);
    const err = t.reports[0]!.error;
    assert.ok(err instanceof TerminalError);
    assert.equal(err.message, 'spec.replicas must be >= 0');
    assert.equal(terminal(err), err, 'terminal() does not wrap twice');
    assert.equal(t.queue.numRequeues('a'), 0);
    t.ac.abort();
    await t.done;
  });

  it('N workers reconcile distinct keys in parallel, never one key twice at once', async () => {
    const gates = new Map<string, ReturnType<typeof deferred>>();
    const active = new Set<string>();
    let maxActive = 0;
    const t = start(async (key) => {
      assert.equal(active.has(key), false, `${key} reconciled concurrently`);
      active.add(key);
      maxActive = Math.max(maxActive, active.size);
      const gate = deferred();
      gates.set(key, gate);
      await gate.promise;
      active.delete(key);
    }, 3);
    for (const k of ['a', 'b', 'c', 'd']) t.queue.add(k);
    await flush();
    assert.deepEqual([...active].sort(), ['a', 'b', 'c']);
    assert.equal(t.queue.len(), 1, "'d' waits for a free worker");
    t.queue.add('a');
    gates.get('a')!.resolve();
    await flush();
    assert.deepEqual([...active].sort(), ['b', 'c', 'd'], "a freed worker takes 'd' first; 'a' queues behind it");
    gates.get('b')!.resolve();
    await flush();
    assert.deepEqual([...active].sort(), ['a', 'c', 'd']);
    for (const k of ['a', 'c', 'd']) gates.get(k)!.resolve();
    await flush();
    assert.equal(maxActive, 3);
    assert.deepEqual(results(t.reports).sort(), ['a:success', 'a:success', 'b:success', 'c:success', 'd:success']);
    t.ac.abort();
    await t.done;
  });

  it('abort shuts the queue down and resolves only after in-flight reconciles finish', async () => {
    const gate = deferred();
    let seenSignal: AbortSignal | undefined;
    const started: string[] = [];
    const t = start(async (key, signal) => {
      started.push(key);
      seenSignal = signal;
      await gate.promise;
    }, 1);
    t.queue.add('a');
    t.queue.add('b');
    await flush();
    let stopped = false;
    void t.done.then(() => (stopped = true));
    t.ac.abort();
    await flush();
    assert.equal(t.queue.isShuttingDown(), true);
    assert.equal(seenSignal?.aborted, true, 'the reconcile in flight can see the abort');
    assert.equal(stopped, false);
    gate.resolve();
    await t.done;
    assert.deepEqual(started, ['a'], "no new reconcile starts after abort, so 'b' is not run");
    assert.deepEqual(results(t.reports), ['a:success']);
  });

  it('resolves at once when the signal is already aborted, and rejects a bad worker count', async () => {
    const queue = new WorkQueue({ clock: new FakeClock() });
    await runWorkers({ queue, workers: 2, reconcile: async () => {}, signal: AbortSignal.abort() });
    assert.equal(queue.isShuttingDown(), true);
    await assert.rejects(runWorkers({ queue, workers: 0, reconcile: async () => {}, signal: AbortSignal.abort() }), RangeError);
  });

  it('a throwing onResult does not stop the workers', async () => {
    const queue = new WorkQueue({ clock: new FakeClock() });
    const ac = new AbortController();
    const seen: string[] = [];
    const done = runWorkers({
      queue, workers: 1, signal: ac.signal,
      reconcile: async (key) => void seen.push(key),
      onResult: () => {
        throw new Error('metrics broke');
      },
    });
    queue.add('a');
    queue.add('b');
    await flush();
    assert.deepEqual(seen, ['a', 'b']);
    ac.abort();
    await done;
  });
});
