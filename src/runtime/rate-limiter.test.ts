/**
 * Rate limiter values as client-go documents them: per-key doubling from 5 ms capped at
 * 1000 s, a 10 qps / burst 100 bucket, and the longer of the two winning.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { FakeClock } from './clock.ts';
import { defaultControllerRateLimiter, ExponentialFailureRateLimiter, maxOf, TokenBucketRateLimiter, type RateLimiter } from './rate-limiter.ts';

const fixed = (ms: number): RateLimiter & { forgotten: string[] } => {
  const forgotten: string[] = [];
  return { forgotten, when: () => ms, forget: (k) => void forgotten.push(k), numRequeues: () => ms };
};

describe('runtime/rate-limiter', () => {
  it('exponential: 5, 10, 20, ... per key, capped at 1000 s', () => {
    const r = new ExponentialFailureRateLimiter();
    assert.deepEqual([1, 2, 3, 4, 5].map(() => r.when('a')), [5, 10, 20, 40, 80]);
    assert.equal(r.numRequeues('a'), 5);
    assert.equal(r.when('b'), 5, 'keys back off independently');
    for (let i = 0; i < 20; i++) r.when('a');
    assert.equal(r.when('a'), 1_000_000);
    for (let i = 0; i < 2000; i++) r.when('a');
    assert.equal(r.when('a'), 1_000_000, 'still capped long after 2 ** n overflows');
  });

  it('exponential: forget starts the key over', () => {
    const r = new ExponentialFailureRateLimiter({ baseMs: 1, maxMs: 100 });
    r.when('a');
    r.when('a');
    r.forget('a');
    assert.equal(r.numRequeues('a'), 0);
    assert.equal(r.when('a'), 1);
  });

  it('token bucket: a burst of 100 is free, then one every 100 ms, refilling with time', () => {
    const clock = new FakeClock();
    const r = new TokenBucketRateLimiter({ clock });
    for (let i = 0; i < 100; i++) assert.equal(r.when(`k${i}`), 0);
    assert.deepEqual([1, 2, 3].map(() => r.when('x')), [100, 200, 300]);
    clock.advance(300);
    assert.equal(r.when('x'), 100, 'the 300 ms went to the three reservations already made');
    clock.advance(60_000);
    for (let i = 0; i < 100; i++) assert.equal(r.when('y'), 0, 'the bucket refills only to burst');
    assert.equal(r.when('y'), 100);
    assert.equal(r.numRequeues('y'), 0);
  });

  it('maxOf: the longer wait wins and forget reaches every part', () => {
    const a = fixed(7);
    const b = fixed(3);
    const r = maxOf(a, b);
    assert.equal(r.when('k'), 7);
    assert.equal(r.numRequeues('k'), 7);
    r.forget('k');
    assert.deepEqual([a.forgotten, b.forgotten], [['k'], ['k']]);
  });

  it('default controller limiter: backoff per key until the shared bucket runs dry', () => {
    const clock = new FakeClock();
    const r = defaultControllerRateLimiter({ clock });
    assert.deepEqual([1, 2, 3].map(() => r.when('a')), [5, 10, 20]);
    for (let i = 0; i < 97; i++) r.when(`other${i}`);
    assert.equal(r.when('fresh'), 100, 'the bucket now waits longer than the 5 ms first backoff');
    r.forget('a');
    assert.equal(r.numRequeues('a'), 0);
  });
});
