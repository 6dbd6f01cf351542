/**
 * The default roles and bindings every cluster starts with: kube's bootstrap policy
 * (plugin/pkg/auth/authorizer/rbac/bootstrappolicy), less roles for APIs Shipyard does not
 * serve, plus the identities Shipyard's own control plane runs as. Reconciled at every start as
 * kube-apiserver's `rbac/bootstrap-roles` hook does: what is missing is created, and a default
 * still marked `rbac.authorization.kubernetes.io/autoupdate: "true"` gets back any rule or
 * subject that was removed (additions are kept).
 */
import { nodeRules } from './node-authorizer.ts';
import type { PolicyRule } from './rules.ts';

const read = ['get', 'list', 'watch'];
const readWrite = ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete', 'deletecollection'];
const write = ['create', 'update', 'patch', 'delete', 'deletecollection'];

export interface DefaultClusterRole {
  readonly name: string;
  readonly rules: readonly PolicyRule[];
  readonly labels?: Record<string, string>;
  readonly aggregateTo?: 'admin' | 'edit' | 'view';
  readonly aggregationRule?: { clusterRoleSelectors: { matchLabels: Record<string, string> }[] };
}

export interface DefaultBinding {
  readonly name: string;
  readonly role: string;
  readonly subjects: readonly { kind: 'User' | 'Group' | 'ServiceAccount'; name: string; namespace?: string }[];
  /** For a RoleBinding: its namespace; a ClusterRoleBinding has none. */
  readonly namespace?: string;
  readonly roleKind?: 'Role' | 'ClusterRole';
}

export interface DefaultRole {
  readonly name: string;
  readonly namespace: string;
  readonly rules: readonly PolicyRule[];
}

const r = (verbs: readonly string[], apiGroups: readonly string[], resources: readonly string[], resourceNames?: readonly string[]): PolicyRule => ({
  verbs,
  apiGroups,
  resources,
  ...(resourceNames ? { resourceNames } : {}),
});
const url = (verbs: readonly string[], nonResourceURLs: readonly string[]): PolicyRule => ({ verbs, nonResourceURLs });
const aggregated = (to: string) => ({ clusterRoleSelectors: [{ matchLabels: { [`rbac.authorization.k8s.io/aggregate-to-${to}`]: 'true' } }] });

const eventsRule = r(['create', 'update', 'patch'], ['', 'events.k8s.io'], ['events']);

