/**
 * Message tables for meta/v1 (k8s.io/apimachinery): object metadata, owner references, label
 * selectors, conditions, and the DeleteOptions that DELETE requests carry. Field numbers are
 * protobuf wire facts from Kubernetes; the notation is described in ../schema.ts.
 */
import type { MessageTable } from '../schema.ts';

export const metaV1: MessageTable = {
  ObjectMeta: {
    1: 'name: string',
    2: 'generateName: string',
    3: 'namespace: string',
    4: 'selfLink: string',
    5: 'uid: string',
    6: 'resourceVersion: string',
    7: 'generation: int64',
    8: 'creationTimestamp: Time',
    9: 'deletionTimestamp: Time',
    10: 'deletionGracePeriodSeconds: int64!',
    11: 'labels: map<string>',
    12: 'annotations: map<string>',
    13: 'ownerReferences: []OwnerReference',
    14: 'finalizers: []string',
    17: 'managedFields: []ManagedFieldsEntry',
  },
  // What a typed client sends back from a GET (`kubectl certificate approve` PUTs the whole
  // object). FieldsV1 is `bytes Raw = 1` holding JSON, which is RawExtension's wire form.
  ManagedFieldsEntry: {
    1: 'manager: string',
    2: 'operation: string',
    3: 'apiVersion: string',
    4: 'time: Time',
    6: 'fieldsType: string',
    7: 'fieldsV1: RawExtension',
    8: 'subresource: string',
  },
  OwnerReference: {
    1: 'kind: string!',
    3: 'name: string!',
    4: 'uid: string!',
    5: 'apiVersion: string!',
    6: 'controller: bool!',
    7: 'blockOwnerDeletion: bool!',
  },
  LabelSelector: {
    1: 'matchLabels: map<string>',
    2: 'matchExpressions: []LabelSelectorRequirement',
  },
  LabelSelectorRequirement: {
    1: 'key: string!',
    2: 'operator: string!',
    3: 'values: []string',
  },
  Condition: {
    1: 'type: string!',
    2: 'status: string!',
    3: 'observedGeneration: int64',
    4: 'lastTransitionTime: Time',
    5: 'reason: string!',
    6: 'message: string!',
  },
  DeleteOptions: {
    1: 'gracePeriodSeconds: int64!',
    2: 'preconditions: Preconditions',
    3: 'orphanDependents: bool!',
    4: 'propagationPolicy: string!',
    5: 'dryRun: []string',
    6: 'ignoreStoreReadErrorWithClusterBreakingPotential: bool!',
  },
  Preconditions: {
    1: 'uid: string!',
    2: 'resourceVersion: string!',
  },
};
