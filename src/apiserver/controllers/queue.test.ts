import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { KeyedQueue } from './queue.ts';

describe('KeyedQueue', () => {
  it('de-duplicates a key queued while pending, and never runs one key twice at once', async () => {
    const running = new Set<string>();
    const runs: string[] = [];
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const q = new KeyedQueue(
      async (key) => {
        assert.ok(!running.has(key), `${key} ran concurrently with itself`);
        running.add(key);
        runs.push(key);
        if (key === 'a' && runs.filter((k) => k === 'a').length === 1) await gate;
        running.delete(key);
      },
      { concurrency: 1 },
    );
    q.add('a'); // starts at once and waits on the gate
    q.add('b'); // pending
    q.add('b'); // already pending: no second run
    q.add('a'); // dirty while running: runs once more afterwards
    q.add('a');
    release();
    await q.idle();
    assert.deepEqual(runs, ['a', 'b', 'a']);
    q.stop();
  });

  it('retries a failing key with backoff until it succeeds', async () => {
    // Retry timers are unref'd (they must not keep a server alive); this one keeps the test alive.
    const keepAlive = setTimeout(() => undefined, 10_000);
    let attempts = 0;
    const errors: unknown[] = [];
    const done = new Promise<void>((resolve) => {
      const q = new KeyedQueue(
        async () => {
          attempts++;
          if (attempts < 3) throw new Error(`attempt ${attempts}`);
          resolve();
          q.stop();
        },
        { baseDelayMs: 1, onError: (_k, e) => errors.push(e) },
      );
      q.add('k');
    });
    await done;
    clearTimeout(keepAlive);
    assert.equal(attempts, 3);
    assert.equal(errors.length, 2);
  });
});
