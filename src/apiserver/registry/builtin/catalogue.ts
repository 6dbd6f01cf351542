/**
 * The built-in resources Shipyard serves, with their scope, short names, categories,
 * subresources and strategies as kube-apiserver has them.
 */
import type { FieldAccessor, ResourceDefinition, Strategy, Subresources } from '../resource.ts';
import { daemonSetStrategy, deploymentStrategy, pdbStrategy, replicaSetStrategy } from './apps-strategies.ts';
import { cronJobStrategy, jobStrategy } from './batch-strategies.ts';
import { configMapStrategy, endpointsStrategy, eventStrategy, namespaceStrategy, nodeStrategy, plainStrategy, podStrategy, secretStrategy, serviceStrategy } from './core-strategies.ts';
import { certificateSigningRequestStrategy } from './certificates-strategy.ts';
import { crdStrategy } from './crd-strategy.ts';
import { clusterRoleBindingStrategy, clusterRoleStrategy, roleBindingStrategy, roleStrategyNamespaced } from './rbac-strategies.ts';
import { coreEventToEventsV1, eventsV1ToCoreEvent } from './event-conversion.ts';
import { certificateSigningRequestFieldAccessors, eventFieldAccessors, namespaceFieldAccessors, nodeFieldAccessors, podFieldAccessors, replicaSetFieldAccessors, secretFieldAccessors } from '../../selectors/field-selector.ts';

interface BuiltinSpec {
  group?: string;
  version?: string;
  resource: string;
  kind: string;
  namespaced: boolean;
  shortNames?: string[];
  categories?: string[];
  subresources?: Subresources;
  strategy: Strategy;
  fieldAccessors?: Record<string, FieldAccessor>;
  storagePrefix?: string;
  storageVersion?: string;
  conversion?: ResourceDefinition['conversion'];
  verbs?: readonly string[];
}

function builtin(s: BuiltinSpec): ResourceDefinition {
  const group = s.group ?? '';
  const version = s.version ?? 'v1';
  return {
    group,
    version,
    resource: s.resource,
    kind: s.kind,
    listKind: `${s.kind}List`,
    singular: s.kind.toLowerCase(),
    namespaced: s.namespaced,
    shortNames: s.shortNames ?? [],
    categories: s.categories ?? [],
    storagePrefix: s.storagePrefix ?? `${group || 'core'}/${s.resource}`,
    storageVersion: s.storageVersion ?? (group ? `${group}/${version}` : version),
    subresources: s.subresources ?? {},
    strategy: s.strategy,
    fieldAccessors: s.fieldAccessors ?? {},
    strategicMerge: true,
    served: true,
    conversion: s.conversion,
    ...(s.verbs ? { verbs: s.verbs } : {}),
  };
}

