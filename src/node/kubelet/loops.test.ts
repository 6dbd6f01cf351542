import assert from 'node:assert/strict';
import { it } from 'node:test';
import { FakeClock } from '../../runtime/clock.ts';
import { Loops } from './loops.ts';

/** Lets promise continuations run (a step that ended schedules its next run in one); no time passes on any clock. */
const flush = (): Promise<void> => new Promise((r) => setImmediate(r));

/** Moves the fake clock `ms` forward 1 ms at a time, letting the loops' continuations run after each. */
async function run(clock: FakeClock, ms: number, each: () => void = () => {}): Promise<void> {
  for (let i = 0; i < ms; i++) {
    clock.advance(1);
    await flush();
    each();
  }
}

it('kubelet loops: keep one timer per loop however many times they run, and none once stopped', async (t) => {
  const clock = new FakeClock();
  const loops = new Loops(() => {}, clock);
  t.after(() => loops.stop());
  let fast = 0;
  let slow = 0;
  loops.every(1, () => void fast++, 0);
  // A step that takes 1 ms of the clock's time.
  loops.every(2, async () => {
    await new Promise<void>((r) => clock.setTimeout(r, 1));
    slow++;
  }, 0);
  let most = 0;
  await run(clock, 100, () => (most = Math.max(most, loops.size)));
  assert.ok(fast >= 50 && slow >= 25, `both loops ran many times in 100 ms of the clock (fast ${fast}, slow ${slow})`);
  assert.ok(most <= 2, `${most} timers pending at once for 2 loops`);
  loops.stop();
  assert.equal(loops.size, 0);
  const [f, s] = [fast, slow];
  await run(clock, 30);
  assert.equal(fast, f, 'a stopped loop does not run again');
  assert.ok(slow <= s + 1, 'a step running at stop may finish, but is not scheduled again');
  assert.equal(loops.size, 0);
  assert.equal(clock.pending(), 0, 'no timer left on the clock');
});

it('kubelet loops: a failing step is reported and the loop goes on; loops started after stop run', async (t) => {
  const clock = new FakeClock();
  const errors: unknown[] = [];
  const loops = new Loops((err) => errors.push(err), clock);
  t.after(() => loops.stop());
  let runs = 0;
  loops.every(1, () => {
    runs++;
    throw new Error('step failed');
  }, 0);
  await run(clock, 30);
  assert.ok(runs >= 3 && errors.length === runs, `${runs} runs, ${errors.length} errors reported`);
  loops.stop();
  let again = 0;
  loops.every(1, () => void again++, 0);
  await run(clock, 20);
  assert.ok(again > 0, 'restarted (a kubelet started again after a reboot)');
});

it('kubelet loops: a jittered period waits its interval plus up to the factor more, drawn afresh each run', async (t) => {
  const clock = new FakeClock();
  const loops = new Loops(() => {}, clock);
  t.after(() => loops.stop());
  const ranAt: number[] = [];
  loops.every(10, () => void ranAt.push(clock.now()), 0, 1);
  await run(clock, 1000);
  const periods = ranAt.slice(1).map((at, i) => at - ranAt[i]!);
  assert.ok(periods.length >= 40, `${periods.length} periods`);
  // The next run is armed once a step's promise settles, which the 1 ms steps of `run` put at most 1 ms after it ran.
  assert.ok(periods.every((g) => g >= 10 && g < 21), `gaps ${periods.map((g) => g.toFixed(1)).join(', ')}`);
  // With a factor of 1 the gaps spread over [10, 20) ms instead of all being 10 ms.
  const spread = Math.max(...periods) - Math.min(...periods);
  assert.ok(spread >= 3, `gaps spread by ${spread.toFixed(1)} ms`);
});