export const defaultClusterRoles: readonly DefaultClusterRole[] = [
  { name: 'cluster-admin', rules: [r(['*'], ['*'], ['*']), url(['*'], ['*'])] },
  { name: 'admin', rules: [], aggregationRule: aggregated('admin') },
  { name: 'edit', rules: [], aggregationRule: aggregated('edit'), aggregateTo: 'admin' },
  { name: 'view', rules: [], aggregationRule: aggregated('view'), aggregateTo: 'edit' },
  {
    name: 'system:aggregate-to-admin',
    aggregateTo: 'admin',
    rules: [
      r(['create'], ['authorization.k8s.io'], ['localsubjectaccessreviews']),
      r(readWrite, ['rbac.authorization.k8s.io'], ['rolebindings', 'roles']),
    ],
  },
  {
    name: 'system:aggregate-to-edit',
    aggregateTo: 'edit',
    rules: [
      r(['impersonate'], [''], ['serviceaccounts']),
      r(write, [''], ['pods', 'pods/attach', 'pods/proxy', 'pods/exec', 'pods/portforward']),
      r(['create'], [''], ['pods/eviction']),
      r(write, [''], ['configmaps', 'events', 'persistentvolumeclaims', 'replicationcontrollers', 'replicationcontrollers/scale', 'secrets', 'serviceaccounts', 'services', 'services/proxy', 'endpoints']),
      r(['create'], [''], ['serviceaccounts/token']),
      r(write, ['apps'], ['daemonsets', 'deployments', 'deployments/rollback', 'deployments/scale', 'replicasets', 'replicasets/scale', 'statefulsets', 'statefulsets/scale']),
      r(write, ['autoscaling'], ['horizontalpodautoscalers']),
      r(write, ['batch'], ['cronjobs', 'jobs']),
      r(write, ['networking.k8s.io'], ['ingresses', 'networkpolicies']),
      r(write, ['policy'], ['poddisruptionbudgets']),
      r(write, ['coordination.k8s.io'], ['leases']),
    ],
  },
  {
    name: 'system:aggregate-to-view',
    aggregateTo: 'view',
    rules: [
      r(read, [''], ['pods', 'replicationcontrollers', 'replicationcontrollers/scale', 'serviceaccounts', 'services', 'services/status', 'endpoints', 'persistentvolumeclaims', 'persistentvolumeclaims/status', 'configmaps']),
      r(read, [''], ['bindings', 'events', 'limitranges', 'namespaces/status', 'pods/log', 'pods/status', 'replicationcontrollers/status', 'resourcequotas', 'resourcequotas/status']),
      r(read, [''], ['namespaces']),
      r(read, ['discovery.k8s.io'], ['endpointslices']),
      r(read, ['apps'], ['controllerrevisions', 'daemonsets', 'daemonsets/status', 'deployments', 'deployments/scale', 'deployments/status', 'replicasets', 'replicasets/scale', 'replicasets/status', 'statefulsets', 'statefulsets/scale', 'statefulsets/status']),
      r(read, ['autoscaling'], ['horizontalpodautoscalers', 'horizontalpodautoscalers/status']),
      r(read, ['batch'], ['cronjobs', 'cronjobs/status', 'jobs', 'jobs/status']),
      r(read, ['policy'], ['poddisruptionbudgets', 'poddisruptionbudgets/status']),
      r(read, ['networking.k8s.io'], ['ingresses', 'ingresses/status', 'networkpolicies']),
      r(read, ['coordination.k8s.io'], ['leases']),
    ],
  },
  {
    name: 'system:discovery',
    rules: [url(['get'], ['/api', '/api/*', '/apis', '/apis/*', '/healthz', '/livez', '/openapi', '/openapi/*', '/readyz', '/version', '/version/'])],
  },
  { name: 'system:public-info-viewer', rules: [url(['get'], ['/healthz', '/livez', '/readyz', '/version', '/version/'])] },
  {
    name: 'system:basic-user',
    rules: [r(['create'], ['authorization.k8s.io'], ['selfsubjectaccessreviews', 'selfsubjectrulesreviews']), r(['create'], ['authentication.k8s.io'], ['selfsubjectreviews'])],
  },
  { name: 'system:monitoring', rules: [url(['get'], ['/metrics', '/metrics/slis', '/livez', '/readyz', '/healthz', '/livez/*', '/readyz/*', '/healthz/*'])] },
  { name: 'system:auth-delegator', rules: [r(['create'], ['authentication.k8s.io'], ['tokenreviews']), r(['create'], ['authorization.k8s.io'], ['subjectaccessreviews'])] },
  // What a joining node's bootstrap credential may do: ask for its certificate (kube's role; the machine-config server's node-bootstrapper ServiceAccount is bound to it).
  { name: 'system:node-bootstrapper', rules: [r(['create', 'get', 'list', 'watch'], ['certificates.k8s.io'], ['certificatesigningrequests'])] },
  // Kube's certificate roles: the nodeclient ones are what its csrapproving controller asks about;
  // each approver role lets its holders approve (or deny) requests to one signer.
  { name: 'system:certificates.k8s.io:certificatesigningrequests:nodeclient', rules: [r(['create'], ['certificates.k8s.io'], ['certificatesigningrequests/nodeclient'])] },
  { name: 'system:certificates.k8s.io:certificatesigningrequests:selfnodeclient', rules: [r(['create'], ['certificates.k8s.io'], ['certificatesigningrequests/selfnodeclient'])] },
  { name: 'system:certificates.k8s.io:kube-apiserver-client-approver', rules: [r(['approve'], ['certificates.k8s.io'], ['signers'], ['kubernetes.io/kube-apiserver-client'])] },
  { name: 'system:certificates.k8s.io:kube-apiserver-client-kubelet-approver', rules: [r(['approve'], ['certificates.k8s.io'], ['signers'], ['kubernetes.io/kube-apiserver-client-kubelet'])] },
  { name: 'system:certificates.k8s.io:kubelet-serving-approver', rules: [r(['approve'], ['certificates.k8s.io'], ['signers'], ['kubernetes.io/kubelet-serving'])] },
  { name: 'system:certificates.k8s.io:legacy-unknown-approver', rules: [r(['approve'], ['certificates.k8s.io'], ['signers'], ['kubernetes.io/legacy-unknown'])] },
  {
    name: 'system:kube-scheduler',
    rules: [
      eventsRule,
      r(['create'], ['coordination.k8s.io'], ['leases']),
      r(['get', 'update'], ['coordination.k8s.io'], ['leases'], ['kube-scheduler']),
      r(read, [''], ['nodes']),
      r(['get', 'list', 'watch', 'delete'], [''], ['pods']),
      r(['create'], [''], ['pods/binding', 'bindings']),
      r(['patch', 'update'], [''], ['pods/status']),
      r(read, [''], ['replicationcontrollers', 'services', 'namespaces', 'persistentvolumeclaims', 'persistentvolumes']),
      r(read, ['apps'], ['replicasets', 'statefulsets']),
      r(read, ['policy'], ['poddisruptionbudgets']),
      r(read, ['storage.k8s.io'], ['storageclasses', 'csinodes', 'csidrivers', 'csistoragecapacities']),
      r(['create'], ['authentication.k8s.io'], ['tokenreviews']),
      r(['create'], ['authorization.k8s.io'], ['subjectaccessreviews']),
    ],
  },
  {
    // Shipyard's controller-manager runs every controller under its own identity (kube's
    // `--use-service-account-credentials=false`), so its role is what those controllers need,
    // listed per controller as kube's `system:controller:*` roles have them.
    name: 'system:kube-controller-manager',
    rules: [
      eventsRule,
      r(['create'], ['coordination.k8s.io'], ['leases']),
      r(['get', 'update'], ['coordination.k8s.io'], ['leases'], ['kube-controller-manager']),
      r(['create'], ['authentication.k8s.io'], ['tokenreviews']),
      r(['create'], ['authorization.k8s.io'], ['subjectaccessreviews']),
      // garbage collector: every resource's metadata, and deleting dependents
      r(['get', 'list', 'watch', 'patch', 'update', 'delete'], ['*'], ['*']),
      // replicaset, deployment, daemonset, job, cronjob, disruption
      r(['create', 'delete', 'patch', 'update'], [''], ['pods']),
      r(['update', 'patch'], [''], ['pods/status']),
      r(['create', 'delete', 'patch', 'update'], ['apps'], ['replicasets', 'controllerrevisions']),
      r(['update', 'patch'], ['apps'], ['deployments/status', 'replicasets/status', 'daemonsets/status', 'deployments/finalizers', 'replicasets/finalizers', 'daemonsets/finalizers']),
      r(['create', 'delete', 'patch', 'update'], ['batch'], ['jobs']),
      r(['update', 'patch'], ['batch'], ['jobs/status', 'jobs/finalizers', 'cronjobs/status', 'cronjobs/finalizers']),
      r(['update', 'patch'], ['policy'], ['poddisruptionbudgets/status']),
      // endpoints
      r(['create', 'update', 'delete'], [''], ['endpoints', 'endpoints/restricted']),
      // node ipam and lifecycle
      r(['update', 'patch'], [''], ['nodes', 'nodes/status']),
      // namespace-scoped defaults: serviceaccounts, kube-root-ca.crt
      r(['create'], [''], ['serviceaccounts', 'configmaps']),
      r(['create'], [''], ['serviceaccounts/token']),
      // clusterrole aggregation writes the rules it gathers, which needs escalate
      r(['escalate', 'update', 'patch'], ['rbac.authorization.k8s.io'], ['clusterroles']),
      // csrsigning issues certificates for kube's signers; csrcleaner deletes old requests (delete is above)
      r(['update'], ['certificates.k8s.io'], ['certificatesigningrequests/status']),
      r(['sign'], ['certificates.k8s.io'], ['signers'], ['kubernetes.io/kube-apiserver-client', 'kubernetes.io/kube-apiserver-client-kubelet', 'kubernetes.io/kubelet-serving', 'kubernetes.io/legacy-unknown']),
    ],
  },
  // Kube ships the kubelets' rules as this role but binds it to nobody: the Node authorizer
  // grants them, narrowed to each node's own objects.
  { name: 'system:node', rules: nodeRules },
  {
    // The hollow node host (src/node/node-host.ts) feeds every kubelet of a datacenter from one
    // pod, node and Service informer and records their events, as kwok does for its nodes; each
    // kubelet's own reads and writes (its Node, its Lease, its pods) go out as `system:node:<name>`.
    name: 'system:shipyard:node-host',
    rules: [r(read, [''], ['pods', 'nodes', 'services', 'endpoints']), eventsRule],
  },
];