const replicasScale = { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas', labelSelectorPath: '.status.selector' };

export function builtinResources(): ResourceDefinition[] {
  return [
    builtin({ resource: 'namespaces', kind: 'Namespace', namespaced: false, shortNames: ['ns'], subresources: { status: true, finalize: true }, strategy: namespaceStrategy, fieldAccessors: namespaceFieldAccessors }),
    builtin({ resource: 'nodes', kind: 'Node', namespaced: false, shortNames: ['no'], subresources: { status: true }, strategy: nodeStrategy, fieldAccessors: nodeFieldAccessors }),
    builtin({ resource: 'pods', kind: 'Pod', namespaced: true, shortNames: ['po'], categories: ['all'], subresources: { status: true, binding: true, eviction: true, log: true }, strategy: podStrategy, fieldAccessors: podFieldAccessors }),
    builtin({ resource: 'configmaps', kind: 'ConfigMap', namespaced: true, shortNames: ['cm'], strategy: configMapStrategy }),
    builtin({ resource: 'secrets', kind: 'Secret', namespaced: true, strategy: secretStrategy, fieldAccessors: secretFieldAccessors }),
    builtin({ resource: 'services', kind: 'Service', namespaced: true, shortNames: ['svc'], categories: ['all'], subresources: { status: true }, strategy: serviceStrategy }),
    builtin({ resource: 'endpoints', kind: 'Endpoints', namespaced: true, shortNames: ['ep'], strategy: endpointsStrategy }),
    builtin({ resource: 'events', kind: 'Event', namespaced: true, shortNames: ['ev'], strategy: eventStrategy, fieldAccessors: eventFieldAccessors }),
    builtin({ resource: 'serviceaccounts', kind: 'ServiceAccount', namespaced: true, shortNames: ['sa'], subresources: { token: true }, strategy: plainStrategy }),
    builtin({ group: 'apps', resource: 'deployments', kind: 'Deployment', namespaced: true, shortNames: ['deploy'], categories: ['all'], subresources: { status: true, scale: replicasScale }, strategy: deploymentStrategy }),
    builtin({ group: 'apps', resource: 'replicasets', kind: 'ReplicaSet', namespaced: true, shortNames: ['rs'], categories: ['all'], subresources: { status: true, scale: replicasScale }, strategy: replicaSetStrategy, fieldAccessors: replicaSetFieldAccessors }),
    builtin({ group: 'apps', resource: 'daemonsets', kind: 'DaemonSet', namespaced: true, shortNames: ['ds'], categories: ['all'], subresources: { status: true }, strategy: daemonSetStrategy }),
    builtin({ group: 'batch', resource: 'jobs', kind: 'Job', namespaced: true, categories: ['all'], subresources: { status: true }, strategy: jobStrategy }),
    builtin({ group: 'batch', resource: 'cronjobs', kind: 'CronJob', namespaced: true, shortNames: ['cj'], categories: ['all'], subresources: { status: true }, strategy: cronJobStrategy }),
    builtin({ group: 'policy', resource: 'poddisruptionbudgets', kind: 'PodDisruptionBudget', namespaced: true, shortNames: ['pdb'], subresources: { status: true }, strategy: pdbStrategy }),
    builtin({ group: 'coordination.k8s.io', resource: 'leases', kind: 'Lease', namespaced: true, strategy: plainStrategy }),
    builtin({
      group: 'events.k8s.io',
      resource: 'events',
      kind: 'Event',
      namespaced: true,
      shortNames: ['ev'],
      strategy: eventStrategy,
      fieldAccessors: eventFieldAccessors,
      // One storage for both Event APIs, as kube-apiserver keeps them: stored as core/v1.
      storagePrefix: 'core/events',
      storageVersion: 'v1',
      conversion: { toStorage: eventsV1ToCoreEvent, fromStorage: coreEventToEventsV1 },
    }),
    builtin({ group: 'rbac.authorization.k8s.io', resource: 'roles', kind: 'Role', namespaced: true, strategy: roleStrategyNamespaced }),
    builtin({ group: 'rbac.authorization.k8s.io', resource: 'clusterroles', kind: 'ClusterRole', namespaced: false, strategy: clusterRoleStrategy }),
    builtin({ group: 'rbac.authorization.k8s.io', resource: 'rolebindings', kind: 'RoleBinding', namespaced: true, strategy: roleBindingStrategy }),
    builtin({ group: 'rbac.authorization.k8s.io', resource: 'clusterrolebindings', kind: 'ClusterRoleBinding', namespaced: false, strategy: clusterRoleBindingStrategy }),
    builtin({
      group: 'certificates.k8s.io',
      resource: 'certificatesigningrequests',
      kind: 'CertificateSigningRequest',
      namespaced: false,
      shortNames: ['csr'],
      subresources: { status: true, approval: true },
      strategy: certificateSigningRequestStrategy,
      fieldAccessors: certificateSigningRequestFieldAccessors,
    }),
    ...reviewResources(),
    builtin({ group: 'apiextensions.k8s.io', resource: 'customresourcedefinitions', kind: 'CustomResourceDefinition', namespaced: false, shortNames: ['crd', 'crds'], categories: ['api-extensions'], subresources: { status: true }, strategy: crdStrategy }),
  ];
}

/** The review APIs: create-only, never stored (answered by `apiserver/authz/reviews.ts`). */
function reviewResources(): ResourceDefinition[] {
  const review = (group: string, resource: string, kind: string, namespaced = false): ResourceDefinition =>
    builtin({ group, resource, kind, namespaced, strategy: plainStrategy, verbs: ['create'], storagePrefix: `${group}/${resource}` });
  return [
    review('authorization.k8s.io', 'subjectaccessreviews', 'SubjectAccessReview'),
    review('authorization.k8s.io', 'localsubjectaccessreviews', 'LocalSubjectAccessReview', true),
    review('authorization.k8s.io', 'selfsubjectaccessreviews', 'SelfSubjectAccessReview'),
    review('authorization.k8s.io', 'selfsubjectrulesreviews', 'SelfSubjectRulesReview'),
    review('authentication.k8s.io', 'tokenreviews', 'TokenReview'),
    review('authentication.k8s.io', 'selfsubjectreviews', 'SelfSubjectReview'),
  ];
}
