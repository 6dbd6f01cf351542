/**
 * The delay before a failed Job's pods are created again: 10 s after the latest failure,
 * doubling with each further failure since the last success, up to 6 minutes (issue 14; the
 * kube documentation's cap). Failures are remembered per Job in memory, as kube's job
 * controller keeps its backoff store: a restarted controller starts counting afresh.
 */
import type { V1Pod } from '@kubernetes/client-node';
import type { DeepReadonly } from '../../runtime/readonly.ts';

type Pod = DeepReadonly<V1Pod>;

export const DEFAULT_POD_FAILURE_BACKOFF_MS = 10_000;
export const MAX_POD_FAILURE_BACKOFF_MS = 6 * 60_000;

export interface BackoffRecord {
  readonly failuresAfterLastSuccess: number;
  /** Wall-clock ms of the latest failure counted. */
  readonly lastFailureTime?: number;
}

const parse = (t: unknown): number | undefined => {
  if (typeof t !== 'string' && !(t instanceof Date)) return undefined;
  const ms = Date.parse(String(t instanceof Date ? t.toISOString() : t));
  return Number.isNaN(ms) ? undefined : ms;
};

/**
 * When a pod finished, by kube's getFinishedTime: its containers' latest finish, else when it
 * stopped being Ready, else its deletion time less the grace period, else its creation.
 */
export function podFinishedTime(pod: Pod): number {
  const statuses = [...(pod.status?.initContainerStatuses ?? []), ...(pod.status?.containerStatuses ?? [])];
  let latest: number | undefined;
  for (const cs of statuses) {
    const at = parse(cs.state?.terminated?.finishedAt);
    if (at !== undefined && (latest === undefined || at > latest)) latest = at;
  }
  if (latest !== undefined) return latest;
  const notReady = pod.status?.conditions?.find((c) => c.type === 'Ready' && c.status === 'False');
  const notReadyAt = parse(notReady?.lastTransitionTime);
  if (notReadyAt !== undefined) return notReadyAt;
  const deletedAt = parse(pod.metadata?.deletionTimestamp);
  if (deletedAt !== undefined) return deletedAt - (pod.metadata?.deletionGracePeriodSeconds ?? 0) * 1000;
  return parse(pod.metadata?.creationTimestamp) ?? 0;
}

/** The record after this sync's newly finished pods: successes reset the count; failures after the last success add to it. */
export function nextBackoffRecord(previous: BackoffRecord | undefined, newSucceeded: readonly Pod[], newFailed: readonly Pod[]): BackoffRecord {
  const base = previous ?? { failuresAfterLastSuccess: 0 };
  const failedTimes = newFailed.map(podFinishedTime).sort((a, b) => a - b);
  if (newSucceeded.length === 0) {
    if (failedTimes.length === 0) return base;
    return { failuresAfterLastSuccess: base.failuresAfterLastSuccess + failedTimes.length, lastFailureTime: failedTimes[failedTimes.length - 1] };
  }
  const lastSuccess = Math.max(...newSucceeded.map(podFinishedTime));
  const after = failedTimes.filter((t) => t > lastSuccess);
  return after.length ? { failuresAfterLastSuccess: after.length, lastFailureTime: after[after.length - 1] } : { failuresAfterLastSuccess: 0 };
}

/** How long pod creation must still wait at wall time `nowMs`; 0 when it may go ahead. */
export function remainingBackoffMs(record: BackoffRecord | undefined, nowMs: number, baseMs = DEFAULT_POD_FAILURE_BACKOFF_MS, capMs = MAX_POD_FAILURE_BACKOFF_MS): number {
  if (!record || record.failuresAfterLastSuccess === 0 || record.lastFailureTime === undefined) return 0;
  let delay = baseMs;
  for (let i = 1; i < record.failuresAfterLastSuccess && delay < capMs; i++) delay = Math.min(capMs, delay * 2);
  const elapsed = nowMs - record.lastFailureTime;
  return delay < elapsed ? 0 : delay - elapsed;
}
