/**
 * Message tables for core/v1 pod scheduling: tolerations, node and pod (anti-)affinity, and
 * topology spread constraints. Notation: ../schema.ts.
 */
import type { MessageTable } from '../schema.ts';

export const coreV1Scheduling: MessageTable = {
  Toleration: {
    1: 'key: string',
    2: 'operator: string',
    3: 'value: string',
    4: 'effect: string',
    5: 'tolerationSeconds: int64!',
  },
  Affinity: {
    1: 'nodeAffinity: NodeAffinity',
    2: 'podAffinity: PodAffinity',
    3: 'podAntiAffinity: PodAntiAffinity',
  },
  NodeAffinity: {
    1: 'requiredDuringSchedulingIgnoredDuringExecution: NodeSelector',
    2: 'preferredDuringSchedulingIgnoredDuringExecution: []PreferredSchedulingTerm',
  },
  NodeSelector: {
    1: 'nodeSelectorTerms: []NodeSelectorTerm',
  },
  NodeSelectorTerm: {
    1: 'matchExpressions: []NodeSelectorRequirement',
    2: 'matchFields: []NodeSelectorRequirement',
  },
  NodeSelectorRequirement: {
    1: 'key: string!',
    2: 'operator: string!',
    3: 'values: []string',
  },
  PreferredSchedulingTerm: {
    1: 'weight: int32!',
    2: 'preference: NodeSelectorTerm',
  },
  PodAffinity: {
    1: 'requiredDuringSchedulingIgnoredDuringExecution: []PodAffinityTerm',
    2: 'preferredDuringSchedulingIgnoredDuringExecution: []WeightedPodAffinityTerm',
  },
  PodAntiAffinity: {
    1: 'requiredDuringSchedulingIgnoredDuringExecution: []PodAffinityTerm',
    2: 'preferredDuringSchedulingIgnoredDuringExecution: []WeightedPodAffinityTerm',
  },
  PodAffinityTerm: {
    1: 'labelSelector: LabelSelector',
    2: 'namespaces: []string',
    3: 'topologyKey: string!',
    4: 'namespaceSelector: LabelSelector',
    5: 'matchLabelKeys: []string',
    6: 'mismatchLabelKeys: []string',
  },
  WeightedPodAffinityTerm: {
    1: 'weight: int32!',
    2: 'podAffinityTerm: PodAffinityTerm',
  },
  TopologySpreadConstraint: {
    1: 'maxSkew: int32!',
    2: 'topologyKey: string!',
    3: 'whenUnsatisfiable: string!',
    4: 'labelSelector: LabelSelector',
    5: 'minDomains: int32!',
    6: 'nodeAffinityPolicy: string!',
    7: 'nodeTaintsPolicy: string!',
    8: 'matchLabelKeys: []string',
  },
};
