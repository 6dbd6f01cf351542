/**
 * Test support: poll until something is so. Tests against a real server see the outcome of
 * asynchronous work only by reading it back, so they ask again until it shows or time runs out.
 * Not a test file itself.
 */

export interface UntilOptions {
  /**
   * 60 s unless given: generous, since `npm test` runs six lanes at once on 2 cores, where a
   * controller can be held back for tens of seconds (a PodDisruptionBudget's status took over
   * 15 s to follow its spec in one such run). A deadline only bounds a failing test's time.
   */
  readonly timeoutMs?: number;
  /** Between two probes; 25 ms unless given. */
  readonly everyMs?: number;
  /**
   * Take a throwing probe as "not yet" instead of failing at once: for probes that read what
   * does not exist yet (a 404 until a controller creates it). The last error is in the timeout's message.
   */
  readonly retryErrors?: boolean;
}

/**
 * Resolves with the first value of `probe` that is neither `undefined` nor `false`, so a probe
 * can return the object it waited for, or just whether it is so. `options` may be just the timeout.
 */
export async function until<T>(what: string, probe: () => Promise<T | undefined | false> | T | undefined | false, options: number | UntilOptions = {}): Promise<T> {
  const { timeoutMs = 60_000, everyMs = 25, retryErrors = false } = typeof options === 'number' ? { timeoutMs: options } : options;
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      const v = await probe();
      if (v !== undefined && v !== false) return v;
    } catch (err) {
      if (!retryErrors) throw err;
      lastError = err;
    }
    if (Date.now() > deadline) {
      const last = lastError === undefined ? '' : ` (last: ${lastError instanceof Error ? lastError.message : String(lastError)})`;
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${last}`);
    }
    await new Promise((r) => setTimeout(r, everyMs));
  }
}
