/**
 * MachineConfigPool (machineconfiguration.openshift.io/v1, short name `mcp`): a set of nodes
 * (`nodeSelector`) that runs one rendered configuration made from the MachineConfigs its
 * `machineConfigSelector` picks, rolled out at most `maxUnavailable` nodes at a time. The render
 * controller writes `spec.configuration` (the target); the node controller moves
 * `status.configuration` there once every node runs it, so the CONFIG column shows the last
 * completed configuration while an update is under way.
 */
import { defineCustomResource, type ResourceOf } from '../crd/define.ts';
import { type Infer, required, s } from '../crd/schema-builder.ts';
import { includedInPayload } from '../config/common.ts';
import { categories, group, labelSelector, machineConfigPoolStatusConfiguration, optionalFieldCondition, version } from './common.ts';

export const machineConfigPoolConditionTypes = {
  updated: 'Updated',
  updating: 'Updating',
  nodeDegraded: 'NodeDegraded',
  renderDegraded: 'RenderDegraded',
  degraded: 'Degraded',
  pinnedImageSetsDegraded: 'PinnedImageSetsDegraded',
  poolSynchronizerDegraded: 'PoolSynchronizerDegraded',
} as const;

/** The pools every cluster has; custom pools are named by their users. */
export const masterPool = 'master';
export const workerPool = 'worker';

const dnsSubdomain = s.string({
  minLength: 1,
  maxLength: 253,
  pattern: '^([a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9\\-]{0,61}[a-zA-Z0-9])(\\.([a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9\\-]{0,61}[a-zA-Z0-9]))*$',
});

export const machineConfigPoolSpec = s.object({
  machineConfigSelector: labelSelector('Which MachineConfigs make up the pool\'s configuration; none selected when unset.'),
  nodeSelector: labelSelector('Which nodes belong to the pool; none when unset.'),
  paused: s.boolean({ description: 'Stop updating the pool\'s nodes (configurations are still rendered).' }),
  maxUnavailable: s.intOrString({
    description: 'How many nodes (a number, or a percentage rounded down) may be unavailable for any reason during an update; default and minimum 1.',
  }),
  configuration: s.describe(machineConfigPoolStatusConfiguration, 'The rendered MachineConfig the pool targets, and its sources.'),
  pinnedImageSets: s.array(s.object({ name: required(dnsSubdomain) }), {
    listType: 'map',
    listMapKeys: ['name'],
    maxItems: 100,
    description: 'PinnedImageSets whose images the pool\'s nodes keep.',
  }),
});
export type MachineConfigPoolSpec = Infer<typeof machineConfigPoolSpec>;

export const machineConfigPoolCondition = optionalFieldCondition;
export type MachineConfigPoolCondition = Infer<typeof machineConfigPoolCondition>;

const count = (description: string) => s.integer({ format: 'int32', description });
const synchronizerCount = s.integer({ format: 'int64', minimum: 0 });

export const poolSynchronizerStatus = s.object(
  {
    poolSynchronizerType: required(s.enum(['PinnedImageSets'])),
    machineCount: required(synchronizerCount),
    updatedMachineCount: required(synchronizerCount),
    readyMachineCount: required(synchronizerCount),
    availableMachineCount: required(synchronizerCount),
    unavailableMachineCount: required(synchronizerCount),
    observedGeneration: s.integer({
      format: 'int64',
      minimum: 0,
      rules: [{ rule: 'self >= oldSelf || (self == 0 && oldSelf > 0)', message: 'observedGeneration must not move backwards except to zero' }],
    }),
  },
  {
    rules: [
      { rule: 'self.machineCount >= self.updatedMachineCount', message: 'machineCount must be greater than or equal to updatedMachineCount' },
      { rule: 'self.machineCount >= self.availableMachineCount', message: 'machineCount must be greater than or equal to availableMachineCount' },
      { rule: 'self.machineCount >= self.unavailableMachineCount', message: 'machineCount must be greater than or equal to unavailableMachineCount' },
      { rule: 'self.machineCount >= self.readyMachineCount', message: 'machineCount must be greater than or equal to readyMachineCount' },
      { rule: 'self.availableMachineCount >= self.readyMachineCount', message: 'availableMachineCount must be greater than or equal to readyMachineCount' },
    ],
  },
);

export const machineConfigPoolStatus = s.object({
  observedGeneration: s.integer({ format: 'int64', description: 'The generation of the spec the controllers last acted on.' }),
  configuration: s.describe(machineConfigPoolStatusConfiguration, 'The rendered MachineConfig every node of the pool runs (the last completed update).'),
  machineCount: count('Nodes in the pool.'),
  updatedMachineCount: count('Nodes that run the targeted configuration.'),
  readyMachineCount: count('Nodes that run the targeted configuration and are ready.'),
  unavailableMachineCount: count('Nodes that are not ready, cordoned or updating.'),
  degradedMachineCount: count('Nodes whose daemon reports Degraded or Unreconcilable.'),
  conditions: s.array(machineConfigPoolCondition, { listType: 'atomic' }),
  certExpirys: s.array(
    s.object({
      bundle: required(s.string({ description: 'The CA bundle the certificate is in.' })),
      subject: required(s.string()),
      expiry: s.time(),
    }),
    { listType: 'atomic', description: 'Expiry of the certificates the pool\'s nodes trust.' },
  ),
  poolSynchronizersStatus: s.array(poolSynchronizerStatus, { listType: 'map', listMapKeys: ['poolSynchronizerType'] }),
});
export type MachineConfigPoolStatus = Infer<typeof machineConfigPoolStatus>;

const conditionColumn = (type: string, description: string) =>
  ({ name: type, type: 'string', jsonPath: `.status.conditions[?(@.type=="${type}")].status`, description }) as const;

export const MachineConfigPool = defineCustomResource({
  group,
  version,
  kind: 'MachineConfigPool',
  plural: 'machineconfigpools',
  shortNames: ['mcp'],
  categories,
  scope: 'Cluster',
  description: 'A pool of nodes that runs one rendered MachineConfig, and the rollout of its updates.',
  annotations: includedInPayload,
  spec: machineConfigPoolSpec,
  status: machineConfigPoolStatus,
  printerColumns: [
    { name: 'Config', type: 'string', jsonPath: '.status.configuration.name' },
    conditionColumn('Updated', 'Whether every node of the pool runs the targeted configuration.'),
    conditionColumn('Updating', 'Whether some node is not yet updated or is updating.'),
    conditionColumn('Degraded', 'Whether a node cannot update or the configuration cannot be rendered.'),
    { name: 'MachineCount', type: 'number', jsonPath: '.status.machineCount', description: 'Nodes in the pool.' },
    { name: 'ReadyMachineCount', type: 'number', jsonPath: '.status.readyMachineCount', description: 'Updated nodes that are ready.' },
    { name: 'UpdatedMachineCount', type: 'number', jsonPath: '.status.updatedMachineCount', description: 'Nodes that run the targeted configuration.' },
    { name: 'DegradedMachineCount', type: 'number', jsonPath: '.status.degradedMachineCount', description: 'Nodes marked Degraded or Unreconcilable.' },
    { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
  ],
});
export type MachineConfigPool = ResourceOf<typeof MachineConfigPool>;
