/**
 * NodeUnschedulable: a cordoned node (`spec.unschedulable`) takes no new pods, unless the pod
 * tolerates the taint that cordoning stands for, `node.kubernetes.io/unschedulable:NoSchedule`
 * (DaemonSet pods do, so a cordoned node still gets its daemons).
 */
import { toleratesTaint } from '../../../api/taints.ts';
import type { FilterFailure, FilterResult, Node, Pod } from '../types.ts';

export const ERR_REASON_UNSCHEDULABLE = 'node(s) were unschedulable';
export const TAINT_NODE_UNSCHEDULABLE = 'node.kubernetes.io/unschedulable';

const UNSCHEDULABLE: FilterFailure = Object.freeze({ code: 'UnschedulableAndUnresolvable', reasons: Object.freeze([ERR_REASON_UNSCHEDULABLE]) });

export function nodeUnschedulable(pod: Pod, node: Node): FilterResult {
  if (!node.spec?.unschedulable) return undefined;
  if (toleratesTaint(pod.spec?.tolerations, { key: TAINT_NODE_UNSCHEDULABLE, effect: 'NoSchedule' })) return undefined;
  return UNSCHEDULABLE;
}
