/**
 * NodeAffinity: the pod's `nodeSelector` and its required node affinity must both match the
 * node (the matching itself is api/node-affinity.ts, shared with the DaemonSet controller).
 * The pod's selector is compiled once per scheduling attempt, then tried against many nodes.
 */
import { compileRequiredNodeAffinity, type NodeMatcher } from '../../../api/node-affinity.ts';
import type { FilterFailure, FilterResult, Node, Pod } from '../types.ts';

export const ERR_REASON_POD_AFFINITY = "node(s) didn't match Pod's node affinity/selector";

const NOT_MATCHED: FilterFailure = Object.freeze({ code: 'UnschedulableAndUnresolvable', reasons: Object.freeze([ERR_REASON_POD_AFFINITY]) });

export function compileNodeAffinity(pod: Pod): NodeMatcher {
  return compileRequiredNodeAffinity(pod.spec);
}

export function nodeAffinity(matches: NodeMatcher, node: Node): FilterResult {
  return matches(node) ? undefined : NOT_MATCHED;
}
