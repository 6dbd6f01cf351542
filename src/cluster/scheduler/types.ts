/**
 * The scheduler's own view of pods and nodes. Filters and scores run hundreds of times per
 * pod on a large cluster, so what they need is computed once, when an object arrives from the
 * informer: a pod's requests in millicores and bytes, its affinity terms compiled to
 * predicates; a node's allocatable and what its pods already request. These are the shapes of
 * kube-scheduler's PodInfo and NodeInfo, reduced to what Shipyard's filters read.
 */
import type { V1Node, V1Pod } from '@kubernetes/client-node';
import type { LabelMatcher } from '../../api/label-selector.ts';
import type { DeepReadonly } from '../../runtime/readonly.ts';

export type Pod = DeepReadonly<V1Pod>;
export type Node = DeepReadonly<V1Node>;
export type Labels = Readonly<Record<string, string>>;

/**
 * Why a filter refused a node, with kube's two failure codes: `Unschedulable` when evicting
 * lower-priority pods could make room (resources, pod anti-affinity), `UnschedulableAndUnresolvable`
 * when nothing on the node can change the answer (labels, taints, cordon). The code decides
 * what the "preemption:" half of the FailedScheduling message says about the node.
 */
export interface FilterFailure {
  readonly code: 'Unschedulable' | 'UnschedulableAndUnresolvable';
  /** kube-scheduler's exact wording; several when one plugin finds several (cpu and memory). */
  readonly reasons: readonly string[];
}

export type FilterResult = FilterFailure | undefined;

export interface Resources {
  /** Millicores. */
  readonly milliCpu: number;
  /** Bytes. */
  readonly memory: number;
}

/** A pod (anti-)affinity term, compiled: which pods it selects, and over which topology. */
export interface AffinityTerm {
  readonly matchesLabels: LabelMatcher;
  /** Namespaces named by the term (the pod's own when it names none and has no selector). */
  readonly namespaces: ReadonlySet<string>;
  /** Set when the term has a namespaceSelector; matched against the namespace's labels. */
  readonly matchesNamespace?: LabelMatcher;
  readonly topologyKey: string;
}

export interface PodInfo {
  /** `namespace/name`, the informer's key. */
  readonly key: string;
  readonly uid: string;
  readonly namespace: string;
  readonly labels: Labels;
  /** '' while unassigned. */
  readonly nodeName: string;
  /** What the pod reserves on a node: what NodeResourcesFit compares with allocatable. */
  readonly requests: Resources;
  /** Requests with kube's defaults (100m, 200Mi) for containers that state none: for scoring only. */
  readonly nonZeroRequests: Resources;
  /** UID of the controlling owner, for spreading replicas of one controller. */
  readonly owner: string | undefined;
  readonly priority: number;
  readonly requiredAffinity: readonly AffinityTerm[];
  readonly requiredAntiAffinity: readonly AffinityTerm[];
  readonly pod: Pod;
}

export interface Allocatable extends Resources {
  readonly pods: number;
}

/** A node and the aggregates of the pods on it, maintained incrementally by the cache. */
export interface NodeInfo {
  readonly name: string;
  readonly node: Node;
  readonly allocatable: Allocatable;
  readonly requested: Resources;
  readonly nonZeroRequested: Resources;
  readonly pods: ReadonlyMap<string, PodInfo>;
  /** Pods on the node controlled by the owner with this UID. */
  ownerCount(ownerUid: string): number;
}
