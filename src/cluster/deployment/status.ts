/**
 * A Deployment's status and conditions, pure, with kube's meanings (what `kubectl rollout
 * status` and `kubectl get deploy` read):
 * - counts add up the ReplicaSets' statuses; `updatedReplicas` is the new ReplicaSet's pods,
 *   `unavailableReplicas` is desired-by-ReplicaSets minus available;
 * - `Available` is True while available pods ≥ replicas − maxUnavailable;
 * - `Progressing` says where the rollout is: NewReplicaSetCreated / FoundNewReplicaSet /
 *   ReplicaSetUpdated while it moves (lastUpdateTime advances on every sign of progress),
 *   NewReplicaSetAvailable when complete, ProgressDeadlineExceeded (False) once no progress
 *   was seen for progressDeadlineSeconds; DeploymentPaused / DeploymentResumed (Unknown);
 * - a ReplicaSet's `ReplicaFailure` (a quota refusing pods, say) is lifted onto the Deployment.
 */
import { formatTimestamp } from '../../api/time.ts';
import { maxUnavailable, sumAvailable, sumReplicas } from './rolling.ts';
import type { Deployment, DeploymentCondition, DeploymentStatus, ReplicaSet } from './types.ts';

export const AVAILABLE = 'Available';
export const PROGRESSING = 'Progressing';
export const REPLICA_FAILURE = 'ReplicaFailure';

export const Reason = {
  NewReplicaSetCreated: 'NewReplicaSetCreated',
  FoundNewReplicaSet: 'FoundNewReplicaSet',
  ReplicaSetUpdated: 'ReplicaSetUpdated',
  NewReplicaSetAvailable: 'NewReplicaSetAvailable',
  ProgressDeadlineExceeded: 'ProgressDeadlineExceeded',
  ReplicaSetCreateError: 'ReplicaSetCreateError',
  DeploymentPaused: 'DeploymentPaused',
  DeploymentResumed: 'DeploymentResumed',
  MinimumReplicasAvailable: 'MinimumReplicasAvailable',
  MinimumReplicasUnavailable: 'MinimumReplicasUnavailable',
} as const;

/** Go's %q for the names in kube's messages. */
export const quote = (s: string | undefined): string => JSON.stringify(s ?? '');

export function newCondition(type: string, status: DeploymentCondition['status'], reason: string, message: string, nowMs: number): DeploymentCondition {
  const t = formatTimestamp(nowMs);
  return { type, status, reason, message, lastUpdateTime: t, lastTransitionTime: t };
}

export function getCondition(status: { conditions?: readonly DeploymentCondition[] } | undefined, type: string): DeploymentCondition | undefined {
  return status?.conditions?.find((c) => c.type === type);
}

/**
 * Sets a condition, as kube's SetDeploymentCondition: same status and reason means nothing to
 * do (the times stay); same status keeps the transition time.
 */
export function setCondition(status: DeploymentStatus, condition: DeploymentCondition): void {
  const current = getCondition(status, condition.type);
  if (current && current.status === condition.status && current.reason === condition.reason) return;
  const next = { ...condition };
  if (current && current.status === condition.status) next.lastTransitionTime = current.lastTransitionTime;
  status.conditions = [...(status.conditions ?? []).filter((c) => c.type !== condition.type), next];
}

export function removeCondition(status: DeploymentStatus, type: string): void {
  if (!status.conditions) return;
  status.conditions = status.conditions.filter((c) => c.type !== type);
  if (status.conditions.length === 0) delete status.conditions;
}

/** A deadline of MaxInt32 is kube's way of saying "none". */
export function hasProgressDeadline(d: Deployment): boolean {
  const s = d.spec?.progressDeadlineSeconds;
  return s !== undefined && s !== null && s !== 2147483647;
}

export function currentStatus(d: Deployment): DeploymentStatus {
  const s = structuredClone(d.status ?? {}) as unknown as Partial<DeploymentStatus>;
  return { replicas: 0, updatedReplicas: 0, readyReplicas: 0, availableReplicas: 0, unavailableReplicas: 0, ...s };
}

export function calculateStatus(d: Deployment, allReplicaSets: readonly ReplicaSet[], newRS: ReplicaSet | undefined, nowMs: number): DeploymentStatus {
  const available = sumAvailable(allReplicaSets);
  const previous = currentStatus(d);
  const status: DeploymentStatus = {
    observedGeneration: d.metadata?.generation,
    replicas: allReplicaSets.reduce((n, rs) => n + (rs.status?.replicas ?? 0), 0),
    updatedReplicas: newRS?.status?.replicas ?? 0,
    readyReplicas: allReplicaSets.reduce((n, rs) => n + (rs.status?.readyReplicas ?? 0), 0),
    availableReplicas: available,
    unavailableReplicas: Math.max(0, sumReplicas(allReplicaSets) - available),
  };
  if (previous.collisionCount !== undefined) status.collisionCount = previous.collisionCount;
  if (previous.conditions?.length) status.conditions = previous.conditions.map((c) => ({ ...c }));
  const desired = d.spec?.replicas ?? 1;
  if (available >= desired - maxUnavailable(d)) {
    setCondition(status, newCondition(AVAILABLE, 'True', Reason.MinimumReplicasAvailable, 'Deployment has minimum availability.', nowMs));
  } else {
    setCondition(status, newCondition(AVAILABLE, 'False', Reason.MinimumReplicasUnavailable, 'Deployment does not have minimum availability.', nowMs));
  }
  return status;
}

