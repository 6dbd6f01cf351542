/**
 * Reading a Deployment's ReplicaSets, pure: which one is "new" (its template is the
 * Deployment's, pod-template-hash aside; the oldest such if several), which have pods, which
 * one a plain scale should resize, and whether the new one is already all the Deployment needs.
 */
import { creationTime } from '../workload-common/pods.ts';
import { templatesEqualIgnoringHash } from '../workload-common/template-hash.ts';
import { desiredReplicasOf, maxReplicasOf, revisionOf } from './annotations.ts';
import { byCreation, replicasOf } from './rolling.ts';
import type { Deployment, ReplicaSet } from './types.ts';

export const view = (rs: ReplicaSet) => ({
  name: rs.metadata?.name ?? '',
  replicas: replicasOf(rs),
  available: rs.status?.availableReplicas ?? 0,
  created: creationTime(rs),
  maxReplicas: maxReplicasOf(rs),
});

export function sortByCreation(rss: readonly ReplicaSet[]): ReplicaSet[] {
  return [...rss].sort((a, b) => byCreation(view(a), view(b)));
}

/** Oldest revision first; equal revisions by creation. */
export function sortByRevision(rss: readonly ReplicaSet[]): ReplicaSet[] {
  return [...rss].sort((a, b) => revisionOf(a) - revisionOf(b) || byCreation(view(a), view(b)));
}

export function findNewReplicaSet(d: Deployment, rss: readonly ReplicaSet[]): ReplicaSet | undefined {
  return sortByCreation(rss).find((rs) => templatesEqualIgnoringHash(rs.spec?.template, d.spec?.template));
}

export const filterActive = (rss: readonly (ReplicaSet | undefined)[]): ReplicaSet[] => rss.filter((rs): rs is ReplicaSet => !!rs && replicasOf(rs) > 0);

/**
 * The one ReplicaSet a plain scale applies to: the only one with pods, or, if none has any,
 * the new one (else the newest old one). Undefined when several have pods: that needs
 * proportional scaling.
 */
export function findActiveOrLatest(newRS: ReplicaSet | undefined, oldRSs: readonly ReplicaSet[]): ReplicaSet | undefined {
  if (!newRS && oldRSs.length === 0) return undefined;
  const newestFirst = sortByCreation(oldRSs).reverse();
  const active = filterActive([...newestFirst, newRS]);
  if (active.length === 0) return newRS ?? newestFirst[0];
  if (active.length === 1) return active[0];
  return undefined;
}

/** The new ReplicaSet has every replica, sized for the current spec, and all are available. */
export function isSaturated(d: Deployment, rs: ReplicaSet | undefined): boolean {
  if (!rs) return false;
  const desired = d.spec?.replicas ?? 1;
  return desiredReplicasOf(rs) === desired && replicasOf(rs) === desired && (rs.status?.availableReplicas ?? 0) === desired;
}

/** `spec.replicas` changed since some ReplicaSet with pods was sized: a scale, not a rollout step. */
export function isScalingEvent(d: Deployment, rss: readonly ReplicaSet[]): boolean {
  const desired = d.spec?.replicas ?? 1;
  return filterActive(rss).some((rs) => {
    const annotated = desiredReplicasOf(rs);
    return annotated !== undefined && annotated !== desired;
  });
}
