/**
 * Which nodes a pod's placement rules allow, as both the scheduler's NodeAffinity filter and the
 * DaemonSet controller (which decides placement itself before the scheduler sees the pod) ask
 * it: `spec.nodeSelector` must match, and so must the required node affinity, whose
 * `nodeSelectorTerms` are ORed and whose requirements inside a term are ANDed. A term with no
 * requirements, or one that cannot be understood (an unknown operator, a Gt/Lt bound that is not
 * one integer, a field other than `metadata.name`), matches no node, so a malformed term can
 * only keep a pod off nodes. Label requirements take In, NotIn, Exists, DoesNotExist, Gt and Lt
 * and match as label selectors do; field requirements take `metadata.name` with In and NotIn.
 *
 * Matchers are compiled once per pod (or DaemonSet template), then tried against many nodes.
 */
import { matchesLabelSet, matchesRequirement, type LabelOperator, type LabelRequirement, type Labels } from './label-selector.ts';

export interface NodeSelectorRequirement {
  readonly key: string;
  readonly operator: string;
  readonly values?: readonly string[] | null;
}

export interface NodeSelectorTerm {
  readonly matchExpressions?: readonly NodeSelectorRequirement[] | null;
  readonly matchFields?: readonly NodeSelectorRequirement[] | null;
}

/** `v1.NodeSelector`: the required half of node affinity. */
export interface NodeSelector {
  readonly nodeSelectorTerms?: readonly NodeSelectorTerm[] | null;
}

/** The parts of a PodSpec that constrain which node it may run on. */
export interface NodePlacementSpec {
  readonly nodeSelector?: Readonly<Record<string, string>> | null;
  readonly affinity?: { readonly nodeAffinity?: { readonly requiredDuringSchedulingIgnoredDuringExecution?: NodeSelector | null } | null } | null;
}

export interface NodeLike {
  readonly metadata?: { readonly name?: string; readonly labels?: Readonly<Record<string, string>> | null } | null;
}

export type NodeMatcher = (node: NodeLike) => boolean;

/** A compiled node selector, given a node's labels and name. */
export type NodeSelectorMatcher = (labels: Labels, name: string) => boolean;

const labelOperators = new Map<string, LabelOperator>([
  ['In', 'in'],
  ['NotIn', 'notin'],
  ['Exists', 'exists'],
  ['DoesNotExist', '!'],
  ['Gt', 'gt'],
  ['Lt', 'lt'],
]);

/**
 * Unlike a label selector's, keys and values are taken as they are (kube would drop a term with
 * a malformed one): In with no values matches no node, NotIn with none every node, and a Gt/Lt
 * bound that is not one integer no node.
 */
function labelCheck(req: NodeSelectorRequirement): NodeSelectorMatcher | undefined {
  const operator = labelOperators.get(req.operator);
  if (!operator) return undefined;
  const requirement: LabelRequirement = { key: req.key, operator, values: req.values ?? [] };
  return (labels) => matchesRequirement(requirement, labels);
}

function fieldCheck(req: NodeSelectorRequirement): NodeSelectorMatcher | undefined {
  if (req.key !== 'metadata.name') return undefined;
  const names = new Set(req.values ?? []);
  if (req.operator === 'In') return (_labels, name) => names.has(name);
  if (req.operator === 'NotIn') return (_labels, name) => !names.has(name);
  return undefined;
}

/** Undefined for a term that matches no node (empty, or not understood). */
function compileTerm(term: NodeSelectorTerm): NodeSelectorMatcher | undefined {
  const checks: NodeSelectorMatcher[] = [];
  for (const r of term.matchExpressions ?? []) {
    const c = labelCheck(r);
    if (!c) return undefined;
    checks.push(c);
  }
  for (const r of term.matchFields ?? []) {
    const c = fieldCheck(r);
    if (!c) return undefined;
    checks.push(c);
  }
  if (checks.length === 0) return undefined;
  return (labels, name) => checks.every((c) => c(labels, name));
}

/** A NodeSelector as a predicate: any of its terms matches. No terms match no node. */
export function compileNodeSelector(selector: NodeSelector): NodeSelectorMatcher {
  const terms = (selector.nodeSelectorTerms ?? []).map(compileTerm).filter((t): t is NodeSelectorMatcher => t !== undefined);
  return (labels, name) => terms.some((t) => t(labels, name));
}

/** The pod's `nodeSelector` and required node affinity together (kube's `GetRequiredNodeAffinity`); neither set matches every node. */
export function compileRequiredNodeAffinity(spec: NodePlacementSpec | null | undefined): NodeMatcher {
  const nodeSelector = spec?.nodeSelector ?? {};
  const hasNodeSelector = Object.keys(nodeSelector).length > 0;
  const required = spec?.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution;
  const affinity = required ? compileNodeSelector(required) : undefined;
  if (!hasNodeSelector && !affinity) return () => true;
  return (node) => {
    const labels = node.metadata?.labels ?? {};
    if (!matchesLabelSet(nodeSelector, labels)) return false;
    return !affinity || affinity(labels, node.metadata?.name ?? '');
  };
}
