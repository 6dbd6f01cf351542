/**
 * Ranking the nodes a pod fits on, after kube-scheduler's default scores (0-100 each):
 * - least allocated: the more CPU and memory left free after the pod, the better, so load
 *   spreads instead of piling onto the first node (requests counted with kube's non-zero
 *   defaults, so request-less pods still weigh something);
 * - balanced allocation: CPU and memory used in similar proportions, so neither is stranded;
 * - owner spreading (weight 2): fewer pods of the pod's own controller on the node is better,
 *   so a ReplicaSet's replicas land on different nodes (what kube's default topology spreading
 *   achieves per hostname).
 */
import type { NodeInfo, PodInfo } from './types.ts';

export const MAX_NODE_SCORE = 100;
const SPREAD_WEIGHT = 2;

function leastRequested(requested: number, capacity: number): number {
  if (capacity <= 0 || requested > capacity) return 0;
  return Math.floor(((capacity - requested) * MAX_NODE_SCORE) / capacity);
}

export function leastAllocatedScore(pod: PodInfo, node: NodeInfo): number {
  let sum = 0;
  let n = 0;
  const { allocatable: a, nonZeroRequested: r } = node;
  if (a.milliCpu > 0) {
    sum += leastRequested(r.milliCpu + pod.nonZeroRequests.milliCpu, a.milliCpu);
    n++;
  }
  if (a.memory > 0) {
    sum += leastRequested(r.memory + pod.nonZeroRequests.memory, a.memory);
    n++;
  }
  return n ? Math.floor(sum / n) : 0;
}

export function balancedAllocationScore(pod: PodInfo, node: NodeInfo): number {
  const { allocatable: a, requested: r } = node;
  if (a.milliCpu <= 0 || a.memory <= 0) return 0;
  const cpu = Math.min(1, (r.milliCpu + pod.requests.milliCpu) / a.milliCpu);
  const mem = Math.min(1, (r.memory + pod.requests.memory) / a.memory);
  return Math.floor((1 - Math.abs(cpu - mem) / 2) * MAX_NODE_SCORE);
}

/** Per node, 100 for the fewest pods of the pod's controller among `nodes`, down to 0 for the most. */
export function ownerSpreadScores(pod: PodInfo, nodes: readonly NodeInfo[]): number[] {
  const owner = pod.owner;
  if (!owner) return nodes.map(() => MAX_NODE_SCORE);
  const counts = nodes.map((n) => n.ownerCount(owner));
  const most = Math.max(0, ...counts);
  return counts.map((c) => (most === 0 ? MAX_NODE_SCORE : Math.floor((MAX_NODE_SCORE * (most - c)) / most)));
}

/** The weighted total per node, in the order given. */
export function scoreNodes(pod: PodInfo, nodes: readonly NodeInfo[]): number[] {
  const spread = ownerSpreadScores(pod, nodes);
  return nodes.map((n, i) => leastAllocatedScore(pod, n) + balancedAllocationScore(pod, n) + SPREAD_WEIGHT * spread[i]);
}

/** Index of the best score; ties go to the earliest, and callers rotate where the list starts. */
export function bestIndex(scores: readonly number[]): number {
  let best = 0;
  for (let i = 1; i < scores.length; i++) if (scores[i] > scores[best]) best = i;
  return best;
}
