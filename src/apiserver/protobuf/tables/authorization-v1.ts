/**
 * Message tables for authorization.k8s.io/v1, the access reviews `kubectl auth can-i` sends as
 * protobuf. `extra` (a map of string lists) is not read: a body carrying it is refused and
 * should come as JSON. Notation: ../schema.ts.
 */
import type { MessageTable } from '../schema.ts';

export const authorizationV1: MessageTable = {
  SubjectAccessReview: {
    1: 'metadata: ObjectMeta',
    2: 'spec: SubjectAccessReviewSpec',
    3: 'status: SubjectAccessReviewStatus',
  },
  LocalSubjectAccessReview: {
    1: 'metadata: ObjectMeta',
    2: 'spec: SubjectAccessReviewSpec',
    3: 'status: SubjectAccessReviewStatus',
  },
  SubjectAccessReviewSpec: {
    1: 'resourceAttributes: ResourceAttributes',
    2: 'nonResourceAttributes: NonResourceAttributes',
    3: 'user: string',
    4: 'groups: []string',
    5: 'extra: unsupported',
    6: 'uid: string',
  },
  SelfSubjectAccessReview: {
    1: 'metadata: ObjectMeta',
    2: 'spec: SelfSubjectAccessReviewSpec',
    3: 'status: SubjectAccessReviewStatus',
  },
  SelfSubjectAccessReviewSpec: {
    1: 'resourceAttributes: ResourceAttributes',
    2: 'nonResourceAttributes: NonResourceAttributes',
  },
  ResourceAttributes: {
    1: 'namespace: string',
    2: 'verb: string',
    3: 'group: string',
    4: 'version: string',
    5: 'resource: string',
    6: 'subresource: string',
    7: 'name: string',
    8: 'fieldSelector: unsupported',
    9: 'labelSelector: unsupported',
  },
  NonResourceAttributes: {
    1: 'path: string',
    2: 'verb: string',
  },
  SubjectAccessReviewStatus: {
    1: 'allowed: bool!',
    2: 'reason: string',
    3: 'evaluationError: string',
    4: 'denied: bool',
  },
  SelfSubjectRulesReview: {
    1: 'metadata: ObjectMeta',
    2: 'spec: SelfSubjectRulesReviewSpec',
    3: 'status: SubjectRulesReviewStatus',
  },
  SubjectRulesReviewStatus: {
    1: 'resourceRules: []ResourceRule',
    2: 'nonResourceRules: []NonResourceRule',
    3: 'incomplete: bool!',
    4: 'evaluationError: string',
  },
  ResourceRule: {
    1: 'verbs: []string',
    2: 'apiGroups: []string',
    3: 'resources: []string',
    4: 'resourceNames: []string',
  },
  NonResourceRule: {
    1: 'verbs: []string',
    2: 'nonResourceURLs: []string',
  },
  SelfSubjectRulesReviewSpec: {
    1: 'namespace: string',
  },
};
