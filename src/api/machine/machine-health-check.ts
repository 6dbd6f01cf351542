/**
 * MachineHealthCheck (machine.openshift.io/v1beta1, namespaced, short names `mhc`, `mhcs`):
 * the Machines `selector` picks (all in the namespace when empty) are unhealthy when their Node
 * meets any of `unhealthyConditions` for its timeout, has not joined within
 * `nodeStartupTimeout`, or the Machine Failed; the health check deletes them (their MachineSet
 * replaces them) while no more than `maxUnhealthy` are unhealthy.
 *
 * LegacyMachineHealthCheck is the older healthchecking.openshift.io/v1alpha1 form the Machine
 * API Operator's README still shows: a selector only, with Ready not True for 5 minutes (plus
 * whatever ConfigMap `node-unhealthy-conditions` adds) meaning unhealthy.
 */
import { defineCustomResource, type ResourceOf } from '../crd/define.ts';
import { type Infer, required, s } from '../crd/schema-builder.ts';
import { labelSelector, objectReference } from '../machineconfiguration/common.ts';
import { group, machineAPIPayloadAnnotations, optionalFieldCondition, version } from './common.ts';

/** A Go duration as `metav1.Duration` accepts it: `300s`, `1.5h`, `2h45m`. */
const durationPattern = '^([0-9]+(\\.[0-9]+)?(ns|us|µs|ms|s|m|h))+$';

export const unhealthyCondition = s.object(
  {
    type: required(s.string({ minLength: 1, description: 'A Node condition type, such as Ready.' })),
    status: required(s.string({ minLength: 1, description: 'The condition status that counts as unhealthy: True, False or Unknown.' })),
    timeout: required(s.string({ pattern: durationPattern, description: 'How long the condition must have had that status, e.g. "300s", "1.5h" or "2h45m".' })),
  },
  { description: 'A Node condition type and status that, held for timeout, makes a Machine unhealthy.' },
);
export type UnhealthyCondition = Infer<typeof unhealthyCondition>;

/**
 * When `unhealthyConditions` is left out: Ready False or Unknown for five minutes, the
 * conditions OpenShift's and Cluster API's examples give (OpenShift's schema has no default; a
 * Shipyard addition so that a check written without conditions still checks readiness).
 */
export const defaultUnhealthyConditions: readonly UnhealthyCondition[] = [
  { type: 'Ready', status: 'False', timeout: '300s' },
  { type: 'Ready', status: 'Unknown', timeout: '300s' },
];

export const machineHealthCheckSpec = s.object(
  {
    selector: labelSelector('Which Machines to check; an empty selector selects every Machine in the namespace.'),
    unhealthyConditions: s.array(unhealthyCondition, {
      minItems: 1,
      default: defaultUnhealthyConditions,
      description: 'Node conditions that make a Machine unhealthy, ORed. Defaults to Ready False or Unknown for 300s.',
    }),
    maxUnhealthy: s.intOrString({
      pattern: '^((100|[0-9]{1,2})%|[0-9]+)$',
      default: '100%',
      description: 'Remediate only while at most this many (a number, or a percentage of the selected Machines) are unhealthy. 0 and 0% block all remediation.',
    }),
    nodeStartupTimeout: s.string({
      pattern: '^0|([0-9]+(\\.[0-9]+)?(ns|us|µs|ms|s|m|h))+$',
      default: '10m',
      description: 'A Machine without a Node for longer than this is unhealthy; "0" turns the check off.',
    }),
    remediationTemplate: s.describe(objectReference, 'A remediation template of an external remediation controller, which then remediates instead of deleting the Machine.'),
  },
  { description: 'The health check policy.' },
);
export type MachineHealthCheckSpec = Infer<typeof machineHealthCheckSpec>;

const count = (description: string) => s.integer({ minimum: 0, description });

export const machineHealthCheckStatus = s.object(
  {
    expectedMachines: count('The number of Machines the check selects.'),
    currentHealthy: count('The number of those that are healthy.'),
    remediationsAllowed: s.integer({ format: 'int32', minimum: 0, description: 'How many more remediations maxUnhealthy allows.' }),
    conditions: s.array(optionalFieldCondition, { description: 'The current state of the check (RemediationAllowed...).' }),
  },
  { description: 'The observed state of the check.' },
);
export type MachineHealthCheckStatus = Infer<typeof machineHealthCheckStatus>;

export const MachineHealthCheck = defineCustomResource({
  group,
  version,
  kind: 'MachineHealthCheck',
  plural: 'machinehealthchecks',
  shortNames: ['mhc', 'mhcs'],
  scope: 'Namespaced',
  description: 'Deletes the selected Machines whose Nodes stay unhealthy, so that their MachineSets replace them.',
  annotations: machineAPIPayloadAnnotations,
  spec: machineHealthCheckSpec,
  specRequired: false,
  status: machineHealthCheckStatus,
  printerColumns: [
    { name: 'MaxUnhealthy', type: 'string', jsonPath: '.spec.maxUnhealthy', description: 'Maximum number of unhealthy machines allowed' },
    { name: 'ExpectedMachines', type: 'integer', jsonPath: '.status.expectedMachines', description: 'Number of machines currently monitored' },
    { name: 'CurrentHealthy', type: 'integer', jsonPath: '.status.currentHealthy', description: 'Current observed healthy machines' },
  ],
});
export type MachineHealthCheck = ResourceOf<typeof MachineHealthCheck>;

export const legacyHealthCheckGroup = 'healthchecking.openshift.io';

export const LegacyMachineHealthCheck = defineCustomResource({
  group: legacyHealthCheckGroup,
  version: 'v1alpha1',
  kind: 'MachineHealthCheck',
  plural: 'machinehealthchecks',
  scope: 'Namespaced',
  description: 'The older form of MachineHealthCheck: the selected Machines are remediated when their Node is not Ready for 5 minutes, or meets a condition of ConfigMap node-unhealthy-conditions.',
  annotations: machineAPIPayloadAnnotations,
  spec: s.object({ selector: labelSelector('Which Machines to check.') }, { description: 'The health check policy.' }),
});
export type LegacyMachineHealthCheck = ResourceOf<typeof LegacyMachineHealthCheck>;
