/** The config.openshift.io resources the CVO reads and writes, and where it lives. */
import type { ResourceRef } from '../../runtime/resources.ts';

export const clusterVersions: ResourceRef = { group: 'config.openshift.io', version: 'v1', resource: 'clusterversions', kind: 'ClusterVersion', namespaced: false };
export const clusterOperators: ResourceRef = { group: 'config.openshift.io', version: 'v1', resource: 'clusteroperators', kind: 'ClusterOperator', namespaced: false };

export const CVO_NAMESPACE = 'openshift-cluster-version';
export const CLUSTER_VERSION_NAME = 'version';
export const CVO_DEPLOYMENT = 'cluster-version-operator';
