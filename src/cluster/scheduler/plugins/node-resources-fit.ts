/**
 * NodeResourcesFit: the pod's CPU and memory requests must fit in the node's allocatable minus
 * what the pods already on it request, and one more pod must fit under allocatable `pods`
 * (the kubelet's maxPods). A pod that requests nothing is only counted. Evicting pods could
 * make room, so the failure is resolvable (what preemption would try).
 */
import type { FilterFailure, FilterResult, NodeInfo, Resources } from '../types.ts';

export const ERR_REASON_TOO_MANY_PODS = 'Too many pods';
export const ERR_REASON_INSUFFICIENT_CPU = 'Insufficient cpu';
export const ERR_REASON_INSUFFICIENT_MEMORY = 'Insufficient memory';

const TOO_MANY_PODS: FilterFailure = Object.freeze({ code: 'Unschedulable', reasons: Object.freeze([ERR_REASON_TOO_MANY_PODS]) });

export function nodeResourcesFit(request: Resources, node: NodeInfo): FilterResult {
  const { allocatable, requested } = node;
  const tooMany = node.pods.size + 1 > allocatable.pods;
  const cpu = request.milliCpu > 0 && request.milliCpu > allocatable.milliCpu - requested.milliCpu;
  const memory = request.memory > 0 && request.memory > allocatable.memory - requested.memory;
  // Runs on hundreds of nodes per pod, most of them fine or full: neither allocates.
  if (!tooMany && !cpu && !memory) return undefined;
  if (tooMany && !cpu && !memory) return TOO_MANY_PODS;
  const reasons: string[] = [];
  if (tooMany) reasons.push(ERR_REASON_TOO_MANY_PODS);
  if (cpu) reasons.push(ERR_REASON_INSUFFICIENT_CPU);
  if (memory) reasons.push(ERR_REASON_INSUFFICIENT_MEMORY);
  return { code: 'Unschedulable', reasons };
}
