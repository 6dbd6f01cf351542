import assert from 'node:assert/strict';
import { it } from 'node:test';
import { Loops } from './loops.ts';

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

it('kubelet loops: keep one timer per loop however many times they run, and none once stopped', async () => {
  const loops = new Loops(() => {});
  let fast = 0;
  let slow = 0;
  loops.every(1, () => void fast++, 0);
  loops.every(2, async () => {
    await sleep(1);
    slow++;
  }, 0);
  await sleep(100);
  assert.ok(fast > 20 && slow > 10, `both loops ran many times (fast ${fast}, slow ${slow})`);
  assert.ok(loops.size <= 2, `${loops.size} timers pending for 2 loops`);
  loops.stop();
  assert.equal(loops.size, 0);
  const [f, s] = [fast, slow];
  await sleep(30);
  assert.equal(fast, f, 'a stopped loop does not run again');
  assert.ok(slow <= s + 1, 'a step running at stop may finish, but is not scheduled again');
  assert.equal(loops.size, 0);
});

it('kubelet loops: a failing step is reported and the loop goes on; loops started after stop run', async () => {
  const errors: unknown[] = [];
  const loops = new Loops((err) => errors.push(err));
  let runs = 0;
  loops.every(1, () => {
    runs++;
    throw new Error('step failed');
  }, 0);
  await sleep(30);
  assert.ok(runs >= 3 && errors.length === runs, `${runs} runs, ${errors.length} errors reported`);
  loops.stop();
  let again = 0;
  loops.every(1, () => void again++, 0);
  await sleep(20);
  assert.ok(again > 0, 'restarted (a kubelet started again after a reboot)');
  loops.stop();
});

it('kubelet loops: a jittered period waits its interval plus up to the factor more, drawn afresh each run', async () => {
  const loops = new Loops(() => {});
  const gaps: number[] = [];
  let last = performance.now();
  loops.every(10, () => {
    const now = performance.now();
    gaps.push(now - last);
    last = now;
  }, 0, 1);
  await sleep(400);
  loops.stop();
  const periods = gaps.slice(1);
  assert.ok(periods.length >= 10, `${periods.length} periods`);
  // Timers fire late, never early: every gap is at least the interval.
  assert.ok(periods.every((g) => g >= 9.5), `gaps ${periods.map((g) => g.toFixed(1)).join(', ')}`);
  // With a factor of 1 the gaps spread over [10, 20) ms instead of all being ~10 ms.
  const spread = Math.max(...periods) - Math.min(...periods);
  assert.ok(spread >= 3, `gaps spread by ${spread.toFixed(1)} ms`);
});
