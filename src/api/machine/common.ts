/**
 * What the machine.openshift.io/v1beta1 kinds share: the group, the payload annotations their
 * CRDs carry, and the schema pieces several kinds embed — the Machine API's own condition
 * (with `severity`), the subset of ObjectMeta a Machine and a MachineSet template carry, and a
 * Node taint as the Machine copies it onto its Node.
 */
import { includedInPayload } from '../config/common.ts';
import { type Infer, required, s } from '../crd/schema-builder.ts';

export const group = 'machine.openshift.io';
export const version = 'v1beta1';

/** As OpenShift annotates the Machine API's CRDs: in the self-managed profile, not in hosted control planes. */
export const machineAPIPayloadAnnotations = { ...includedInPayload, 'exclude.release.openshift.io/internal-openshift-hosted': 'true' } as const;

export const conditionStatus = ['True', 'False', 'Unknown'] as const;
export type ConditionStatus = (typeof conditionStatus)[number];

/** How serious a condition with status False is (set only then). */
export type ConditionSeverity = 'Error' | 'Warning' | 'Info' | '';

const conditionFields = {
  type: s.string({ description: 'Type of condition in CamelCase or in foo.example.com/CamelCase.' }),
  status: s.stringOf<ConditionStatus>({ description: 'Status of the condition, one of True, False, Unknown.' }),
  severity: s.stringOf<ConditionSeverity>({ description: 'How serious the condition is (Error, Warning or Info); set only when status is False.' }),
  lastTransitionTime: s.time({ description: 'When the condition last changed status.' }),
  reason: s.string({ description: 'The reason for the last transition, in CamelCase.' }),
  message: s.string({ description: 'A human-readable explanation of the transition.' }),
};

/** A Machine or MachineSet condition: type, status and transition time required, as OpenShift declares them. */
export const condition = s.object({
  ...conditionFields,
  type: required(conditionFields.type),
  status: required(conditionFields.status),
  lastTransitionTime: required(conditionFields.lastTransitionTime),
});
export type Condition = Infer<typeof condition>;

/** A MachineHealthCheck condition: OpenShift's schema requires none of its fields. */
export const optionalFieldCondition = s.object(conditionFields);

/** conditions keyed by type, as Machine and MachineSet status declare them. */
export const conditions = s.array(condition, { listType: 'map', listMapKeys: ['type'], description: 'The current state, one entry per condition type.' });

const ownerReference = s.object(
  {
    apiVersion: required(s.string({ description: 'API version of the referent.' })),
    kind: required(s.string({ description: 'Kind of the referent.' })),
    name: required(s.string({ description: 'Name of the referent.' })),
    uid: required(s.string({ description: 'UID of the referent.' })),
    controller: s.boolean({ description: 'Whether the referent is the managing controller.' }),
    blockOwnerDeletion: s.boolean({ description: 'Whether the owner waits for this object under foreground deletion.' }),
  },
  { mapType: 'atomic' },
);

/** The part of ObjectMeta a Machine passes on (to its Node) or a MachineSet to its Machines. */
export const objectMeta = (description: string) =>
  s.object(
    {
      labels: s.map(s.string(), { description: 'Labels to set.' }),
      annotations: s.map(s.string(), { description: 'Annotations to set.' }),
      generateName: s.string({ description: 'A name prefix for generated names.' }),
      name: s.string(),
      namespace: s.string(),
      ownerReferences: s.array(ownerReference, { listType: 'map', listMapKeys: ['uid'] }),
    },
    { description },
  );
export type ObjectMeta = Infer<ReturnType<typeof objectMeta>>;

/** corev1.Taint; the effect is not enumerated in OpenShift's schema. */
export const taint = s.object({
  key: required(s.string({ description: 'The taint key.' })),
  value: s.string({ description: 'The taint value.' }),
  effect: required(s.string({ description: 'NoSchedule, PreferNoSchedule or NoExecute.' })),
  timeAdded: s.time({ description: 'When the taint was added (NoExecute taints only).' }),
});
export type Taint = Infer<typeof taint>;
