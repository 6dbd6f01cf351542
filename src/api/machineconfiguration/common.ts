/**
 * What the machineconfiguration.openshift.io/v1 kinds share: the group, the labels and
 * annotations the Machine Config Operator's components coordinate through (a MachineConfig's
 * role, the controller version on generated configs, a node's current and desired config), and
 * the schema pieces several kinds embed (label selectors, object references, the conditions
 * whose every field is optional).
 */
import { type Infer, required, s } from '../crd/schema-builder.ts';

export const group = 'machineconfiguration.openshift.io';
export const version = 'v1';

/**
 * Grouping for `kubectl get machineconfiguration` (OpenShift declares none; a Shipyard
 * addition so one command lists pools, configs and their inputs).
 */
export const categories = ['machineconfiguration'] as const;

/** A MachineConfig's pool membership, by convention (`machineconfiguration.openshift.io/role: worker`). */
export const roleLabel = `${group}/role`;

/** Annotations the controllers set on the MachineConfigs they generate. */
export const machineConfigAnnotations = {
  /** The controller version that generated a config; its presence marks a config as not the user's. */
  generatedByControllerVersion: `${group}/generated-by-controller-version`,
  releaseImageVersion: `${group}/release-image-version`,
  osImageURLOverridden: `${group}/os-image-url-overridden`,
} as const;

/** Node annotations through which the node controller and the daemon on each node coordinate. */
export const nodeAnnotations = {
  currentConfig: `${group}/currentConfig`,
  desiredConfig: `${group}/desiredConfig`,
  state: `${group}/state`,
  reason: `${group}/reason`,
  desiredDrain: `${group}/desiredDrain`,
  lastAppliedDrain: `${group}/lastAppliedDrain`,
  postConfigAction: `${group}/post-config-action`,
} as const;

/** Values of the node `state` annotation. */
export const machineConfigDaemonStates = ['Done', 'Working', 'Degraded', 'Unreconcilable'] as const;
export type MachineConfigDaemonState = (typeof machineConfigDaemonStates)[number];

export const conditionStatus = ['True', 'False', 'Unknown'] as const;
export type ConditionStatus = (typeof conditionStatus)[number];

/** metav1.LabelSelector as OpenShift's CRDs embed it: atomic, operators not enumerated in the schema. */
export const labelSelector = (description: string) =>
  s.object(
    {
      matchExpressions: s.array(
        s.object({
          key: required(s.string({ description: 'The label key the selector applies to.' })),
          operator: required(s.string({ description: 'In, NotIn, Exists or DoesNotExist.' })),
          values: s.array(s.string(), { listType: 'atomic' }),
        }),
        { listType: 'atomic', description: 'Label selector requirements, ANDed.' },
      ),
      matchLabels: s.map(s.string(), { description: 'Each {key,value} pair is a requirement "key In (value)", ANDed.' }),
    },
    { mapType: 'atomic', description },
  );
export type LabelSelector = Infer<ReturnType<typeof labelSelector>>;

const objectReferenceFields = {
  apiVersion: s.string({ description: 'API version of the referent.' }),
  fieldPath: s.string(),
  kind: s.string({ description: 'Kind of the referent.' }),
  name: s.string({ description: 'Name of the referent.' }),
  namespace: s.string({ description: 'Namespace of the referent.' }),
  resourceVersion: s.string(),
  uid: s.string({ description: 'UID of the referent.' }),
};

/** corev1.ObjectReference. */
export const objectReference = s.object(objectReferenceFields, { mapType: 'atomic' });
export type ObjectReference = Infer<typeof objectReference>;

/** A pool's target: the rendered MachineConfig's reference and, in `source`, the MachineConfigs it was rendered from. */
export const machineConfigPoolStatusConfiguration = s.object(
  {
    ...objectReferenceFields,
    source: s.array(objectReference, { listType: 'atomic', description: 'The MachineConfigs the rendered configuration was generated from.' }),
  },
  { mapType: 'atomic' },
);
export type MachineConfigPoolStatusConfiguration = Infer<typeof machineConfigPoolStatusConfiguration>;

/**
 * The condition of a MachineConfigPool or a KubeletConfig: unlike metav1.Condition, nothing is
 * required, the transition time may be null and the list is atomic, as OpenShift declares them.
 */
export const optionalFieldCondition = s.object({
  type: s.string(),
  status: s.stringOf<ConditionStatus>({ description: 'True, False or Unknown.' }),
  lastTransitionTime: s.nullable(s.time({ description: 'When status last changed.' })),
  reason: s.string({ description: 'A machine-readable CamelCase cause.' }),
  message: s.string({ description: 'A human-readable explanation.' }),
});
