/**
 * Message tables for rbac.authorization.k8s.io/v1, which `kubectl create role|clusterrole|
 * rolebinding|clusterrolebinding` send as protobuf. Notation: ../schema.ts.
 */
import type { MessageTable } from '../schema.ts';

export const rbacV1: MessageTable = {
  Role: {
    1: 'metadata: ObjectMeta',
    2: 'rules: []PolicyRule',
  },
  ClusterRole: {
    1: 'metadata: ObjectMeta',
    2: 'rules: []PolicyRule',
    3: 'aggregationRule: AggregationRule',
  },
  AggregationRule: {
    1: 'clusterRoleSelectors: []LabelSelector',
  },
  PolicyRule: {
    1: 'verbs: []string',
    2: 'apiGroups: []string',
    3: 'resources: []string',
    4: 'resourceNames: []string',
    5: 'nonResourceURLs: []string',
  },
  RoleBinding: {
    1: 'metadata: ObjectMeta',
    2: 'subjects: []Subject',
    3: 'roleRef: RoleRef',
  },
  ClusterRoleBinding: {
    1: 'metadata: ObjectMeta',
    2: 'subjects: []Subject',
    3: 'roleRef: RoleRef',
  },
  Subject: {
    1: 'kind: string!',
    2: 'apiGroup: string',
    3: 'name: string!',
    4: 'namespace: string',
  },
  RoleRef: {
    1: 'apiGroup: string!',
    2: 'kind: string!',
    3: 'name: string!',
  },
};