export const defaultClusterRoleBindings: readonly DefaultBinding[] = [
  { name: 'cluster-admin', role: 'cluster-admin', subjects: [{ kind: 'Group', name: 'system:masters' }] },
  { name: 'system:discovery', role: 'system:discovery', subjects: [{ kind: 'Group', name: 'system:authenticated' }] },
  { name: 'system:basic-user', role: 'system:basic-user', subjects: [{ kind: 'Group', name: 'system:authenticated' }] },
  { name: 'system:public-info-viewer', role: 'system:public-info-viewer', subjects: [{ kind: 'Group', name: 'system:authenticated' }, { kind: 'Group', name: 'system:unauthenticated' }] },
  { name: 'system:monitoring', role: 'system:monitoring', subjects: [{ kind: 'Group', name: 'system:monitoring' }] },
  { name: 'system:kube-scheduler', role: 'system:kube-scheduler', subjects: [{ kind: 'User', name: 'system:kube-scheduler' }] },
  { name: 'system:kube-controller-manager', role: 'system:kube-controller-manager', subjects: [{ kind: 'User', name: 'system:kube-controller-manager' }] },
  { name: 'system:node', role: 'system:node', subjects: [] },
  { name: 'system:shipyard:node-host', role: 'system:shipyard:node-host', subjects: [{ kind: 'User', name: 'system:shipyard:node-host' }] },
];

