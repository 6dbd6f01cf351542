/**
 * Which pods a ReplicaSet deletes first when it has too many: the ones whose loss hurts least,
 * in kube's order. A pod that is not on a node goes before one that is; Pending before Unknown
 * before Running; not ready before ready; lower `controller.kubernetes.io/pod-deletion-cost`
 * first; a pod sharing its node with more of its siblings (from any ReplicaSet of the same
 * Deployment) first; among ready pods the more recently ready first; more container restarts
 * first; the newer pod first. Times are compared on a log scale (kube's LogarithmicScaleDown):
 * pods of similar age are treated as equally old and ordered by uid, so scale-down does not
 * always pick the very newest pod and leave the oldest ones forever.
 */
import { isPodReady, podReadySince, creationTime, type Pod } from '../workload-common/pods.ts';

export const POD_DELETION_COST_ANNOTATION = 'controller.kubernetes.io/pod-deletion-cost';

const PHASE_ORDER: Record<string, number> = { Pending: 0, Unknown: 1, Running: 2 };

interface Ranked {
  readonly pod: Pod;
  /** Active sibling pods on the same node. */
  readonly colocated: number;
}

function deletionCost(pod: Pod): number {
  const raw = pod.metadata?.annotations?.[POD_DELETION_COST_ANNOTATION];
  if (raw === undefined) return 0;
  const n = Number(raw);
  return Number.isInteger(n) ? n : 0;
}

function maxRestarts(pod: Pod): number {
  let max = 0;
  for (const c of pod.status?.containerStatuses ?? []) max = Math.max(max, c.restartCount ?? 0);
  return max;
}

/** Age bucket: floor(log2(age)), -1 for "no age yet". */
function ageRank(t: number, nowMs: number): number {
  const age = nowMs - t;
  return age > 0 ? Math.floor(Math.log2(age)) : -1;
}

/**
 * Negative when `a` should go before `b` among times where "more recent first" holds: a zero
 * (unknown) time goes first; otherwise the more recent one, bucketed when `nowMs` is given.
 */
function compareRecentFirst(ta: number, tb: number, a: Pod, b: Pod, nowMs: number | undefined): number {
  if (ta === tb) return 0;
  if (ta === 0 || tb === 0) return ta === 0 ? -1 : 1;
  if (nowMs === undefined) return tb - ta;
  const diff = ageRank(ta, nowMs) - ageRank(tb, nowMs);
  if (diff !== 0) return diff;
  const ua = a.metadata?.uid ?? '';
  const ub = b.metadata?.uid ?? '';
  return ua < ub ? -1 : ua > ub ? 1 : 0;
}

export function compareForDeletion(x: Ranked, y: Ranked, nowMs?: number): number {
  const a = x.pod;
  const b = y.pod;
  const na = a.spec?.nodeName ?? '';
  const nb = b.spec?.nodeName ?? '';
  if (na !== nb && (!na || !nb)) return na ? 1 : -1;
  const pa = PHASE_ORDER[a.status?.phase ?? ''] ?? 0;
  const pb = PHASE_ORDER[b.status?.phase ?? ''] ?? 0;
  if (pa !== pb) return pa - pb;
  const ra = isPodReady(a);
  const rb = isPodReady(b);
  if (ra !== rb) return ra ? 1 : -1;
  const ca = deletionCost(a);
  const cb = deletionCost(b);
  if (ca !== cb) return ca - cb;
  if (x.colocated !== y.colocated) return y.colocated - x.colocated;
  if (ra && rb) {
    const c = compareRecentFirst(podReadySince(a) ?? 0, podReadySince(b) ?? 0, a, b, nowMs);
    if (c !== 0) return c;
  }
  const restarts = maxRestarts(b) - maxRestarts(a);
  if (restarts !== 0) return restarts;
  return compareRecentFirst(creationTime(a), creationTime(b), a, b, nowMs);
}

/**
 * The `count` pods of `pods` to delete first. `related` are the active pods of every
 * ReplicaSet of the same owner (the ReplicaSet's own included): a node crowded with siblings
 * gives up a pod first, which keeps replicas spread through a rollout.
 */
export function podsToDelete(pods: readonly Pod[], related: readonly Pod[], count: number, nowMs?: number): Pod[] {
  if (count >= pods.length) return [...pods];
  const perNode = new Map<string, number>();
  for (const p of related) {
    const node = p.spec?.nodeName ?? '';
    perNode.set(node, (perNode.get(node) ?? 0) + 1);
  }
  const ranked = pods.map((pod) => ({ pod, colocated: perNode.get(pod.spec?.nodeName ?? '') ?? 0 }));
  ranked.sort((x, y) => compareForDeletion(x, y, nowMs));
  return ranked.slice(0, count).map((r) => r.pod);
}
