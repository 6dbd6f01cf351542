/**
 * TaintToleration: a node with a NoSchedule or NoExecute taint the pod does not tolerate is
 * refused, naming the first such taint as kube-scheduler 1.32 does
 * ("node(s) had untolerated taint {key: value}"). PreferNoSchedule only steers scoring in
 * Kubernetes and is ignored here. No eviction on a change of heart helps, so the failure is
 * unresolvable.
 */
import { findUntoleratedTaint, type Taint } from '../../../api/taints.ts';
import type { FilterResult, Node, Pod } from '../types.ts';

export const untoleratedTaintReason = (taint: Taint): string => `node(s) had untolerated taint {${taint.key}: ${taint.value ?? ''}}`;

const blocksScheduling = (taint: Taint): boolean => taint.effect === 'NoSchedule' || taint.effect === 'NoExecute';

export function taintToleration(pod: Pod, node: Node): FilterResult {
  const taint = findUntoleratedTaint(node.spec?.taints, pod.spec?.tolerations, blocksScheduling);
  return taint ? { code: 'UnschedulableAndUnresolvable', reasons: [untoleratedTaintReason(taint)] } : undefined;
}
