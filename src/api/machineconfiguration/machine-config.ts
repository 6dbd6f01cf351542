/**
 * MachineConfig (machineconfiguration.openshift.io/v1, cluster-scoped, short name `mc`): one
 * slice of a machine's operating system — an Ignition config (spec 2.2 or 3.0–3.4, stored as
 * given) plus the OS-level settings Ignition has no words for (kernel arguments, extensions,
 * FIPS, kernel type, OS image). The render controller merges the configs a pool selects into
 * one `rendered-<pool>-<hash>` MachineConfig. The schema is OpenShift's: `config` is kept as
 * sent, and `kernelType` is a free string checked at render time; what the API server checks
 * beyond the schema is in `validate-machine-config.ts`.
 */
import { defineCustomResource, type ResourceOf } from '../crd/define.ts';
import { type Infer, s } from '../crd/schema-builder.ts';
import { includedInPayload } from '../config/common.ts';
import { categories, group, version } from './common.ts';

/** The kernel types a MachineConfig may ask for (`""` and `default` are the same). */
export const kernelTypes = ['', 'default', 'realtime', '64k-pages'] as const;
export type KernelType = (typeof kernelTypes)[number];

export const machineConfigSpec = s.object({
  osImageURL: s.string({ description: 'The OS image the machine should run; set by the operator unless a user config overrides it.' }),
  baseOSExtensionsContainerImage: s.string({ description: 'The image carrying the extensions that match a new-format OS image.' }),
  config: s.unknownObject({ description: 'An Ignition config (spec 2.2 or 3.0–3.4), kept as given.' }),
  kernelArguments: s.nullable(s.array(s.string(), { listType: 'atomic', description: 'Arguments added to the kernel command line.' })),
  extensions: s.array(s.string(), { listType: 'atomic', description: 'RHCOS extensions to install on the host.' }),
  fips: s.boolean({ description: 'Run the host in FIPS mode; may only be chosen at install.' }),
  kernelType: s.string({ description: 'Which kernel to run: default, realtime or 64k-pages.' }),
});
export type MachineConfigSpec = Infer<typeof machineConfigSpec>;

export const MachineConfig = defineCustomResource({
  group,
  version,
  kind: 'MachineConfig',
  plural: 'machineconfigs',
  shortNames: ['mc'],
  categories,
  scope: 'Cluster',
  description: 'The configuration of a machine: an Ignition config and OS settings, merged per pool into a rendered config.',
  annotations: includedInPayload,
  spec: machineConfigSpec,
  specRequired: false,
  printerColumns: [
    {
      name: 'GeneratedByController',
      type: 'string',
      jsonPath: '.metadata.annotations.machineconfiguration\\.openshift\\.io/generated-by-controller-version',
      description: 'The version of the controller that generated this config; empty for configs users write.',
    },
    { name: 'IgnitionVersion', type: 'string', jsonPath: '.spec.config.ignition.version', description: 'The spec version of the Ignition config.' },
    { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
  ],
});
export type MachineConfig = ResourceOf<typeof MachineConfig>;
