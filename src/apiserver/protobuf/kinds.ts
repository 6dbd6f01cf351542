/**
 * Which message decodes which kind: the compiled tables, and the (apiVersion, kind) pairs a
 * protobuf body may name. DeleteOptions is accepted under any apiVersion, since client-go
 * stamps it with the group version of the resource being deleted.
 */
import { compileTable, mergeTables, type Message } from './schema.ts';
import { appsV1 } from './tables/apps-v1.ts';
import { authenticationV1 } from './tables/authentication-v1.ts';
import { batchV1 } from './tables/batch-v1.ts';
import { certificatesV1 } from './tables/certificates-v1.ts';
import { coreV1 } from './tables/core-v1.ts';
import { coreV1Container } from './tables/core-v1-container.ts';
import { coreV1Pod } from './tables/core-v1-pod.ts';
import { coreV1Scheduling } from './tables/core-v1-scheduling.ts';
import { coreV1Volumes } from './tables/core-v1-volumes.ts';
import { metaV1 } from './tables/meta-v1.ts';
import { policyV1 } from './tables/policy-v1.ts';
import { authorizationV1 } from './tables/authorization-v1.ts';
import { rbacV1 } from './tables/rbac-v1.ts';

export const messages: ReadonlyMap<string, Message> = compileTable(mergeTables(metaV1, coreV1, coreV1Pod, coreV1Container, coreV1Volumes, coreV1Scheduling, appsV1, batchV1, policyV1, authenticationV1, authorizationV1, rbacV1, certificatesV1));

/** `apiVersion/kind` → the message its raw bytes hold. */
const kinds: Readonly<Record<string, string>> = {
  'v1/Namespace': 'Namespace',
  'v1/ConfigMap': 'ConfigMap',
  'v1/Secret': 'Secret',
  'v1/ServiceAccount': 'ServiceAccount',
  'v1/Service': 'Service',
  'v1/Pod': 'Pod',
  'apps/v1/Deployment': 'Deployment',
  'batch/v1/Job': 'Job',
  'batch/v1/CronJob': 'CronJob',
  'policy/v1/PodDisruptionBudget': 'PodDisruptionBudget',
  'policy/v1/Eviction': 'Eviction',
  'authentication.k8s.io/v1/TokenRequest': 'TokenRequest',
  'authentication.k8s.io/v1/SelfSubjectReview': 'SelfSubjectReview',
  'authentication.k8s.io/v1/TokenReview': 'TokenReview',
  'authorization.k8s.io/v1/SubjectAccessReview': 'SubjectAccessReview',
  'authorization.k8s.io/v1/LocalSubjectAccessReview': 'LocalSubjectAccessReview',
  'authorization.k8s.io/v1/SelfSubjectAccessReview': 'SelfSubjectAccessReview',
  'authorization.k8s.io/v1/SelfSubjectRulesReview': 'SelfSubjectRulesReview',
  'rbac.authorization.k8s.io/v1/Role': 'Role',
  'rbac.authorization.k8s.io/v1/ClusterRole': 'ClusterRole',
  'rbac.authorization.k8s.io/v1/RoleBinding': 'RoleBinding',
  'rbac.authorization.k8s.io/v1/ClusterRoleBinding': 'ClusterRoleBinding',
  'certificates.k8s.io/v1/CertificateSigningRequest': 'CertificateSigningRequest',
};

export function messageForKind(apiVersion: string, kind: string): Message | undefined {
  const name = kind === 'DeleteOptions' ? 'DeleteOptions' : Object.hasOwn(kinds, `${apiVersion}/${kind}`) ? kinds[`${apiVersion}/${kind}`] : undefined;
  return name === undefined ? undefined : messages.get(name);
}

/** The `apiVersion/kind` pairs that decode (DeleteOptions aside). */
export const supportedKinds: readonly string[] = Object.keys(kinds);
