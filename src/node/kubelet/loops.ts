/**
 * The kubelet's periodic steps (Lease renewal, status checks, volume refresh, static pods):
 * each step runs, then the next is scheduled a period after it finished, until `stop`.
 *
 * A period may be jittered, as client-go's JitterUntil jitters the node lease's (factor 0.04):
 * kubelets that one slow moment delayed together would otherwise renew together for ever
 * after, in waves that load the API server in bursts.
 *
 * Exactly one timer is pending per loop. Keeping every timer ever armed (so that stop could
 * clear them) held ~0.7 timers per second per kubelet forever: a node host of 3,500 kubelets
 * gained ~2,500 dead timers a second, and its growing heap stalled it for seconds in
 * garbage collection.
 *
 * Timers come from `clock` (the real one unless given), so a test drives the loops with a
 * FakeClock instead of counting how often real timers fired.
 */
import { realClock, type Cancel, type Clock } from '../../runtime/clock.ts';

export class Loops {
  private readonly pending = new Set<Cancel>();
  /** Bumped by `stop`: a step still running from before does not schedule another. */
  private generation = 0;

  constructor(
    private readonly onError: (err: unknown) => void,
    private readonly clock: Clock = realClock,
  ) {}

  /**
   * Runs `step` after `firstDelayMs`, then after each run ends waits `periodMs` plus up to
   * `jitterFactor` times it, drawn afresh each time.
   */
  every(periodMs: number, step: () => Promise<void> | void, firstDelayMs: number, jitterFactor = 0): void {
    const generation = this.generation;
    const arm = (ms: number): void => {
      const cancel = this.clock.setTimeout(() => {
        this.pending.delete(cancel);
        void run();
      }, ms);
      this.pending.add(cancel);
    };
    const run = async (): Promise<void> => {
      try {
        await step();
      } catch (err) {
        this.onError(err);
      }
      if (generation === this.generation) arm(periodMs + Math.random() * jitterFactor * periodMs);
    };
    arm(firstDelayMs);
  }

  /** Timers waiting to fire: one per loop while running, none once stopped. */
  get size(): number {
    return this.pending.size;
  }

  stop(): void {
    this.generation++;
    for (const cancel of this.pending) cancel();
    this.pending.clear();
  }
}
