/**
 * The built-in kinds Shipyard publishes schemas for: each kind's group, version, the
 * @kubernetes/client-node model class it is generated from, and a short description. Every
 * schema in the built-in component map is reached from these roots.
 */

export interface BuiltinKind {
  readonly group: string;
  readonly version: string;
  readonly kind: string;
  /** The client-node model class, e.g. `V1Pod`. */
  readonly model: string;
  readonly description: string;
}

export const builtinKinds: readonly BuiltinKind[] = [
  { group: '', version: 'v1', kind: 'Namespace', model: 'V1Namespace', description: 'A Namespace scopes the names of the objects created in it. Deleting a namespace deletes everything it holds.' },
  { group: '', version: 'v1', kind: 'Node', model: 'V1Node', description: 'A Node is a machine that runs pods. Its status reports capacity, addresses, conditions and the software it runs.' },
  { group: '', version: 'v1', kind: 'Pod', model: 'V1Pod', description: 'A Pod is a group of containers scheduled together onto one node, sharing its network and volumes.' },
  { group: '', version: 'v1', kind: 'ConfigMap', model: 'V1ConfigMap', description: 'A ConfigMap holds non-secret configuration as string or binary values, for pods to read as files or environment variables.' },
  { group: '', version: 'v1', kind: 'Secret', model: 'V1Secret', description: 'A Secret holds a small amount of sensitive data (base64 in `data`, plain text in the write-only `stringData`).' },
  { group: '', version: 'v1', kind: 'Service', model: 'V1Service', description: 'A Service gives a set of pods, chosen by a label selector, one stable virtual address and port mapping.' },
  { group: '', version: 'v1', kind: 'Endpoints', model: 'V1Endpoints', description: 'Endpoints list the addresses and ports that currently back a Service.' },
  { group: '', version: 'v1', kind: 'Event', model: 'CoreV1Event', description: 'An Event reports something that happened to an object (the involvedObject), such as a state change or an error.' },
  { group: '', version: 'v1', kind: 'ServiceAccount', model: 'V1ServiceAccount', description: 'A ServiceAccount is an identity for processes that run in pods, with the secrets they may use.' },
  { group: '', version: 'v1', kind: 'Binding', model: 'V1Binding', description: 'A Binding assigns a pod to a node; the scheduler posts it to the pod\'s `binding` subresource.' },
  { group: '', version: 'v1', kind: 'Status', model: 'V1Status', description: 'Status is the result of an operation that returns no object, and the body of every error response.' },
  { group: '', version: 'v1', kind: 'DeleteOptions', model: 'V1DeleteOptions', description: 'DeleteOptions may be sent as the body of a DELETE to choose the grace period, preconditions and how dependents are handled.' },
  { group: 'apps', version: 'v1', kind: 'Deployment', model: 'V1Deployment', description: 'A Deployment keeps a number of identical pods running and rolls out changes to their template through ReplicaSets.' },
  { group: 'apps', version: 'v1', kind: 'ReplicaSet', model: 'V1ReplicaSet', description: 'A ReplicaSet keeps a given number of pods matching its selector running.' },
  { group: 'apps', version: 'v1', kind: 'DaemonSet', model: 'V1DaemonSet', description: 'A DaemonSet runs one copy of a pod on every node that matches its template\'s placement rules.' },
  { group: 'batch', version: 'v1', kind: 'Job', model: 'V1Job', description: 'A Job runs pods until a given number of them complete successfully, retrying failed ones up to a limit.' },
  { group: 'batch', version: 'v1', kind: 'CronJob', model: 'V1CronJob', description: 'A CronJob creates Jobs on a repeating schedule written in cron format.' },
  { group: 'policy', version: 'v1', kind: 'PodDisruptionBudget', model: 'V1PodDisruptionBudget', description: 'A PodDisruptionBudget limits how many pods of a set voluntary disruptions (evictions) may take down at once.' },
  { group: 'policy', version: 'v1', kind: 'Eviction', model: 'V1Eviction', description: 'An Eviction asks for a pod to be deleted, subject to the PodDisruptionBudgets that cover it; it is posted to the pod\'s `eviction` subresource.' },
  { group: 'coordination.k8s.io', version: 'v1', kind: 'Lease', model: 'V1Lease', description: 'A Lease records who holds a lock and until when; used for leader election and node heartbeats.' },
  { group: 'events.k8s.io', version: 'v1', kind: 'Event', model: 'EventsV1Event', description: 'An Event reports something that happened to an object (the regarding object); the events.k8s.io form of core/v1 Event.' },
  { group: 'rbac.authorization.k8s.io', version: 'v1', kind: 'Role', model: 'V1Role', description: 'A Role grants rules (verbs on resources) within one namespace, to the subjects of the RoleBindings that name it.' },
  { group: 'rbac.authorization.k8s.io', version: 'v1', kind: 'ClusterRole', model: 'V1ClusterRole', description: 'A ClusterRole grants rules cluster-wide or, bound by a RoleBinding, within one namespace; an aggregationRule gathers the rules of other ClusterRoles.' },
  { group: 'rbac.authorization.k8s.io', version: 'v1', kind: 'RoleBinding', model: 'V1RoleBinding', description: 'A RoleBinding grants a Role or ClusterRole to users, groups and service accounts within its namespace.' },
  { group: 'rbac.authorization.k8s.io', version: 'v1', kind: 'ClusterRoleBinding', model: 'V1ClusterRoleBinding', description: 'A ClusterRoleBinding grants a ClusterRole to users, groups and service accounts across the cluster.' },
  { group: 'authorization.k8s.io', version: 'v1', kind: 'SubjectAccessReview', model: 'V1SubjectAccessReview', description: 'A SubjectAccessReview asks whether a user or group may perform an action.' },
  { group: 'authorization.k8s.io', version: 'v1', kind: 'LocalSubjectAccessReview', model: 'V1LocalSubjectAccessReview', description: 'A LocalSubjectAccessReview asks whether a user or group may perform an action in one namespace.' },
  { group: 'authorization.k8s.io', version: 'v1', kind: 'SelfSubjectAccessReview', model: 'V1SelfSubjectAccessReview', description: 'A SelfSubjectAccessReview asks whether the requesting user may perform an action (`kubectl auth can-i`).' },
  { group: 'authorization.k8s.io', version: 'v1', kind: 'SelfSubjectRulesReview', model: 'V1SelfSubjectRulesReview', description: 'A SelfSubjectRulesReview lists the actions the requesting user may perform in a namespace (`kubectl auth can-i --list`).' },
  { group: 'authentication.k8s.io', version: 'v1', kind: 'TokenReview', model: 'V1TokenReview', description: 'A TokenReview asks who a bearer token authenticates as.' },
  { group: 'authentication.k8s.io', version: 'v1', kind: 'SelfSubjectReview', model: 'V1SelfSubjectReview', description: 'A SelfSubjectReview reports who the requesting user is (`kubectl auth whoami`).' },
  { group: 'certificates.k8s.io', version: 'v1', kind: 'CertificateSigningRequest', model: 'V1CertificateSigningRequest', description: 'A CertificateSigningRequest asks a signer for an X.509 certificate: it carries a PKCS#10 request, is approved or denied through `/approval`, and the signer puts the certificate in `status.certificate`.' },
  { group: 'apiextensions.k8s.io', version: 'v1', kind: 'CustomResourceDefinition', model: 'V1CustomResourceDefinition', description: 'A CustomResourceDefinition adds a new resource type to the API server, with its names, versions and schemas.' },
  { group: 'autoscaling', version: 'v1', kind: 'Scale', model: 'V1Scale', description: 'Scale is the `scale` subresource of a scalable resource: its desired and observed replica counts and label selector.' },
];

/** Models that are not kinds but must be present (List kinds are synthesised around ListMeta). */
export const extraModels: readonly string[] = ['V1ListMeta'];
