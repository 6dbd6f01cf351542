/**
 * Infrastructure (config.openshift.io/v1, singleton `cluster`): what the cluster runs on. The
 * Machine API operator reads `status.platformStatus.type` to choose a provider (or its NoOp
 * mode), others read the API server URLs and topologies. Only the platform-neutral fields and the
 * `External` platform are declared, plus `Shipyard`, the datacenter's simulated cloud (whose
 * Machines the Shipyard machine provider drives); the per-cloud sections (AWS, Azure, ...) would
 * never be set.
 */
import { defineCustomResource, type ResourceOf } from '../crd/define.ts';
import { type Infer, s } from '../crd/schema-builder.ts';
import { group, includedInPayload, version } from './common.ts';

export const platformTypes = [
  '',
  'AWS',
  'Azure',
  'BareMetal',
  'GCP',
  'Libvirt',
  'OpenStack',
  'None',
  'VSphere',
  'oVirt',
  'IBMCloud',
  'KubeVirt',
  'EquinixMetal',
  'PowerVS',
  'AlibabaCloud',
  'Nutanix',
  'External',
  // Shipyard's simulated cloud: the Machine API operator runs the Shipyard machine provider for it.
  'Shipyard',
] as const;
export type PlatformType = (typeof platformTypes)[number];

const platformType = s.enum(platformTypes, { description: 'The infrastructure provider; None when there is no cloud integration.' });

export const topologyModes = ['HighlyAvailable', 'HighlyAvailableArbiter', 'SingleReplica', 'External'] as const;
export type TopologyMode = (typeof topologyModes)[number];

export const platformSpec = s.object({
  type: platformType,
  external: s.object({
    platformName: s.string({
      default: 'Unknown',
      description: 'A name for the external platform, for information only.',
      rules: [{ rule: "oldSelf == 'Unknown' || self == oldSelf", message: 'platform name cannot be changed once set' }],
    }),
  }),
});

export const platformStatus = s.object({
  type: platformType,
  external: s.object({
    cloudControllerManager: s.object({
      state: s.enum(['', 'External', 'None'], { description: 'External when an external cloud controller manager runs.' }),
    }),
  }),
});
export type PlatformStatus = Infer<typeof platformStatus>;

export const infrastructureSpec = s.object({
  cloudConfig: s.object(
    {
      name: s.string(),
      key: s.string(),
    },
    { description: 'The ConfigMap (in openshift-config) holding the cloud provider configuration.' },
  ),
  platformSpec,
});
export type InfrastructureSpec = Infer<typeof infrastructureSpec>;

export const infrastructureStatus = s.object({
  infrastructureName: s.string({ description: 'A short unique name of the cluster, used to name cloud resources.' }),
  platform: s.describe(platformType, 'Deprecated: read platformStatus.type.'),
  platformStatus,
  etcdDiscoveryDomain: s.string({ description: 'Deprecated and unused.' }),
  apiServerURL: s.string({ description: 'The https URL clients outside the cluster reach the Kubernetes API at.' }),
  apiServerInternalURI: s.string({ description: 'The https URL nodes and components reach the Kubernetes API at.' }),
  controlPlaneTopology: s.enum(topologyModes, { default: 'HighlyAvailable', description: 'How many control-plane nodes operands may expect.' }),
  infrastructureTopology: s.enum(['HighlyAvailable', 'SingleReplica'], { default: 'HighlyAvailable', description: 'How many infrastructure nodes operands may expect.' }),
  cpuPartitioning: s.enum(['None', 'AllNodes'], { default: 'None' }),
});
export type InfrastructureStatus = Infer<typeof infrastructureStatus>;

export const Infrastructure = defineCustomResource({
  group,
  version,
  kind: 'Infrastructure',
  plural: 'infrastructures',
  scope: 'Cluster',
  description: 'The infrastructure the cluster runs on (singleton `cluster`).',
  annotations: includedInPayload,
  spec: infrastructureSpec,
  status: infrastructureStatus,
});
export type Infrastructure = ResourceOf<typeof Infrastructure>;
