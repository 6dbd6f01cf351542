/**
 * Slow start, as kube's controllers create pods: one call first, then batches doubling in size
 * (1, 2, 4, …), stopping at the first batch with a failure. A quota or admission error then
 * costs one failed request instead of hundreds, and a healthy burst still finishes in
 * O(log n) round trips.
 */

export interface SlowStartResult {
  /** Calls that succeeded. Calls never made = count - attempted. */
  readonly succeeded: number;
  readonly attempted: number;
  readonly error?: unknown;
}

export async function slowStartBatch(count: number, initialBatch: number, fn: (index: number) => Promise<void>): Promise<SlowStartResult> {
  let succeeded = 0;
  let attempted = 0;
  let batch = Math.min(count, Math.max(1, initialBatch));
  while (attempted < count) {
    const start = attempted;
    const results = await Promise.allSettled(Array.from({ length: batch }, (_, i) => fn(start + i)));
    attempted += batch;
    let error: unknown;
    for (const r of results) {
      if (r.status === 'fulfilled') succeeded++;
      else error ??= r.reason;
    }
    if (error !== undefined) return { succeeded, attempted, error };
    batch = Math.min(batch * 2, count - attempted);
  }
  return { succeeded, attempted };
}
