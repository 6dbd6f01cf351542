/**
 * The node controller's rollout decisions, as the MCO makes them: how many of a pool's nodes
 * may be unavailable at once, and which nodes to point at the pool's target next. Pure; the
 * controller reads its caches, calls `planRollout`, and writes the `desiredConfig` annotations.
 *
 * Capacity is `maxUnavailable` minus the nodes already unavailable (node-state.ts), minus the
 * nodes failing at this very target (a transient failure that clears must not let several
 * update at once). Candidates are ready nodes not yet targeted; when there are more than the
 * capacity they are taken by zone (`topology.kubernetes.io/zone`, in name order), oldest first
 * within a zone, unzoned nodes last, so an update finishes one zone before it starts the next
 * and an HA workload spread across zones never loses two replicas to it at once.
 */
import { scaledValue } from '../../../api/int-or-percent.ts';
import type { MachineConfigPool } from '../../../api/machineconfiguration/index.ts';
import type { DeepReadonly } from '../../../runtime/readonly.ts';
import { desiredConfig, hasUpdateTaint, isNodeFailing, isNodeReady, isNodeUnavailable, type Node } from './node-state.ts';
import { compareStrings } from '../../../api/compare.ts';

export const zoneLabel = 'topology.kubernetes.io/zone';

/**
 * `spec.maxUnavailable` for a pool of `nodeCount` nodes: a count, or a percentage rounded down;
 * 1 when unset, and never less than 1, or a small pool with a percentage would never update.
 */
export function maxUnavailable(pool: DeepReadonly<MachineConfigPool>, nodeCount: number): number {
  const value = pool.spec?.maxUnavailable ?? 1;
  let n: number;
  try {
    n = scaledValue(value, nodeCount, false);
  } catch (err) {
    throw new Error(`"maxUnavailable" ${(err as Error).message}`);
  }
  return Math.max(1, n);
}

export interface RolloutPlan {
  /** The nodes to target now, at most `capacity` of them, in update order. */
  readonly targets: Node[];
  /** How many more nodes may become unavailable now. */
  readonly capacity: number;
  /** Every node that still needs the target and could take it (ready, not yet targeted). */
  readonly candidates: number;
  readonly unavailable: number;
}

export function planRollout(target: string, nodes: readonly Node[], maxUnavailableNodes: number): RolloutPlan {
  const unavailable = nodes.filter(isNodeUnavailable).length;
  const none = (capacity: number, candidates = 0): RolloutPlan => ({ targets: [], capacity, candidates, unavailable });
  if (unavailable >= maxUnavailableNodes) return none(0);
  let capacity = maxUnavailableNodes - unavailable;
  let failingThisConfig = 0;
  const candidates: Node[] = [];
  for (const node of nodes) {
    if (desiredConfig(node) === target) {
      if (isNodeFailing(node)) failingThisConfig++;
      continue;
    }
    // A node that cannot take work now (not ready, cordoned) would only hold a slot.
    if (!isNodeReady(node)) continue;
    candidates.push(node);
  }
  if (failingThisConfig >= capacity) return none(0, candidates.length);
  capacity -= failingThisConfig;
  return { targets: sortForUpdate(candidates).slice(0, capacity), capacity, candidates: candidates.length, unavailable };
}

/** Zone by zone (zone names in order, unzoned last), oldest first within one, name breaking ties. */
export function sortForUpdate(nodes: readonly Node[]): Node[] {
  const created = (n: Node): number => Date.parse(String(n.metadata?.creationTimestamp ?? '')) || 0;
  return [...nodes].sort((a, b) => {
    const za = a.metadata?.labels?.[zoneLabel];
    const zb = b.metadata?.labels?.[zoneLabel];
    if (za !== undefined && zb === undefined) return -1;
    if (za === undefined && zb !== undefined) return 1;
    if (za !== undefined && zb !== undefined && za !== zb) return za < zb ? -1 : 1;
    return created(a) - created(b) || compareStrings(a.metadata?.name ?? '', b.metadata?.name ?? '');
  });
}

export interface TaintChange {
  readonly node: Node;
  /** Add the UpdateInProgress taint (true) or remove it. */
  readonly taint: boolean;
}

/**
 * The UpdateInProgress taint writes due before `targets` are pointed at `target`: a node still
 * to update gets the taint, so pods drained off the targets prefer nodes not about to be drained;
 * a node at the target loses it. The targets themselves are left as they are: one about to be
 * targeted is no place for drained pods (its daemon cordons it), and tainting it only for the
 * next pass to untaint it would be two writes for nothing, and writes that the first target of a
 * new config waits behind (on a 200-node pool, the API server's time for 20 Node writes).
 */
export function taintChanges(target: string, nodes: readonly Node[], targets: readonly Node[]): TaintChange[] {
  const targeted = new Set(targets.map((n) => n.metadata?.name));
  const changes: TaintChange[] = [];
  for (const node of nodes) {
    if (targeted.has(node.metadata?.name)) continue;
    const want = desiredConfig(node) !== target;
    if (want !== hasUpdateTaint(node)) changes.push({ node, taint: want });
  }
  return changes;
}
