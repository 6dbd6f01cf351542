/** How API errors read in events and conditions, and which spec errors retrying cannot fix. */
import { ApiError } from '../../runtime/client.ts';
import { terminal, type Reconcile } from '../../runtime/reconcile-loop.ts';
import { IntOrPercentError } from '../../api/int-or-percent.ts';

/** The server's own message, as kube's controllers print a StatusError. */
export function errorMessage(err: unknown): string {
  if (err instanceof ApiError) return err.status.message || err.message;
  return err instanceof Error ? err.message : String(err);
}

/**
 * A malformed maxSurge or maxUnavailable stays malformed until someone edits the object, and
 * that edit enqueues it again: retrying with backoff in between would only add noise.
 */
export function invalidSpecIsTerminal(reconcile: Reconcile): Reconcile {
  return async (key, signal) => {
    try {
      return await reconcile(key, signal);
    } catch (err) {
      throw err instanceof IntOrPercentError ? terminal(err) : err;
    }
  };
}
