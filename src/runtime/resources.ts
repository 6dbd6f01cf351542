/**
 * Where each resource lives in the REST API. Controllers name resources by these refs rather
 * than by hand-built paths, so a typo in a group or a plural is caught once, here.
 */
import { ClusterOperator } from '../api/config/cluster-operator.ts';
import { ClusterVersion } from '../api/config/cluster-version.ts';
import { ControllerConfig } from '../api/machineconfiguration/controller-config.ts';
import { KubeletConfig } from '../api/machineconfiguration/kubelet-config.ts';
import { MachineConfigPool } from '../api/machineconfiguration/machine-config-pool.ts';
import { MachineConfig } from '../api/machineconfiguration/machine-config.ts';

export interface ResourceRef {
  /** '' for the core group. */
  readonly group: string;
  readonly version: string;
  /** Plural, lower case: `pods`, `deployments`. */
  readonly resource: string;
  readonly kind: string;
  readonly namespaced: boolean;
}

export function apiVersionOf(ref: ResourceRef): string {
  return ref.group ? `${ref.group}/${ref.version}` : ref.version;
}

function prefix(ref: ResourceRef): string {
  return ref.group ? `/apis/${ref.group}/${ref.version}` : `/api/${ref.version}`;
}

/** The collection, across namespaces when `namespace` is undefined. */
export function collectionPath(ref: ResourceRef, namespace?: string): string {
  if (ref.namespaced && namespace) return `${prefix(ref)}/namespaces/${encodeURIComponent(namespace)}/${ref.resource}`;
  return `${prefix(ref)}/${ref.resource}`;
}

export function objectPath(ref: ResourceRef, namespace: string | undefined, name: string, subresource?: string): string {
  if (ref.namespaced && !namespace) throw new Error(`${ref.resource} "${name}": namespaced resource needs a namespace`);
  const base = `${collectionPath(ref, ref.namespaced ? namespace : undefined)}/${encodeURIComponent(name)}`;
  return subresource ? `${base}/${subresource}` : base;
}

/** Just the coordinates of a kind declared in api/ (`defineCustomResource` carries them beside its CRD). */
export function refOf(kind: ResourceRef): ResourceRef {
  return { group: kind.group, version: kind.version, resource: kind.resource, kind: kind.kind, namespaced: kind.namespaced };
}

const core = (resource: string, kind: string, namespaced = true): ResourceRef => ({ group: '', version: 'v1', resource, kind, namespaced });
const grouped = (group: string, version: string, resource: string, kind: string, namespaced = true): ResourceRef => ({ group, version, resource, kind, namespaced });

export const resources = {
  namespaces: core('namespaces', 'Namespace', false),
  nodes: core('nodes', 'Node', false),
  pods: core('pods', 'Pod'),
  services: core('services', 'Service'),
  endpoints: core('endpoints', 'Endpoints'),
  configMaps: core('configmaps', 'ConfigMap'),
  secrets: core('secrets', 'Secret'),
  serviceAccounts: core('serviceaccounts', 'ServiceAccount'),
  events: core('events', 'Event'),
  deployments: grouped('apps', 'v1', 'deployments', 'Deployment'),
  replicaSets: grouped('apps', 'v1', 'replicasets', 'ReplicaSet'),
  daemonSets: grouped('apps', 'v1', 'daemonsets', 'DaemonSet'),
  jobs: grouped('batch', 'v1', 'jobs', 'Job'),
  cronJobs: grouped('batch', 'v1', 'cronjobs', 'CronJob'),
  podDisruptionBudgets: grouped('policy', 'v1', 'poddisruptionbudgets', 'PodDisruptionBudget'),
  leases: grouped('coordination.k8s.io', 'v1', 'leases', 'Lease'),
  clusterRoles: grouped('rbac.authorization.k8s.io', 'v1', 'clusterroles', 'ClusterRole', false),
  customResourceDefinitions: grouped('apiextensions.k8s.io', 'v1', 'customresourcedefinitions', 'CustomResourceDefinition', false),
  certificateSigningRequests: grouped('certificates.k8s.io', 'v1', 'certificatesigningrequests', 'CertificateSigningRequest', false),
  // OpenShift's config kinds are declared once, as CRDs, in api/config/.
  clusterVersions: refOf(ClusterVersion),
  clusterOperators: refOf(ClusterOperator),
  // The Machine Config Operator's kinds, declared in api/machineconfiguration/.
  machineConfigs: refOf(MachineConfig),
  machineConfigPools: refOf(MachineConfigPool),
  kubeletConfigs: refOf(KubeletConfig),
  controllerConfigs: refOf(ControllerConfig),
} as const satisfies Record<string, ResourceRef>;
