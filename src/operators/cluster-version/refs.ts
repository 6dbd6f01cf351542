/** Where the CVO lives and the name of the ClusterVersion it keeps (its resources are in runtime/resources.ts). */

export const CVO_NAMESPACE = 'openshift-cluster-version';
export const CLUSTER_VERSION_NAME = 'version';
export const CVO_DEPLOYMENT = 'cluster-version-operator';
