/**
 * Runs N workers that take keys from a work queue and reconcile them. All retry policy is in
 * one function, `settle`, which maps a reconcile's outcome to exactly one queue action
 * (style example 4, after controller-runtime's reconcileHandler): success forgets the key's
 * backoff, `requeueAfterMs` also schedules a poll, a thrown error is retried with backoff, and
 * a `TerminalError` is reported and dropped, since an invalid spec will not fix itself. The
 * caller's `onResult` sees every outcome, so it can count `<component>_reconcile_total{result}`
 * and log, without this module knowing about metrics.
 */
import { realClock, type Clock } from './clock.ts';
import type { RateLimitingQueue } from './workqueue.ts';

/** An error that retrying cannot fix. Throw `terminal(err)` from a reconcile to stop retries. */
export class TerminalError extends Error {
  constructor(cause: unknown) {
    super(cause instanceof Error ? cause.message : String(cause), { cause });
    this.name = 'TerminalError';
  }
}

export function terminal(err: unknown): TerminalError {
  return err instanceof TerminalError ? err : new TerminalError(err);
}

export type ReconcileResult = { requeueAfterMs?: number } | void;
export type Reconcile = (key: string, signal: AbortSignal) => Promise<ReconcileResult>;
export type ReconcileOutcome = 'success' | 'requeue' | 'error' | 'terminal';

export interface ReconcileReport {
  key: string;
  result: ReconcileOutcome;
  durationMs: number;
  /** Set for 'error' and 'terminal'; for 'terminal' it is the TerminalError. */
  error?: unknown;
}

export interface RunWorkersOptions {
  queue: RateLimitingQueue;
  /** Concurrent reconciles; distinct keys only, the queue guarantees that. */
  workers: number;
  reconcile: Reconcile;
  /** Aborting shuts the queue down; reconciles in flight receive it too and are awaited. */
  signal: AbortSignal;
  /** Called once per reconcile. It should not throw; if it does, the error is dropped. */
  onResult?: (report: ReconcileReport) => void;
  /** For durationMs. */
  clock?: Clock;
}

type Settled = { ok: true; value: ReconcileResult } | { ok: false; error: unknown };

/** The one place an outcome becomes a queue action. `done` is the caller's job. */
function settle(queue: RateLimitingQueue, key: string, s: Settled): Pick<ReconcileReport, 'result' | 'error'> {
  if (!s.ok) {
    if (s.error instanceof TerminalError) {
      queue.forget(key);
      return { result: 'terminal', error: s.error };
    }
    queue.addRateLimited(key);
    return { result: 'error', error: s.error };
  }
  // Success resets the backoff either way; a poll interval is not a failure to back off from.
  queue.forget(key);
  const after = s.value?.requeueAfterMs;
  if (after !== undefined && after > 0) {
    queue.addAfter(key, after);
    return { result: 'requeue' };
  }
  return { result: 'success' };
}

/** Resolves once every worker has stopped: the signal aborted (or the queue shut down) and in-flight reconciles finished. */
export async function runWorkers(opts: RunWorkersOptions): Promise<void> {
  const { queue, reconcile, signal, onResult } = opts;
  const clock = opts.clock ?? realClock;
  if (!Number.isInteger(opts.workers) || opts.workers < 1) {
    throw new RangeError(`runWorkers: workers must be a positive integer, got ${opts.workers}`);
  }

  const stop = () => queue.shutDown();
  if (signal.aborted) stop();
  else signal.addEventListener('abort', stop, { once: true });

  const worker = async (): Promise<void> => {
    for (;;) {
      const key = await queue.get();
      if (key === undefined) return;
      // Queued keys are still handed out after shutdown; once aborted, don't start new work.
      if (signal.aborted) {
        queue.done(key);
        continue;
      }
      const start = clock.now();
      let s: Settled;
      try {
        s = { ok: true, value: await reconcile(key, signal) };
      } catch (error) {
        s = { ok: false, error };
      }
      const report: ReconcileReport = { key, durationMs: clock.now() - start, ...settle(queue, key, s) };
      queue.done(key);
      try {
        onResult?.(report);
      } catch {
        // A broken metrics or logging hook must not stop the controller.
      }
    }
  };

  try {
    await Promise.all(Array.from({ length: opts.workers }, worker));
  } finally {
    signal.removeEventListener('abort', stop);
  }
}
