/**
 * The work queue's guarantees, driven by a fake clock: de-duplication while dirty, one worker
 * per key, re-queue after done, delayed and rate-limited adds, and shutdown.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { FakeClock } from './clock.ts';
import { ExponentialFailureRateLimiter } from './rate-limiter.ts';
import { WorkQueue } from './workqueue.ts';

/** Lets promise continuations run; not a sleep, no time passes on any clock. */
const flush = () => new Promise<void>((resolve) => setImmediate(resolve));

const setup = () => {
  const clock = new FakeClock();
  return { clock, q: new WorkQueue({ clock, rateLimiter: new ExponentialFailureRateLimiter() }) };
};

/** Starts a get() and reports whether it has resolved yet. */
const pendingGet = (q: WorkQueue) => {
  const state: { settled: boolean; key?: string } = { settled: false };
  void q.get().then((key) => Object.assign(state, { settled: true, key }));
  return state;
};

describe('runtime/workqueue', () => {
  it('de-duplicates a key while it is queued, and hands keys out in FIFO order', async () => {
    const { q } = setup();
    q.add('a');
    q.add('b');
    q.add('a');
    assert.equal(q.len(), 2);
    assert.equal(await q.get(), 'a');
    assert.equal(await q.get(), 'b');
    assert.equal(q.len(), 0);
  });

  it('never hands a key out twice at once; one added while processing is re-queued at done', async () => {
    const { q } = setup();
    q.add('a');
    assert.equal(await q.get(), 'a');
    q.add('a');
    q.add('a');
    assert.equal(q.len(), 0, 'held back while a worker has it');
    const second = pendingGet(q);
    await flush();
    assert.equal(second.settled, false);
    q.done('a');
    await flush();
    assert.deepEqual(second, { settled: true, key: 'a' });
    q.done('a');
    assert.equal(q.len(), 0, 'added once during processing → processed once more, not twice');
  });

  it('done without a new add does not re-queue', async () => {
    const { q } = setup();
    q.add('a');
    await q.get();
    q.done('a');
    assert.equal(q.len(), 0);
  });

  it('wakes a waiting get() when a key arrives', async () => {
    const { q } = setup();
    const g = pendingGet(q);
    await flush();
    assert.equal(g.settled, false);
    q.add('x');
    await flush();
    assert.deepEqual(g, { settled: true, key: 'x' });
  });

  it('addAfter: keys become ready in due order, and the earlier of two delays wins', async () => {
    const { clock, q } = setup();
    q.addAfter('late', 30);
    q.addAfter('early', 10);
    q.addAfter('mid', 50);
    q.addAfter('mid', 20);
    q.addAfter('early', 40);
    clock.advance(9);
    assert.equal(q.len(), 0);
    clock.advance(21);
    assert.equal(q.len(), 3);
    assert.deepEqual([await q.get(), await q.get(), await q.get()], ['early', 'mid', 'late']);
    clock.advance(100);
    assert.equal(q.len(), 0, 'the superseded timers were cancelled');
    q.addAfter('now', 0);
    assert.equal(q.len(), 1);
  });

  it('addRateLimited waits 5, 10, 20 ms per failure; forget resets it', async () => {
    const { clock, q } = setup();
    const readyAfter = async (): Promise<number> => {
      q.addRateLimited('k');
      let waited = 0;
      while (q.len() === 0 && waited < 1000) {
        clock.advance(1);
        waited++;
      }
      q.done((await q.get())!);
      return waited;
    };
    assert.deepEqual([await readyAfter(), await readyAfter(), await readyAfter()], [5, 10, 20]);
    assert.equal(q.numRequeues('k'), 3);
    q.forget('k');
    assert.equal(q.numRequeues('k'), 0);
  });

  it('shutDown: queued keys are still handed out, then get() yields undefined; adds are ignored', async () => {
    const { clock, q } = setup();
    const waiting = pendingGet(q);
    await flush();
    q.addAfter('delayed', 10);
    q.shutDown();
    await flush();
    assert.deepEqual(waiting, { settled: true, key: undefined }, 'a blocked get() is released');
    const fresh = new WorkQueue({ clock });
    fresh.add('a');
    fresh.shutDown();
    fresh.add('b');
    assert.equal(fresh.isShuttingDown(), true);
    assert.equal(await fresh.get(), 'a');
    assert.equal(await fresh.get(), undefined);
    clock.advance(100);
    assert.equal(q.len(), 0, 'delayed adds are dropped');
    assert.equal(clock.pending(), 0);
  });

  it('shutDownWithDrain resolves only when everything accepted has been processed', async () => {
    const { q } = setup();
    q.add('a');
    q.add('b');
    assert.equal(await q.get(), 'a');
    q.add('a');
    let drained = false;
    void q.shutDownWithDrain().then(() => (drained = true));
    const keys: string[] = [];
    for (let k = await q.get(); k !== undefined; k = await q.get()) {
      keys.push(k);
      await flush();
      assert.equal(drained, false);
      q.done(k);
    }
    q.done('a');
    await flush();
    assert.deepEqual(keys, ['b']);
    assert.equal(drained, false, "'a' was dirty when its worker finished, so it goes round once more");
    assert.equal(await q.get(), 'a');
    q.done('a');
    await flush();
    assert.equal(drained, true);
  });
});
