/**
 * The annotations that carry a Deployment's history on its ReplicaSets, as kube writes them
 * and kubectl reads them: `deployment.kubernetes.io/revision` orders the revisions
 * (`kubectl rollout history` lists them, `rollout undo` finds the template to go back to),
 * `desired-replicas` and `max-replicas` record the size a ReplicaSet was scaled for, so a
 * later change of `spec.replicas` can be told apart from a rollout and shared out
 * proportionally. The Deployment's own annotations (`kubernetes.io/change-cause` among them)
 * are copied to its newest ReplicaSet, which is where `rollout history` shows them.
 */
import type { ReplicaSet } from './types.ts';

export const REVISION = 'deployment.kubernetes.io/revision';
export const REVISION_HISTORY = 'deployment.kubernetes.io/revision-history';
export const DESIRED_REPLICAS = 'deployment.kubernetes.io/desired-replicas';
export const MAX_REPLICAS = 'deployment.kubernetes.io/max-replicas';
export const CHANGE_CAUSE = 'kubernetes.io/change-cause';
const LAST_APPLIED = 'kubectl.kubernetes.io/last-applied-configuration';
const ROLLBACK_TO = 'deprecated.deployment.rollback.to';

/** kube's bound on the revision-history annotation. */
const MAX_HISTORY_CHARS = 2000;

/** Controller-owned or tool-owned annotations that must not travel from the Deployment to its ReplicaSets. */
const NOT_COPIED = new Set([LAST_APPLIED, REVISION, REVISION_HISTORY, DESIRED_REPLICAS, MAX_REPLICAS, ROLLBACK_TO]);

type Annotations = Record<string, string>;

/** A ReplicaSet's revision; 0 when missing or not a number (kube treats those as the oldest). */
export function revisionOf(rs: ReplicaSet): number {
  const v = rs.metadata?.annotations?.[REVISION];
  if (v === undefined || !/^\d+$/.test(v)) return 0;
  return Number(v);
}

export function maxRevision(replicaSets: readonly ReplicaSet[]): number {
  let max = 0;
  for (const rs of replicaSets) max = Math.max(max, revisionOf(rs));
  return max;
}

function intAnnotation(rs: ReplicaSet, key: string): number | undefined {
  const v = rs.metadata?.annotations?.[key];
  return v !== undefined && /^\d+$/.test(v) ? Number(v) : undefined;
}

export const desiredReplicasOf = (rs: ReplicaSet): number | undefined => intAnnotation(rs, DESIRED_REPLICAS);
export const maxReplicasOf = (rs: ReplicaSet): number | undefined => intAnnotation(rs, MAX_REPLICAS);

/** Sets desired/max replicas; true when anything changed. */
export function setReplicasAnnotations(annotations: Annotations, desired: number, max: number): boolean {
  let changed = false;
  if (annotations[DESIRED_REPLICAS] !== String(desired)) {
    annotations[DESIRED_REPLICAS] = String(desired);
    changed = true;
  }
  if (annotations[MAX_REPLICAS] !== String(max)) {
    annotations[MAX_REPLICAS] = String(max);
    changed = true;
  }
  return changed;
}

export function replicasAnnotationsNeedUpdate(rs: ReplicaSet, desired: number, max: number): boolean {
  const a = rs.metadata?.annotations ?? {};
  return a[DESIRED_REPLICAS] !== String(desired) || a[MAX_REPLICAS] !== String(max);
}

/**
 * Brings a (new or newly current) ReplicaSet's annotations up to date with its Deployment:
 * copies the Deployment's annotations, raises its revision to `revision` when lower (noting
 * the revision it had in revision-history), and, for a ReplicaSet being created, records the
 * size it is created for. Returns whether anything changed.
 */
export function setNewReplicaSetAnnotations(
  deploymentAnnotations: Readonly<Annotations> | undefined,
  annotations: Annotations,
  revision: number,
  opts: { exists: boolean; desired: number; max: number },
): boolean {
  let changed = false;
  for (const [k, v] of Object.entries(deploymentAnnotations ?? {})) {
    if (NOT_COPIED.has(k) || annotations[k] === v) continue;
    annotations[k] = v;
    changed = true;
  }
  const old = annotations[REVISION];
  if (old !== undefined && !/^\d+$/.test(old)) return changed;
  const oldRevision = old === undefined ? 0 : Number(old);
  if (oldRevision < revision) {
    annotations[REVISION] = String(revision);
    changed = true;
    if (old !== undefined && opts.exists) {
      const history = annotations[REVISION_HISTORY] ? annotations[REVISION_HISTORY].split(',') : [];
      history.push(old);
      while (history.join(',').length > MAX_HISTORY_CHARS && history.length > 1) history.shift();
      annotations[REVISION_HISTORY] = history.join(',');
    }
  }
  if (!opts.exists && setReplicasAnnotations(annotations, opts.desired, opts.max)) changed = true;
  return changed;
}
