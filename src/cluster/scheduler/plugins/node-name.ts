/**
 * NodeName: a pod that names a node (`spec.nodeName`) fits only that node. The scheduler
 * never sees such pods in practice (they are bound already), but the filter keeps the
 * decision functions complete for callers that ask "would this pod fit there?".
 */
import type { FilterResult, Node, Pod } from '../types.ts';

export const ERR_REASON_NODE_NAME = "node(s) didn't match the requested node name";

export function nodeName(pod: Pod, node: Node): FilterResult {
  const wanted = pod.spec?.nodeName;
  if (!wanted || wanted === node.metadata?.name) return undefined;
  return { code: 'UnschedulableAndUnresolvable', reasons: [ERR_REASON_NODE_NAME] };
}
