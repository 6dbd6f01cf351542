/**
 * The fake clock's contract: timers run only when time is advanced, earliest first, and
 * timers scheduled by timers inside the window run in the same advance.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { FAKE_WALL_START, FakeClock, realClock, sleep } from './clock.ts';

describe('runtime/clock', () => {
  it('runs due timers in due order, ties in scheduling order, with now() at each due time', () => {
    const c = new FakeClock(1000);
    const ran: string[] = [];
    c.setTimeout(() => ran.push(`b@${c.now()}`), 20);
    c.setTimeout(() => ran.push(`a@${c.now()}`), 10);
    c.setTimeout(() => ran.push(`c@${c.now()}`), 20);
    c.setTimeout(() => ran.push('late'), 31);
    c.advance(30);
    assert.deepEqual(ran, ['a@1010', 'b@1020', 'c@1020']);
    assert.equal(c.now(), 1030);
    assert.equal(c.pending(), 1);
  });

  it('runs a timer scheduled by another timer when it falls inside the same advance', () => {
    const c = new FakeClock();
    const ran: number[] = [];
    c.setTimeout(() => {
      ran.push(c.now());
      c.setTimeout(() => ran.push(c.now()), 5);
    }, 5);
    c.advance(10);
    assert.deepEqual(ran, [5, 10]);
  });

  it('does not run cancelled timers, and cancelling twice is harmless', () => {
    const c = new FakeClock();
    let ran = false;
    const cancel = c.setTimeout(() => (ran = true), 1);
    cancel();
    cancel();
    c.advance(5);
    assert.equal(ran, false);
    assert.equal(c.pending(), 0);
  });

  it('keeps wall time apart from monotonic time: it advances with advance(), and setWall steps only it', () => {
    const c = new FakeClock(1000);
    assert.equal(c.wallNow(), FAKE_WALL_START);
    c.advance(1500);
    assert.equal(c.wallNow(), FAKE_WALL_START + 1500);
    let firedAt: number | undefined;
    c.setTimeout(() => (firedAt = c.wallNow()), 100);
    c.setWall(Date.parse('2030-06-01T00:00:00Z'));
    assert.equal(c.now(), 2500, 'a wall-clock step does not move monotonic time');
    c.advance(100);
    assert.equal(firedAt, Date.parse('2030-06-01T00:00:00.100Z'));
    assert.equal(new FakeClock(0, { wall: new Date('2026-11-25T12:00:00Z') }).wallNow(), Date.parse('2026-11-25T12:00:00Z'));
  });

  it('sleep resolves when its time comes on the clock, or at once when its signal aborts, leaving no timer behind', async () => {
    const c = new FakeClock();
    const abort = new AbortController();
    let woke = false;
    void sleep(1000, abort.signal, c).then(() => (woke = true));
    c.advance(999);
    await new Promise(setImmediate);
    assert.equal(woke, false);
    c.advance(1);
    await new Promise(setImmediate);
    assert.equal(woke, true);

    const early = sleep(60_000, abort.signal, c);
    assert.equal(c.pending(), 1);
    abort.abort();
    await early;
    assert.equal(c.pending(), 0, 'the timer is cancelled on abort');
    await sleep(60_000, abort.signal, c);
    assert.equal(c.pending(), 0, 'an aborted signal does not even start one');
  });

  it('the real clock fires and cancels', async () => {
    const t0 = realClock.now();
    await new Promise<void>((resolve) => realClock.setTimeout(resolve, 1));
    assert.ok(realClock.now() >= t0);
    let ran = false;
    realClock.setTimeout(() => (ran = true), 1)();
    await new Promise<void>((resolve) => realClock.setTimeout(resolve, 5));
    assert.equal(ran, false);
    // Wall time is Date.now's: between two readings of it, however long the machine paused in between.
    const before = Date.now();
    const wall = realClock.wallNow();
    assert.ok(wall >= before && wall <= Date.now(), `${wall} outside [${before}, now]`);
  });
});
