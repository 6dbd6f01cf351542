/**
 * One scheduling decision, as a pure function of a pod and the cache: run the filters on
 * nodes until enough feasible ones are found, score those, pick the best. Filters run in
 * kube-scheduler's order and a node is refused by the first filter that fails, so its
 * reason in the FailedScheduling message is the one kube would give.
 *
 * Like kube-scheduler, it does not examine every node of a large cluster for every pod: it
 * stops once it has found `numFeasibleNodesToFind` feasible nodes (all nodes up to 100, then
 * a share that shrinks from 50% towards 5% as the cluster grows), and it starts each scan where
 * the previous one stopped, so successive pods look at different nodes. Only a pod that fits
 * nowhere costs a scan of every node. A pod whose node affinity names its nodes (a DaemonSet's
 * pod) is only tried on those, as kube's NodeAffinity PreFilter does.
 */
import { failedSchedulingMessage } from './fit-error.ts';
import { compileNodeAffinity, nodeAffinity, preFilterNodeNames, PRE_FILTERED } from './plugins/node-affinity.ts';
import { nodeName } from './plugins/node-name.ts';
import { nodeResourcesFit } from './plugins/node-resources-fit.ts';
import { nodeUnschedulable } from './plugins/node-unschedulable.ts';
import { interPodAffinity, preFilterInterPodAffinity, type PodAffinityView } from './plugins/inter-pod-affinity.ts';
import { taintToleration } from './plugins/taint-toleration.ts';
import { bestIndex, scoreNodes } from './score.ts';
import type { FilterFailure, FilterResult, NodeInfo, PodInfo } from './types.ts';

export interface Snapshot extends PodAffinityView {
  nodeInfos(): readonly NodeInfo[];
  nodeInfo(name: string): NodeInfo | undefined;
}

export interface ScheduleOptions {
  /** Where the scan starts (taken modulo the node count). */
  readonly start: number;
  /** kube's percentageOfNodesToScore: 0 (default) adapts to the cluster size. */
  readonly percentageOfNodesToScore?: number;
}

export type ScheduleResult =
  | { readonly kind: 'fit'; readonly node: string; readonly processed: number; readonly feasible: number }
  | { readonly kind: 'unschedulable'; readonly message: string; readonly processed: number; readonly failures: ReadonlyMap<string, FilterFailure> };

const MIN_FEASIBLE_NODES_TO_FIND = 100;
const MIN_FEASIBLE_NODES_PERCENTAGE = 5;

export function numFeasibleNodesToFind(numAllNodes: number, percentage = 0): number {
  if (numAllNodes < MIN_FEASIBLE_NODES_TO_FIND) return numAllNodes;
  let pct = percentage;
  if (pct <= 0) pct = Math.max(MIN_FEASIBLE_NODES_PERCENTAGE, 50 - Math.floor(numAllNodes / 125));
  pct = Math.min(100, pct);
  return Math.max(MIN_FEASIBLE_NODES_TO_FIND, Math.floor((numAllNodes * pct) / 100));
}

export function schedulePod(pod: PodInfo, snapshot: Snapshot, options: ScheduleOptions): ScheduleResult {
  const all = snapshot.nodeInfos();
  const numAllNodes = all.length;
  if (numAllNodes === 0) return { kind: 'unschedulable', message: failedSchedulingMessage(pod.pod, 0, []), processed: 0, failures: new Map() };
  // As kube's PreFilter result: only the named nodes are scanned, the rest count as refused.
  const named = preFilterNodeNames(pod.pod);
  const nodes = named ? [...named].flatMap((name) => snapshot.nodeInfo(name) ?? []) : all;
  const total = nodes.length;

  const matchesAffinity = compileNodeAffinity(pod.pod);
  const podAffinity = preFilterInterPodAffinity(pod, snapshot);
  const filter = (n: NodeInfo): FilterResult =>
    nodeUnschedulable(pod.pod, n.node) ??
    nodeName(pod.pod, n.node) ??
    taintToleration(pod.pod, n.node) ??
    nodeAffinity(matchesAffinity, n.node) ??
    nodeResourcesFit(pod.requests, n) ??
    interPodAffinity(podAffinity, n.node, snapshot);

  const wanted = numFeasibleNodesToFind(total, options.percentageOfNodesToScore);
  const start = total ? ((options.start % total) + total) % total : 0;
  const feasible: NodeInfo[] = [];
  const failures = new Map<string, FilterFailure>();
  let processed = 0;
  while (processed < total && feasible.length < wanted) {
    const n = nodes[(start + processed) % total];
    processed++;
    const failure = filter(n);
    if (failure) failures.set(n.name, failure);
    else feasible.push(n);
  }

  if (feasible.length === 0) {
    const refused = [...failures.values()];
    for (let i = total; i < numAllNodes; i++) refused.push(PRE_FILTERED);
    return { kind: 'unschedulable', message: failedSchedulingMessage(pod.pod, numAllNodes, refused), processed, failures };
  }
  const chosen = feasible.length === 1 ? feasible[0] : feasible[bestIndex(scoreNodes(pod, feasible))];
  return { kind: 'fit', node: chosen.name, processed, feasible: feasible.length };
}
