/**
 * Network (config.openshift.io/v1, singleton `cluster`): the cluster's pod and service address
 * ranges and the network plugin, as the installer writes them and operators read them. In
 * Shipyard the pod range is the datacenter's 127.128.0.0/9 and the service range 127.64.0.0/16
 * (ARCHITECTURE.md, "Addresses"). As in OpenShift, status is not a subresource here: the
 * network operator writes the whole object.
 */
import { defineCustomResource, type ResourceOf } from '../crd/define.ts';
import { type Infer, s } from '../crd/schema-builder.ts';
import { group, includedInPayload, metav1Conditions, version } from './common.ts';

export const clusterNetworkEntry = s.object({
  cidr: s.string({ description: 'The pod address range, e.g. 127.128.0.0/9 (as the local datacenter uses).' }),
  hostPrefix: s.integer({ format: 'int32', minimum: 0, description: 'The prefix length of the range each node gets.' }),
});
export type ClusterNetworkEntry = Infer<typeof clusterNetworkEntry>;

const clusterNetworks = s.array(clusterNetworkEntry, { listType: 'atomic' });
const serviceNetworks = s.array(s.string(), { listType: 'atomic', description: 'Service address ranges (CIDRs).' });
const cidrs = s.array(s.string(), { listType: 'atomic' });

export const networkSpec = s.object({
  clusterNetwork: clusterNetworks,
  serviceNetwork: serviceNetworks,
  networkType: s.string({ description: 'The network plugin, e.g. OVNKubernetes.' }),
  externalIP: s.object({
    autoAssignCIDRs: cidrs,
    policy: s.object({ allowedCIDRs: cidrs, rejectedCIDRs: cidrs }),
  }),
  serviceNodePortRange: s.string({
    description: 'The NodePort range, e.g. 30000-32767.',
    pattern:
      '^([0-9]{1,4}|[1-5][0-9]{4}|6[0-4][0-9]{3}|65[0-4][0-9]{2}|655[0-2][0-9]|6553[0-5])-([0-9]{1,4}|[1-5][0-9]{4}|6[0-4][0-9]{3}|65[0-4][0-9]{2}|655[0-2][0-9]|6553[0-5])$',
  }),
});
export type NetworkSpec = Infer<typeof networkSpec>;

export const networkStatus = s.object({
  clusterNetwork: clusterNetworks,
  serviceNetwork: serviceNetworks,
  networkType: s.string(),
  clusterNetworkMTU: s.integer({ description: 'The MTU pods see.' }),
  conditions: metav1Conditions,
});
export type NetworkStatus = Infer<typeof networkStatus>;

export const Network = defineCustomResource({
  group,
  version,
  kind: 'Network',
  plural: 'networks',
  scope: 'Cluster',
  description: 'The cluster network configuration (singleton `cluster`).',
  annotations: includedInPayload,
  spec: networkSpec,
  status: networkStatus,
  statusSubresource: false,
});
export type Network = ResourceOf<typeof Network>;