/** Kube's namespaced bootstrap roles: leader election for the control plane in kube-system. */
export const defaultRoles: readonly DefaultRole[] = [
  { name: 'extension-apiserver-authentication-reader', namespace: 'kube-system', rules: [r(['get', 'list', 'watch'], [''], ['configmaps'], ['extension-apiserver-authentication'])] },
  { name: 'system::leader-locking-kube-controller-manager', namespace: 'kube-system', rules: [r(['watch'], [''], ['configmaps']), r(['get', 'update'], [''], ['configmaps'], ['kube-controller-manager'])] },
  { name: 'system::leader-locking-kube-scheduler', namespace: 'kube-system', rules: [r(['watch'], [''], ['configmaps']), r(['get', 'update'], [''], ['configmaps'], ['kube-scheduler'])] },
];

export const defaultRoleBindings: readonly DefaultBinding[] = [
  { name: 'system::leader-locking-kube-controller-manager', namespace: 'kube-system', role: 'system::leader-locking-kube-controller-manager', roleKind: 'Role', subjects: [{ kind: 'User', name: 'system:kube-controller-manager' }] },
  { name: 'system::leader-locking-kube-scheduler', namespace: 'kube-system', role: 'system::leader-locking-kube-scheduler', roleKind: 'Role', subjects: [{ kind: 'User', name: 'system:kube-scheduler' }] },
];
