/**
 * Machine (machine.openshift.io/v1beta1, namespaced, short name `ma`): one host of the cluster,
 * declared. The machine controller creates the instance its `providerSpec` describes, records
 * the instance's `providerID` and addresses, and the nodelink controller links the Node that
 * joins (`status.nodeRef`), copying `spec.metadata` and `spec.taints` onto it. The phase moves
 * Provisioning → Provisioned → Running, or to Failed (terminal) and Deleting. The TYPE, REGION
 * and ZONE columns read the labels the provider sets from the instance, as in OpenShift.
 */
import { defineCustomResource, type ResourceOf } from '../crd/define.ts';
import { type Infer, required, s } from '../crd/schema-builder.ts';
import { objectReference } from '../machineconfiguration/common.ts';
import { conditions, group, machineAPIPayloadAnnotations, objectMeta, taint, version } from './common.ts';
import { machineAnnotations, machineLabels, type MachinePhase } from './names.ts';

/** A hook that holds a Machine's deletion at one step until its owner removes it. */
export const lifecycleHook = s.object({
  name: required(
    s.string({
      minLength: 3,
      maxLength: 256,
      pattern: '^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])$',
      description: 'A unique name for the hook, in CamelCase or namespaced (foo.example.com/CamelCase).',
    }),
  ),
  owner: required(s.string({ minLength: 3, maxLength: 512, description: 'Who is responsible for the hook (a controller, or an administrator).' })),
});
export type LifecycleHook = Infer<typeof lifecycleHook>;

const hooks = (description: string) => s.array(lifecycleHook, { listType: 'map', listMapKeys: ['name'], description });

export const machineAuthorities = ['MachineAPI', 'ClusterAPI'] as const;

export const machineSpec = s.object(
  {
    metadata: objectMeta('Labels and annotations to put on the Node this Machine becomes.'),
    lifecycleHooks: s.object(
      {
        preDrain: hooks('Hooks that keep the Node from being drained (and so the instance from being terminated).'),
        preTerminate: hooks('Hooks that keep the instance from being terminated, once the Node is drained.'),
      },
      { description: 'Points in the Machine\'s deletion where other components may hold it.' },
    ),
    taints: s.array(taint, { listType: 'atomic', description: 'Taints to add to the Node (never removing taints others add).' }),
    providerSpec: s.object(
      { value: s.unknownObject({ description: 'The provider\'s configuration (instance type, zone, user data Secret...), kept as given.' }) },
      { description: 'Provider-specific configuration used to create the instance.' },
    ),
    providerID: s.string({ description: 'The instance\'s ID at the provider; it matches the Node\'s spec.providerID.' }),
    authoritativeAPI: s.enum(machineAuthorities, { description: 'Which API (MachineAPI or ClusterAPI) manages this resource.' }),
  },
  { description: 'The desired state of the Machine.' },
);
export type MachineSpec = Infer<typeof machineSpec>;

export const machineAddress = s.object({
  type: required(s.string({ description: 'Hostname, ExternalIP, InternalIP, ExternalDNS or InternalDNS.' })),
  address: required(s.string({ description: 'The address.' })),
});
export type MachineAddress = Infer<typeof machineAddress>;

export const machineStatus = s.object(
  {
    nodeRef: s.describe(objectReference, 'The Node this Machine became, once it joined.'),
    lastUpdated: s.time({ description: 'When the status was last written.' }),
    errorReason: s.string({ description: 'A terminal problem, for machines (InvalidConfiguration, CreateError...); unset for transient errors.' }),
    errorMessage: s.string({ description: 'A terminal problem, for people.' }),
    providerStatus: s.unknownObject({ description: 'The provider\'s view of the instance.' }),
    addresses: s.array(machineAddress, { listType: 'atomic', description: 'The instance\'s addresses, from the provider.' }),
    lastOperation: s.object(
      {
        description: s.string({ description: 'What the last operation did.' }),
        lastUpdated: s.time({ description: 'When it was last updated.' }),
        state: s.string({ description: 'Processing, Failed, Successful...' }),
        type: s.string({ description: 'Create, Update, Delete...' }),
      },
      { description: 'The last operation the machine controller performed.' },
    ),
    phase: s.stringOf<MachinePhase>({ description: 'Provisioning, Provisioned, Running, Failed or Deleting.' }),
    conditions,
  },
  { description: 'The observed state of the Machine.' },
);
export type MachineStatus = Infer<typeof machineStatus>;

/** `.metadata.labels['machine\.openshift\.io/zone']`, dots escaped as OpenShift writes these paths. */
const metadataColumn = (name: string, map: 'labels' | 'annotations', key: string, description: string, priority?: number) =>
  ({ name, type: 'string', jsonPath: `.metadata.${map}['${key.replaceAll('.', '\\.')}']`, description, ...(priority ? { priority } : {}) }) as const;

export const Machine = defineCustomResource({
  group,
  version,
  kind: 'Machine',
  plural: 'machines',
  shortNames: ['ma'],
  scope: 'Namespaced',
  description: 'A host of the cluster: the instance its provider creates and the Node that instance becomes.',
  annotations: machineAPIPayloadAnnotations,
  spec: machineSpec,
  specRequired: false,
  status: machineStatus,
  printerColumns: [
    { name: 'Phase', type: 'string', jsonPath: '.status.phase', description: 'Phase of machine' },
    metadataColumn('Type', 'labels', machineLabels.instanceType, 'Type of instance'),
    metadataColumn('Region', 'labels', machineLabels.region, 'Region associated with machine'),
    metadataColumn('Zone', 'labels', machineLabels.zone, 'Zone associated with machine'),
    { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp', description: 'Machine age' },
    { name: 'Node', type: 'string', jsonPath: '.status.nodeRef.name', description: 'Node associated with machine', priority: 1 },
    { name: 'ProviderID', type: 'string', jsonPath: '.spec.providerID', description: 'Provider ID of machine created in cloud provider', priority: 1 },
    metadataColumn('State', 'annotations', machineAnnotations.instanceState, 'State of instance', 1),
  ],
});
export type Machine = ResourceOf<typeof Machine>;
