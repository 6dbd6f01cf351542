/**
 * InterPodAffinity, required terms only. A term selects pods (by labels, in some namespaces)
 * and names a topology key; two nodes are in the same topology domain when they carry the same
 * value for that key (`kubernetes.io/hostname` makes each node its own domain, a zone label
 * groups nodes). Three checks, in kube-scheduler's order:
 * - the pod's affinity: every term needs a matching pod in the node's domain ("node(s) didn't
 *   match pod affinity rules"), except for the first pod of a group that selects itself;
 * - the pod's anti-affinity: no term may have a matching pod in the node's domain ("node(s)
 *   didn't match pod anti-affinity rules");
 * - existing pods' anti-affinity: no pod already placed may have a term that selects this pod
 *   and covers the node's domain ("node(s) didn't satisfy existing pods anti-affinity rules").
 *
 * `preFilterInterPodAffinity` counts matching pods per (topology key, value) once per pod, so
 * the per-node filter is a few map lookups. It returns undefined when there is nothing to
 * check, which is the common case and costs one pass over the pods that have anti-affinity.
 */
import { termMatches } from '../pod-info.ts';
import type { AffinityTerm, FilterResult, Labels, Node, PodInfo } from '../types.ts';

export const ERR_REASON_AFFINITY_RULES = "node(s) didn't match pod affinity rules";
export const ERR_REASON_ANTI_AFFINITY_RULES = "node(s) didn't match pod anti-affinity rules";
export const ERR_REASON_EXISTING_ANTI_AFFINITY_RULES = "node(s) didn't satisfy existing pods anti-affinity rules";

/** What the filter needs to know about the pods already placed. */
export interface PodAffinityView {
  /** Pods placed (or assumed) on nodes, in one namespace. */
  podsInNamespace(namespace: string): Iterable<PodInfo>;
  /** Namespaces that have placed pods. */
  namespacesWithPods(): Iterable<string>;
  namespaceLabels(namespace: string): Labels | undefined;
  /** Placed pods with at least one required anti-affinity term. */
  podsWithRequiredAntiAffinity(): Iterable<PodInfo>;
  nodeLabels(nodeName: string): Labels | undefined;
}

export interface InterPodAffinityState {
  readonly pod: PodInfo;
  readonly affinityCounts: ReadonlyMap<string, number>;
  readonly antiAffinityCounts: ReadonlyMap<string, number>;
  readonly existingAntiAffinityCounts: ReadonlyMap<string, number>;
}

const pair = (key: string, value: string): string => `${key}\u0000${value}`;

function bump(counts: Map<string, number>, labels: Labels, key: string): void {
  const value = labels[key];
  if (value === undefined) return;
  const p = pair(key, value);
  counts.set(p, (counts.get(p) ?? 0) + 1);
}

/** The namespaces whose pods some term could select. */
function candidateNamespaces(terms: readonly AffinityTerm[], view: PodAffinityView): Iterable<string> {
  if (terms.some((t) => t.matchesNamespace)) return view.namespacesWithPods();
  const out = new Set<string>();
  for (const t of terms) for (const ns of t.namespaces) out.add(ns);
  return out;
}

export function preFilterInterPodAffinity(pod: PodInfo, view: PodAffinityView): InterPodAffinityState | undefined {
  const nsLabels = (ns: string): Labels | undefined => view.namespaceLabels(ns);
  const existingAntiAffinityCounts = new Map<string, number>();
  for (const other of view.podsWithRequiredAntiAffinity()) {
    if (other.key === pod.key) continue;
    const labels = view.nodeLabels(other.nodeName);
    if (!labels) continue;
    for (const term of other.requiredAntiAffinity) if (termMatches(term, pod, nsLabels)) bump(existingAntiAffinityCounts, labels, term.topologyKey);
  }

  const affinityCounts = new Map<string, number>();
  const antiAffinityCounts = new Map<string, number>();
  const { requiredAffinity: affinity, requiredAntiAffinity: anti } = pod;
  if (affinity.length || anti.length) {
    for (const ns of candidateNamespaces([...affinity, ...anti], view)) {
      for (const other of view.podsInNamespace(ns)) {
        if (other.key === pod.key) continue;
        const labels = view.nodeLabels(other.nodeName);
        if (!labels) continue;
        // An existing pod supports the affinity only if it matches all of the terms.
        if (affinity.length && affinity.every((t) => termMatches(t, other, nsLabels))) for (const t of affinity) bump(affinityCounts, labels, t.topologyKey);
        for (const t of anti) if (termMatches(t, other, nsLabels)) bump(antiAffinityCounts, labels, t.topologyKey);
      }
    }
  } else if (existingAntiAffinityCounts.size === 0) {
    return undefined;
  }
  return { pod, affinityCounts, antiAffinityCounts, existingAntiAffinityCounts };
}

function satisfiesAffinity(state: InterPodAffinityState, labels: Labels, nsLabels: (ns: string) => Labels | undefined): boolean {
  let podsExist = true;
  for (const term of state.pod.requiredAffinity) {
    const value = labels[term.topologyKey];
    // The node must carry every topology key the pod's affinity names.
    if (value === undefined) return false;
    if (!state.affinityCounts.get(pair(term.topologyKey, value))) podsExist = false;
  }
  if (podsExist) return true;
  // The first pod of a group with affinity to itself has nobody to be near; without this it
  // would wait forever.
  return state.affinityCounts.size === 0 && state.pod.requiredAffinity.every((t) => termMatches(t, state.pod, nsLabels));
}

function satisfiesAntiAffinity(state: InterPodAffinityState, labels: Labels): boolean {
  if (state.antiAffinityCounts.size === 0) return true;
  for (const term of state.pod.requiredAntiAffinity) {
    const value = labels[term.topologyKey];
    if (value !== undefined && state.antiAffinityCounts.get(pair(term.topologyKey, value))) return false;
  }
  return true;
}

function satisfiesExistingAntiAffinity(state: InterPodAffinityState, labels: Labels): boolean {
  if (state.existingAntiAffinityCounts.size === 0) return true;
  for (const [key, value] of Object.entries(labels)) if (state.existingAntiAffinityCounts.get(pair(key, value))) return false;
  return true;
}

export function interPodAffinity(state: InterPodAffinityState | undefined, node: Node, view: Pick<PodAffinityView, 'namespaceLabels'>): FilterResult {
  if (!state) return undefined;
  const labels = node.metadata?.labels ?? {};
  if (!satisfiesAffinity(state, labels, (ns) => view.namespaceLabels(ns))) return { code: 'UnschedulableAndUnresolvable', reasons: [ERR_REASON_AFFINITY_RULES] };
  if (!satisfiesAntiAffinity(state, labels)) return { code: 'Unschedulable', reasons: [ERR_REASON_ANTI_AFFINITY_RULES] };
  if (!satisfiesExistingAntiAffinity(state, labels)) return { code: 'Unschedulable', reasons: [ERR_REASON_EXISTING_ANTI_AFFINITY_RULES] };
  return undefined;
}
