/**
 * Builds the scheduler's PodInfo from a pod: requests, controlling owner, priority and the
 * required pod (anti-)affinity terms compiled once, since every filter pass over every node
 * reads them. Also the two questions the scheduler asks of a raw pod: is it waiting for this
 * scheduler, and does it still occupy its node.
 */
import type { V1LabelSelector, V1PodAffinityTerm } from '@kubernetes/client-node';
import { compileLabelSelector, selectsNothing, type LabelMatcher } from '../../api/label-selector.ts';
import { objectKey } from '../../runtime/cache.ts';
import { controllerOf } from '../../runtime/controller.ts';
import type { DeepReadonly } from '../../runtime/readonly.ts';
import { podRequests } from './pod-requests.ts';
import type { AffinityTerm, Pod, PodInfo } from './types.ts';

export const DEFAULT_SCHEDULER_NAME = 'default-scheduler';

/** A selector Kubernetes would reject selects nothing: affinity to it cannot be met, and anti-affinity to it excludes no node. */
function compileSelector(selector: DeepReadonly<V1LabelSelector> | undefined): LabelMatcher {
  return compileLabelSelector(selector).matches ?? selectsNothing;
}

function compileTerm(namespace: string, term: DeepReadonly<V1PodAffinityTerm>): AffinityTerm {
  const named = term.namespaces ?? [];
  return {
    matchesLabels: compileSelector(term.labelSelector),
    namespaces: new Set(named.length === 0 && !term.namespaceSelector ? [namespace] : named),
    matchesNamespace: term.namespaceSelector ? compileSelector(term.namespaceSelector) : undefined,
    topologyKey: term.topologyKey,
  };
}

/** Most pods have no pod (anti-)affinity: one shared empty list rather than two per cached pod. */
const NO_TERMS: readonly AffinityTerm[] = Object.freeze([]);

function compileTerms(namespace: string, terms: readonly DeepReadonly<V1PodAffinityTerm>[] | undefined): readonly AffinityTerm[] {
  return terms?.length ? terms.map((t) => compileTerm(namespace, t)) : NO_TERMS;
}

export function podInfo(pod: Pod): PodInfo {
  const namespace = pod.metadata?.namespace ?? '';
  const { requests, nonZero } = podRequests(pod.spec);
  const affinity = pod.spec?.affinity;
  return {
    key: objectKey(pod),
    uid: pod.metadata?.uid ?? '',
    namespace,
    labels: pod.metadata?.labels ?? {},
    nodeName: pod.spec?.nodeName ?? '',
    requests,
    nonZeroRequests: nonZero,
    owner: controllerOf(pod)?.uid,
    priority: pod.spec?.priority ?? 0,
    requiredAffinity: compileTerms(namespace, affinity?.podAffinity?.requiredDuringSchedulingIgnoredDuringExecution),
    requiredAntiAffinity: compileTerms(namespace, affinity?.podAntiAffinity?.requiredDuringSchedulingIgnoredDuringExecution),
    pod,
  };
}

/** Succeeded and Failed pods hold nothing on their node (kube-scheduler does not even watch them). */
export function isTerminal(pod: Pod): boolean {
  const phase = pod.status?.phase;
  return phase === 'Succeeded' || phase === 'Failed';
}

/** Unbound, not being deleted, not gated, and addressed to `schedulerName` (the API server defaults an empty name). */
export function awaitsScheduling(pod: Pod, schedulerName: string): boolean {
  if (pod.spec?.nodeName || pod.metadata?.deletionTimestamp || isTerminal(pod)) return false;
  if ((pod.spec?.schedulingGates ?? []).length > 0) return false;
  const name = pod.spec?.schedulerName || DEFAULT_SCHEDULER_NAME;
  return name === schedulerName;
}

/** Whether a term selects `pod`, given the labels of the pod's namespace (for namespaceSelector). */
export function termMatches(term: AffinityTerm, pod: PodInfo, namespaceLabels: (ns: string) => Readonly<Record<string, string>> | undefined): boolean {
  const inNamespace = term.namespaces.has(pod.namespace) || (term.matchesNamespace !== undefined && term.matchesNamespace(namespaceLabels(pod.namespace)));
  return inNamespace && term.matchesLabels(pod.labels);
}
