/**
 * Proportional scaling: when `spec.replicas` changes in the middle of a rollout, the change
 * is shared among the ReplicaSets that have pods in proportion to their size, rather than all
 * landing on the new one (which would undo the rollout's pacing) or the old ones. Each
 * ReplicaSet's `max-replicas` annotation says what total it was sized against; its share of
 * the new total is its size scaled by (replicas + maxSurge) / that, rounded. Whatever
 * rounding leaves over goes to the largest ReplicaSet (the newest when growing, the oldest
 * when shrinking, among equals), as in kube.
 */
import { byCreation } from './rolling.ts';

export interface ScalableReplicaSet {
  readonly name: string;
  readonly replicas: number;
  readonly created: number;
  /** The `max-replicas` annotation, when present and valid. */
  readonly maxReplicas?: number;
}

export interface ProportionalInput {
  readonly desired: number;
  readonly maxSurge: number;
  /** The Deployment's `status.replicas`: the reference size for a ReplicaSet without `max-replicas`. */
  readonly statusReplicas: number;
  /** The ReplicaSets with pods (spec.replicas > 0). */
  readonly active: readonly ScalableReplicaSet[];
}

/** The target size of every active ReplicaSet (unchanged ones included) and the direction. */
export function planProportionalScale(input: ProportionalInput): { sizes: Map<string, number>; direction: 'up' | 'down' | 'none' } {
  const sizes = new Map<string, number>();
  const allowed = input.desired > 0 ? input.desired + input.maxSurge : 0;
  const current = input.active.reduce((n, rs) => n + rs.replicas, 0);
  const toAdd = allowed - current;
  const direction = toAdd > 0 ? 'up' : toAdd < 0 ? 'down' : 'none';
  const ordered = [...input.active].sort((a, b) => {
    if (a.replicas !== b.replicas) return b.replicas - a.replicas;
    return direction === 'up' ? byCreation(b, a) : byCreation(a, b);
  });
  let added = 0;
  for (const rs of ordered) {
    let share = 0;
    if (toAdd !== 0 && rs.replicas > 0 && added !== toAdd) {
      const fraction = fractionOf(rs, input);
      const left = toAdd - added;
      share = toAdd > 0 ? Math.min(fraction, left) : Math.max(fraction, left);
    }
    sizes.set(rs.name, rs.replicas + share);
    added += share;
  }
  const first = ordered[0];
  if (first && toAdd !== 0) sizes.set(first.name, Math.max(0, sizes.get(first.name)! + toAdd - added));
  return { sizes, direction };
}

/** How many replicas `rs` should gain (or lose) to keep its share of the new total. */
function fractionOf(rs: ScalableReplicaSet, input: ProportionalInput): number {
  if (input.desired === 0) return -rs.replicas;
  const reference = rs.maxReplicas ?? input.statusReplicas;
  // No reference size to scale from: leave this one to the leftover.
  if (reference <= 0) return 0;
  return Math.round((rs.replicas * (input.desired + input.maxSurge)) / reference) - rs.replicas;
}
