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

/** What nodes outside a PreFilter's node names are reported with (kube's absent-nodes status). */
export const PRE_FILTERED: FilterFailure = Object.freeze({ code: 'UnschedulableAndUnresolvable', reasons: Object.freeze(["node(s) didn't satisfy plugin(s) [NodeAffinity]"]) });

/**
 * kube's NodeAffinity PreFilter: when every required term names nodes (`matchFields`
 * `metadata.name In`), only those nodes can match, and only they are filtered. A DaemonSet pod
 * is pinned this way, so it costs one node's filters, not a scan of the cluster. Undefined
 * when any term admits nodes by other means (then every node is a candidate), and also when
 * the terms name no node in common, which a full scan reports in the usual words.
 */
export function preFilterNodeNames(pod: Pod): ReadonlySet<string> | undefined {
  const terms = pod.spec?.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms;
  if (!terms?.length) return undefined;
  const names = new Set<string>();
  for (const term of terms) {
    let termNames: Set<string> | undefined;
    for (const r of term.matchFields ?? []) {
      if (r.key !== 'metadata.name' || r.operator !== 'In') continue;
      // Requirements within a term are ANDed.
      termNames = termNames ? new Set((r.values ?? []).filter((v) => termNames!.has(v))) : new Set(r.values ?? []);
    }
    if (!termNames) return undefined;
    for (const n of termNames) names.add(n);
  }
  return names.size ? names : undefined;
}
