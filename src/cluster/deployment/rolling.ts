/**
 * The rolling-update arithmetic, pure, as kube's deployment controller does it:
 * - `maxSurge` is resolved rounding up and `maxUnavailable` rounding down (so 25% of 1 is
 *   one surge pod and zero unavailable), and if both come to 0, one pod may be unavailable,
 *   or the rollout could never move;
 * - the new ReplicaSet grows while the total of all ReplicaSets stays within
 *   replicas + maxSurge;
 * - old ReplicaSets shrink while the available pods stay at or above replicas - maxUnavailable,
 *   first shedding their own unavailable pods (they count for nothing), oldest ReplicaSet first.
 * Counts are ReplicaSet `spec.replicas` and `status.availableReplicas`, never pods.
 */
import { scaledValue, type IntOrPercent } from '../../api/int-or-percent.ts';
import type { Deployment, ReplicaSet } from './types.ts';

export function resolveFenceposts(maxSurge: IntOrPercent | undefined, maxUnavailable: IntOrPercent | undefined, desired: number): { surge: number; unavailable: number } {
  const surge = scaledValue(maxSurge ?? 0, desired, true);
  let unavailable = scaledValue(maxUnavailable ?? 0, desired, false);
  if (surge === 0 && unavailable === 0) unavailable = 1;
  return { surge, unavailable };
}

const isRolling = (d: Deployment): boolean => (d.spec?.strategy?.type ?? 'RollingUpdate') === 'RollingUpdate';
const desiredOf = (d: Deployment): number => d.spec?.replicas ?? 1;

function fenceposts(d: Deployment): { surge: number; unavailable: number } {
  const ru = d.spec?.strategy?.rollingUpdate;
  return resolveFenceposts((ru?.maxSurge ?? '25%') as IntOrPercent, (ru?.maxUnavailable ?? '25%') as IntOrPercent, desiredOf(d));
}

/** Pods allowed above `spec.replicas` during a rollout; 0 for Recreate. */
export function maxSurge(d: Deployment): number {
  return isRolling(d) ? fenceposts(d).surge : 0;
}

/** Pods allowed below `spec.replicas` during a rollout; never more than replicas, 0 for Recreate. */
export function maxUnavailable(d: Deployment): number {
  const desired = desiredOf(d);
  if (!isRolling(d) || desired === 0) return 0;
  return Math.min(fenceposts(d).unavailable, desired);
}

export const replicasOf = (rs: ReplicaSet | undefined): number => rs?.spec?.replicas ?? 0;
export const sumReplicas = (rss: readonly (ReplicaSet | undefined)[]): number => rss.reduce((n, rs) => n + replicasOf(rs), 0);
export const sumAvailable = (rss: readonly (ReplicaSet | undefined)[]): number => rss.reduce((n, rs) => n + (rs?.status?.availableReplicas ?? 0), 0);

/** The size the new ReplicaSet should have now, given every ReplicaSet's current size. */
export function newReplicaSetReplicas(d: Deployment, allReplicaSets: readonly ReplicaSet[], newRS: ReplicaSet | undefined): number {
  const desired = desiredOf(d);
  if (!isRolling(d)) return desired;
  const current = sumReplicas(allReplicaSets);
  const ceiling = desired + maxSurge(d);
  if (current >= ceiling) return replicasOf(newRS);
  return Math.min(ceiling - current, desired - replicasOf(newRS)) + replicasOf(newRS);
}

export interface ReplicaSetSize {
  readonly name: string;
  readonly replicas: number;
  readonly available: number;
  /** Creation time in ms, for oldest-first ordering (ties by name). */
  readonly created: number;
}

export function byCreation(a: { created: number; name: string }, b: { created: number; name: string }): number {
  return a.created - b.created || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);
}

/**
 * How far each old ReplicaSet may shrink now, as `name → new replicas` for those that change.
 * `all` is every ReplicaSet of the Deployment, the new one included; `oldNames` says which are old.
 */
export function planOldReplicaSetScaleDown(input: {
  readonly desired: number;
  readonly maxUnavailable: number;
  readonly newRS: { readonly replicas: number; readonly available: number } | undefined;
  readonly old: readonly ReplicaSetSize[];
}): Map<string, number> {
  const plan = new Map<string, number>();
  const old = input.old.filter((rs) => rs.replicas > 0).sort(byCreation);
  if (old.length === 0) return plan;
  const size = new Map(old.map((rs) => [rs.name, rs.replicas]));
  const newReplicas = input.newRS?.replicas ?? 0;
  const newAvailable = input.newRS?.available ?? 0;
  const allReplicas = newReplicas + old.reduce((n, rs) => n + rs.replicas, 0);
  const minAvailable = input.desired - input.maxUnavailable;
  const newUnavailable = newReplicas - newAvailable;
  const maxScaledDown = allReplicas - minAvailable - newUnavailable;
  if (maxScaledDown <= 0) return plan;

  // Unavailable pods of old ReplicaSets are removed first: they add nothing to availability.
  let cleaned = 0;
  for (const rs of old) {
    if (cleaned >= maxScaledDown) break;
    const unhealthy = rs.replicas - rs.available;
    if (unhealthy <= 0) continue;
    const n = Math.min(maxScaledDown - cleaned, unhealthy);
    size.set(rs.name, rs.replicas - n);
    cleaned += n;
  }

  // Then available pods, as long as enough stay available across all ReplicaSets.
  // Old ReplicaSets already at zero still count while their pods are being removed.
  const available = newAvailable + input.old.reduce((n, rs) => n + rs.available, 0);
  if (available > minAvailable) {
    const toScaleDown = available - minAvailable;
    let scaled = 0;
    for (const rs of old) {
      if (scaled >= toScaleDown) break;
      const current = size.get(rs.name)!;
      if (current === 0) continue;
      const n = Math.min(current, toScaleDown - scaled);
      size.set(rs.name, current - n);
      scaled += n;
    }
  }
  for (const rs of old) if (size.get(rs.name) !== rs.replicas) plan.set(rs.name, size.get(rs.name)!);
  return plan;
}
