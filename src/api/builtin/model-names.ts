/**
 * Names of the built-in schemas: which Kubernetes OpenAPI definition name
 * (`io.k8s.api.core.v1.Pod`, `io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta`, ...) each
 * @kubernetes/client-node model class (`V1Pod`, `V1ObjectMeta`, `CoreV1Event`, ...) stands for.
 * The generated classes drop the Go package, so the package of every unprefixed `V1*` model
 * that is not core/v1 is listed here; classes whose names collide across packages carry a
 * group prefix (`CoreV1Event`, `EventsV1Event`, `ApiextensionsV1ServiceReference`).
 */

export const pkg = {
  core: 'io.k8s.api.core.v1',
  apps: 'io.k8s.api.apps.v1',
  batch: 'io.k8s.api.batch.v1',
  policy: 'io.k8s.api.policy.v1',
  coordination: 'io.k8s.api.coordination.v1',
  events: 'io.k8s.api.events.v1',
  autoscaling: 'io.k8s.api.autoscaling.v1',
  rbac: 'io.k8s.api.rbac.v1',
  authorization: 'io.k8s.api.authorization.v1',
  authentication: 'io.k8s.api.authentication.v1',
  certificates: 'io.k8s.api.certificates.v1',
  meta: 'io.k8s.apimachinery.pkg.apis.meta.v1',
  apiextensions: 'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1',
  intstr: 'io.k8s.apimachinery.pkg.util.intstr',
  resource: 'io.k8s.apimachinery.pkg.api.resource',
} as const;

/** Unprefixed v1 models that live outside core/v1, by package. */
const v1Packages: ReadonlyArray<readonly [string, readonly string[]]> = [
  [pkg.meta, [
    'APIGroup', 'APIGroupList', 'APIResource', 'APIResourceList', 'APIVersions', 'Condition', 'DeleteOptions',
    'FieldSelectorRequirement', 'GroupVersionForDiscovery', 'LabelSelector', 'LabelSelectorRequirement', 'ListMeta',
    'ManagedFieldsEntry', 'ObjectMeta', 'OwnerReference', 'Preconditions', 'ServerAddressByClientCIDR', 'Status',
    'StatusCause', 'StatusDetails', 'WatchEvent',
  ]],
  [pkg.apps, [
    'ControllerRevision', 'ControllerRevisionList', 'DaemonSet', 'DaemonSetCondition', 'DaemonSetList', 'DaemonSetSpec',
    'DaemonSetStatus', 'DaemonSetUpdateStrategy', 'Deployment', 'DeploymentCondition', 'DeploymentList', 'DeploymentSpec',
    'DeploymentStatus', 'DeploymentStrategy', 'ReplicaSet', 'ReplicaSetCondition', 'ReplicaSetList', 'ReplicaSetSpec',
    'ReplicaSetStatus', 'RollingUpdateDaemonSet', 'RollingUpdateDeployment', 'RollingUpdateStatefulSetStrategy',
    'StatefulSet', 'StatefulSetCondition', 'StatefulSetList', 'StatefulSetOrdinals',
    'StatefulSetPersistentVolumeClaimRetentionPolicy', 'StatefulSetSpec', 'StatefulSetStatus', 'StatefulSetUpdateStrategy',
  ]],
  [pkg.batch, [
    'CronJob', 'CronJobList', 'CronJobSpec', 'CronJobStatus', 'Job', 'JobCondition', 'JobList', 'JobSpec', 'JobStatus',
    'JobTemplateSpec', 'PodFailurePolicy', 'PodFailurePolicyOnExitCodesRequirement', 'PodFailurePolicyOnPodConditionsPattern',
    'PodFailurePolicyRule', 'SuccessPolicy', 'SuccessPolicyRule', 'UncountedTerminatedPods',
  ]],
  [pkg.policy, ['Eviction', 'PodDisruptionBudget', 'PodDisruptionBudgetList', 'PodDisruptionBudgetSpec', 'PodDisruptionBudgetStatus']],
  [pkg.coordination, ['Lease', 'LeaseList', 'LeaseSpec']],
  [pkg.autoscaling, [
    'CrossVersionObjectReference', 'HorizontalPodAutoscaler', 'HorizontalPodAutoscalerList', 'HorizontalPodAutoscalerSpec',
    'HorizontalPodAutoscalerStatus', 'Scale', 'ScaleSpec', 'ScaleStatus',
  ]],
  [pkg.rbac, [
    'AggregationRule', 'ClusterRole', 'ClusterRoleBinding', 'ClusterRoleBindingList', 'ClusterRoleList', 'PolicyRule',
    'Role', 'RoleBinding', 'RoleBindingList', 'RoleList', 'RoleRef',
  ]],
  [pkg.authorization, [
    'FieldSelectorAttributes', 'LabelSelectorAttributes', 'LocalSubjectAccessReview', 'NonResourceAttributes',
    'NonResourceRule', 'ResourceAttributes', 'ResourceRule', 'SelfSubjectAccessReview', 'SelfSubjectAccessReviewSpec',
    'SelfSubjectRulesReview', 'SelfSubjectRulesReviewSpec', 'SubjectAccessReview', 'SubjectAccessReviewSpec',
    'SubjectAccessReviewStatus', 'SubjectRulesReviewStatus',
  ]],
  [pkg.certificates, ['CertificateSigningRequest', 'CertificateSigningRequestCondition', 'CertificateSigningRequestList', 'CertificateSigningRequestSpec', 'CertificateSigningRequestStatus']],
  [pkg.authentication, ['SelfSubjectReview', 'SelfSubjectReviewStatus', 'TokenReview', 'TokenReviewSpec', 'TokenReviewStatus', 'UserInfo']],
  [pkg.apiextensions, [
    'CustomResourceColumnDefinition', 'CustomResourceConversion', 'CustomResourceDefinition',
    'CustomResourceDefinitionCondition', 'CustomResourceDefinitionList', 'CustomResourceDefinitionNames',
    'CustomResourceDefinitionSpec', 'CustomResourceDefinitionStatus', 'CustomResourceDefinitionVersion',
    'CustomResourceSubresourceScale', 'CustomResourceSubresources', 'CustomResourceValidation', 'ExternalDocumentation',
    'JSONSchemaProps', 'SelectableField', 'ValidationRule', 'WebhookConversion',
  ]],
];

