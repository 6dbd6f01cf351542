/**
 * NodeAffinity: the pod's `nodeSelector` and its required node affinity must both match the
 * node. Node selector terms are ORed and the requirements inside a term ANDed; a term with no
 * requirements matches nothing. Label requirements support In, NotIn, Exists, DoesNotExist,
 * Gt and Lt (integers only); field requirements support `metadata.name` with In and NotIn.
 * The pod's selector is compiled once per scheduling attempt, then tried against many nodes.
 */
import type { V1NodeSelectorRequirement, V1NodeSelectorTerm } from '@kubernetes/client-node';
import type { DeepReadonly } from '../../../runtime/readonly.ts';
import type { FilterFailure, FilterResult, Labels, Node, Pod } from '../types.ts';

export const ERR_REASON_POD_AFFINITY = "node(s) didn't match Pod's node affinity/selector";

export type NodeMatcher = (node: Node) => boolean;

const NOT_MATCHED: FilterFailure = Object.freeze({ code: 'UnschedulableAndUnresolvable', reasons: Object.freeze([ERR_REASON_POD_AFFINITY]) });

type Requirement = DeepReadonly<V1NodeSelectorRequirement>;
type Check = (labels: Labels, name: string) => boolean;

const INTEGER = /^[+-]?\d+$/;

function labelCheck(req: Requirement): Check | undefined {
  const { key } = req;
  const values = req.values ?? [];
  const set = new Set(values);
  switch (req.operator) {
    case 'In':
      return (l) => key in l && set.has(l[key]);
    case 'NotIn':
      return (l) => !(key in l) || !set.has(l[key]);
    case 'Exists':
      return (l) => key in l;
    case 'DoesNotExist':
      return (l) => !(key in l);
    case 'Gt':
    case 'Lt': {
      if (values.length !== 1 || !INTEGER.test(values[0])) return undefined;
      const bound = Number(values[0]);
      const gt = req.operator === 'Gt';
      return (l) => {
        const v = l[key];
        if (v === undefined || !INTEGER.test(v)) return false;
        return gt ? Number(v) > bound : Number(v) < bound;
      };
    }
    default:
      return undefined;
  }
}

function fieldCheck(req: Requirement): Check | undefined {
  if (req.key !== 'metadata.name') return undefined;
  const set = new Set(req.values ?? []);
  if (req.operator === 'In') return (_l, name) => set.has(name);
  if (req.operator === 'NotIn') return (_l, name) => !set.has(name);
  return undefined;
}

/** A term that cannot be understood (bad operator, bad Gt value) matches no node. */
function compileTerm(term: DeepReadonly<V1NodeSelectorTerm>): Check | undefined {
  const exprs = term.matchExpressions ?? [];
  const fields = term.matchFields ?? [];
  if (exprs.length === 0 && fields.length === 0) return undefined;
  const checks: Check[] = [];
  for (const r of exprs) {
    const c = labelCheck(r);
    if (!c) return undefined;
    checks.push(c);
  }
  for (const r of fields) {
    const c = fieldCheck(r);
    if (!c) return undefined;
    checks.push(c);
  }
  return (l, name) => checks.every((c) => c(l, name));
}

export function compileNodeAffinity(pod: Pod): NodeMatcher {
  const selector = Object.entries(pod.spec?.nodeSelector ?? {});
  const required = pod.spec?.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution;
  const terms = required ? required.nodeSelectorTerms.map(compileTerm).filter((t): t is Check => t !== undefined) : undefined;
  if (selector.length === 0 && !terms) return () => true;
  return (node) => {
    const labels = node.metadata?.labels ?? {};
    for (const [k, v] of selector) if (labels[k] !== v) return false;
    if (!terms) return true;
    const name = node.metadata?.name ?? '';
    return terms.some((t) => t(labels, name));
  };
}

export function nodeAffinity(matches: NodeMatcher, node: Node): FilterResult {
  return matches(node) ? undefined : NOT_MATCHED;
}