/** Every replica is updated and available, and nothing old is left: the rollout is done. */
export function deploymentComplete(d: Deployment, status: DeploymentStatus): boolean {
  const desired = d.spec?.replicas ?? 1;
  return status.updatedReplicas === desired && status.replicas === desired && status.availableReplicas === desired && (status.observedGeneration ?? 0) >= (d.metadata?.generation ?? 0);
}

/** Something moved since the status we last wrote: more updated, fewer old, more ready or available. */
export function deploymentProgressing(d: Deployment, next: DeploymentStatus): boolean {
  const prev = currentStatus(d);
  return (
    next.updatedReplicas > prev.updatedReplicas ||
    next.replicas - next.updatedReplicas < prev.replicas - prev.updatedReplicas ||
    next.readyReplicas > prev.readyReplicas ||
    next.availableReplicas > prev.availableReplicas
  );
}

export function deploymentTimedOut(d: Deployment, status: DeploymentStatus, nowMs: number): boolean {
  if (!hasProgressDeadline(d)) return false;
  const cond = getCondition(status, PROGRESSING);
  if (!cond) return false;
  if (cond.reason === Reason.NewReplicaSetAvailable) return false;
  if (cond.reason === Reason.ProgressDeadlineExceeded) return true;
  const from = Date.parse(cond.lastUpdateTime ?? '');
  if (Number.isNaN(from)) return false;
  return from + (d.spec?.progressDeadlineSeconds ?? 600) * 1000 < nowMs;
}

/** The status after a rollout step: counts, then Progressing and ReplicaFailure (kube's syncRolloutStatus). */
export function rolloutStatus(d: Deployment, allReplicaSets: readonly ReplicaSet[], newRS: ReplicaSet | undefined, nowMs: number): DeploymentStatus {
  const status = calculateStatus(d, allReplicaSets, newRS, nowMs);
  if (!hasProgressDeadline(d)) removeCondition(status, PROGRESSING);
  const current = getCondition(status, PROGRESSING);
  const alreadyComplete = status.replicas === status.updatedReplicas && current?.reason === Reason.NewReplicaSetAvailable;
  if (hasProgressDeadline(d) && !alreadyComplete) {
    const subject = newRS ? `ReplicaSet ${quote(newRS.metadata?.name)}` : `Deployment ${quote(d.metadata?.name)}`;
    if (deploymentComplete(d, status)) {
      setCondition(status, newCondition(PROGRESSING, 'True', Reason.NewReplicaSetAvailable, `${subject} has successfully progressed.`, nowMs));
    } else if (deploymentProgressing(d, status)) {
      // Progress refreshes lastUpdateTime even when the reason stays the same: that is the clock the deadline runs on.
      const cond = newCondition(PROGRESSING, 'True', Reason.ReplicaSetUpdated, `${subject} is progressing.`, nowMs);
      if (current?.status === 'True') cond.lastTransitionTime = current.lastTransitionTime;
      removeCondition(status, PROGRESSING);
      setCondition(status, cond);
    } else if (deploymentTimedOut(d, status, nowMs)) {
      setCondition(status, newCondition(PROGRESSING, 'False', Reason.ProgressDeadlineExceeded, `${subject} has timed out progressing.`, nowMs));
    }
  }
  const failure = replicaFailure(allReplicaSets, newRS);
  if (failure) setCondition(status, failure);
  else removeCondition(status, REPLICA_FAILURE);
  return status;
}

/** The first ReplicaFailure among the ReplicaSets, the new one looked at first. */
function replicaFailure(allReplicaSets: readonly ReplicaSet[], newRS: ReplicaSet | undefined): DeploymentCondition | undefined {
  const ordered = newRS ? [newRS, ...allReplicaSets.filter((rs) => rs !== newRS)] : allReplicaSets;
  for (const rs of ordered) {
    const c = rs.status?.conditions?.find((x) => x.type === REPLICA_FAILURE);
    if (!c) continue;
    const t = c.lastTransitionTime ? String(c.lastTransitionTime) : undefined;
    return { type: REPLICA_FAILURE, status: c.status as DeploymentCondition['status'], reason: c.reason, message: c.message, lastUpdateTime: t, lastTransitionTime: t };
  }
  return undefined;
}

/**
 * When to look again at a rollout that is neither complete nor timed out: just after its
 * deadline would pass, since nothing else may happen to wake the controller (kube #34458).
 */
export function progressRecheckMs(d: Deployment, status: DeploymentStatus, nowMs: number): number | undefined {
  const cond = getCondition(status, PROGRESSING);
  if (!hasProgressDeadline(d) || !cond) return undefined;
  if (deploymentComplete(d, status) || cond.reason === Reason.ProgressDeadlineExceeded) return undefined;
  const from = Date.parse(cond.lastUpdateTime ?? '');
  if (Number.isNaN(from)) return undefined;
  const after = from + (d.spec?.progressDeadlineSeconds ?? 600) * 1000 - nowMs;
  // Condition times are whole seconds: a second more makes sure the deadline has really passed.
  return Math.max(after, 0) + 1000;
}

