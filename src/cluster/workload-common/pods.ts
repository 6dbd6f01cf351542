/**
 * How the workload controllers read a pod's state, with the meanings Kubernetes' controller
 * helpers give them: active (counts towards replicas), ready, and available (ready for at
 * least minReadySeconds, measured from the Ready condition's lastTransitionTime).
 */
import type { V1Pod } from '@kubernetes/client-node';
import type { DeepReadonly } from '../../runtime/readonly.ts';

export type Pod = DeepReadonly<V1Pod>;

/**
 * When each cached pod became Ready (undefined: not ready), worked out once per pod version:
 * cached objects are frozen, so the object is the version, and a DaemonSet of 5,000 pods is
 * otherwise asked this (and a timestamp parsed) 5,000 times per reconcile, several times over.
 */
const readySince = new WeakMap<Pod, number | undefined>();

function computeReadySince(pod: Pod): number | undefined {
  const c = pod.status?.conditions?.find((x) => x.type === 'Ready' && x.status === 'True');
  if (!c) return undefined;
  const at = c.lastTransitionTime ? Date.parse(String(c.lastTransitionTime)) : NaN;
  return Number.isNaN(at) ? 0 : at;
}

/** The Ready condition is True. */
export function isPodReady(pod: Pod): boolean {
  return podReadySince(pod) !== undefined;
}

/** Succeeded and Failed pods never run again. */
export function isPodTerminal(pod: Pod): boolean {
  const phase = pod.status?.phase;
  return phase === 'Succeeded' || phase === 'Failed';
}

/** Neither finished nor being deleted: what a controller counts as one of its replicas. */
export function isPodActive(pod: Pod): boolean {
  return !isPodTerminal(pod) && !pod.metadata?.deletionTimestamp;
}

/** Milliseconds since the epoch at which the pod last became Ready; undefined when not ready. */
export function podReadySince(pod: Pod): number | undefined {
  // Only a frozen pod (a cache entry) cannot change under the memo.
  if (!Object.isFrozen(pod)) return computeReadySince(pod);
  if (readySince.has(pod)) return readySince.get(pod);
  const since = computeReadySince(pod);
  readySince.set(pod, since);
  return since;
}

/**
 * Ready, and ready for longer than `minReadySeconds` at `nowMs` (wall clock). A Ready
 * condition without a transition time counts as available only when minReadySeconds is 0,
 * as in kube: there is no way to tell how long it has been ready.
 */
export function isPodAvailable(pod: Pod, minReadySeconds: number, nowMs: number): boolean {
  const since = podReadySince(pod);
  if (since === undefined) return false;
  if (!minReadySeconds) return true;
  return since > 0 && since + minReadySeconds * 1000 < nowMs;
}

/** Milliseconds since the epoch; 0 when unset (sorts as "no time", as kube's zero Time does). */
export function creationTime(obj: { readonly metadata?: { readonly creationTimestamp?: unknown } }): number {
  const t = obj.metadata?.creationTimestamp;
  if (!t) return 0;
  const ms = Date.parse(String(t));
  return Number.isNaN(ms) ? 0 : ms;
}