const packageOfV1Model = new Map<string, string>(v1Packages.flatMap(([p, names]) => names.map((n) => [n, p] as const)));

/** Class-name prefixes that name the group when two packages define the same type name. */
const prefixedPackages: Readonly<Record<string, string>> = {
  Core: pkg.core,
  Events: pkg.events,
  Apiextensions: pkg.apiextensions,
  Discovery: 'io.k8s.api.discovery.v1',
  Authentication: 'io.k8s.api.authentication.v1',
  Storage: 'io.k8s.api.storage.v1',
  Rbac: 'io.k8s.api.rbac.v1',
  Flowcontrol: 'io.k8s.api.flowcontrol.v1',
  Admissionregistration: 'io.k8s.api.admissionregistration.v1',
  Apiregistration: 'io.k8s.kube-aggregator.pkg.apis.apiregistration.v1',
  Resource: 'io.k8s.api.resource.v1',
};

const modelPattern = /^([A-Z][a-z]+)?(V\d+(?:(?:alpha|beta)\d+)?)([A-Z]\w*)$/;

/** The Kubernetes definition name of a client-node model class, e.g. `V1PodSpec` → `io.k8s.api.core.v1.PodSpec`. */
export function definitionNameOf(modelName: string): string {
  const m = modelPattern.exec(modelName);
  if (!m) throw new Error(`not a client-node model name: ${modelName}`);
  const [, prefix, version, bare] = m as unknown as [string, string | undefined, string, string];
  if (prefix) {
    const p = prefixedPackages[prefix];
    if (!p) throw new Error(`unknown group prefix in model name ${modelName}`);
    return `${p}.${bare}`;
  }
  // Only v1 kinds are served, and the package lists above cover v1 only.
  if (version !== 'V1') throw new Error(`no package known for model ${modelName}`);
  return `${packageOfV1Model.get(bare) ?? pkg.core}.${bare}`;
}
