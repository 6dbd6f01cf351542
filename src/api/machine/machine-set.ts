/**
 * MachineSet (machine.openshift.io/v1beta1, namespaced, short name `ms`): keeps `replicas`
 * Machines made from `template` that match `selector`, adopting orphans that match and, when
 * scaling down, deleting by `deletePolicy` (Random, Newest, Oldest; Machines annotated
 * `machine.openshift.io/delete-machine` first). Edits to the template affect only Machines
 * created afterwards. The `scale` subresource makes `kubectl scale machineset` work; the
 * selector's string form in `status.labelSelector` is what `/scale` reports. What the API
 * server checks beyond the schema (a non-empty selector that matches the template's labels,
 * and does not change) is in `validate-machine-set.ts`.
 */
import { defineCustomResource, type ResourceOf } from '../crd/define.ts';
import { type Infer, s } from '../crd/schema-builder.ts';
import { labelSelector } from '../machineconfiguration/common.ts';
import { conditions, group, machineAPIPayloadAnnotations, objectMeta, version } from './common.ts';
import { machineAuthorities, machineSpec } from './machine.ts';

export const machineSetDeletePolicies = ['Random', 'Newest', 'Oldest'] as const;
export type MachineSetDeletePolicy = (typeof machineSetDeletePolicies)[number];

export const machineTemplateSpec = s.object(
  {
    metadata: objectMeta('Labels and annotations of the Machines made from this template; the labels must match the selector.'),
    spec: s.describe(machineSpec, 'The spec of the Machines made from this template.'),
  },
  { description: 'The Machine to create when there are fewer than `replicas`.' },
);
export type MachineTemplateSpec = Infer<typeof machineTemplateSpec>;

export const machineSetSpec = s.object(
  {
    replicas: s.integer({ format: 'int32', default: 1, description: 'The number of Machines wanted. Defaults to 1.' }),
    minReadySeconds: s.integer({ format: 'int32', description: 'How long a Machine\'s Node must have been Ready for the Machine to count as available. Defaults to 0.' }),
    deletePolicy: s.enum(machineSetDeletePolicies, {
      description: 'Which Machines go first when scaling down: Random (the default), Newest or Oldest. Machines annotated machine.openshift.io/delete-machine, and failed ones, go before all others.',
    }),
    selector: labelSelector('Which Machines count towards replicas. It must not be empty, must match the template\'s labels, and cannot be changed.'),
    template: machineTemplateSpec,
    authoritativeAPI: s.enum(machineAuthorities, { description: 'Which API (MachineAPI or ClusterAPI) manages this resource.' }),
  },
  { description: 'The desired state of the MachineSet.' },
);
export type MachineSetSpec = Infer<typeof machineSetSpec>;

const count = (description: string) => s.integer({ format: 'int32', description });

export const machineSetStatus = s.object(
  {
    replicas: count('The number of Machines the selector matches.'),
    fullyLabeledReplicas: count('The number of those Machines that carry every label of the template.'),
    readyReplicas: count('The number of Machines whose Node is Ready.'),
    availableReplicas: count('The number of Machines whose Node has been Ready for at least minReadySeconds.'),
    observedGeneration: s.integer({ format: 'int64', description: 'The generation of the spec the controller last acted on.' }),
    labelSelector: s.string({ description: 'The selector in string form (a=b,c in (d)), as the scale subresource reports it.' }),
    errorReason: s.string({ description: 'A terminal problem with the template, for machines (InvalidConfiguration).' }),
    errorMessage: s.string({ description: 'A terminal problem with the template, for people.' }),
    conditions,
  },
  { description: 'The observed state of the MachineSet.' },
);
export type MachineSetStatus = Infer<typeof machineSetStatus>;

export const MachineSet = defineCustomResource({
  group,
  version,
  kind: 'MachineSet',
  plural: 'machinesets',
  shortNames: ['ms'],
  scope: 'Namespaced',
  description: 'Keeps a number of Machines made from a template running.',
  annotations: machineAPIPayloadAnnotations,
  spec: machineSetSpec,
  specRequired: false,
  status: machineSetStatus,
  scale: { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas', labelSelectorPath: '.status.labelSelector' },
  printerColumns: [
    { name: 'Desired', type: 'integer', jsonPath: '.spec.replicas', description: 'Desired Replicas' },
    { name: 'Current', type: 'integer', jsonPath: '.status.replicas', description: 'Current Replicas' },
    { name: 'Ready', type: 'integer', jsonPath: '.status.readyReplicas', description: 'Ready Replicas' },
    // A string column, as OpenShift declares it.
    { name: 'Available', type: 'string', jsonPath: '.status.availableReplicas', description: 'Observed number of available replicas' },
    { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp', description: 'Machineset age' },
  ],
});
export type MachineSet = ResourceOf<typeof MachineSet>;
