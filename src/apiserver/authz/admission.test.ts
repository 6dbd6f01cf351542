/**
 * The write checks of authorization, pinned to kube: RBAC escalation prevention
 * (pkg/registry/rbac/{role,clusterrole,rolebinding,clusterrolebinding}/policybased,
 * validation.ConfirmNoEscalation) and NodeRestriction (plugin/pkg/admission/noderestriction).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ApiError } from '../errors.ts';
import type { KubeObject, ResourceDefinition } from '../registry/resource.ts';
import { createAuthzAdmission, type AdmissionUser } from './admission.ts';
import { createAuthorizer } from './authorizer.ts';
import { NodeGraph } from './node-authorizer.ts';
import { RbacIndex } from './rbac-index.ts';

const rbacGroup = 'rbac.authorization.k8s.io';
const def = (group: string, resource: string, kind: string, namespaced = true) => ({ group, version: 'v1', resource, kind, namespaced }) as ResourceDefinition;
const roles = def(rbacGroup, 'roles', 'Role');
const clusterRoles = def(rbacGroup, 'clusterroles', 'ClusterRole', false);
const roleBindings = def(rbacGroup, 'rolebindings', 'RoleBinding');
const clusterRoleBindings = def(rbacGroup, 'clusterrolebindings', 'ClusterRoleBinding', false);
const nodes = def('', 'nodes', 'Node', false);
const pods = def('', 'pods', 'Pod');
const leases = def('coordination.k8s.io', 'leases', 'Lease');

const bob: AdmissionUser = { name: 'bob', groups: ['system:authenticated'] };
const kubelet: AdmissionUser = { name: 'system:node:one', groups: ['system:nodes', 'system:authenticated'] };

type Objects = [string, KubeObject][];

function admissionWith(objects: Objects) {
  const rbac = new RbacIndex();
  for (const [kind, obj] of objects) rbac.apply(kind, obj, obj);
  return createAuthzAdmission(rbac, createAuthorizer(rbac, new NodeGraph()));
}

const clusterRole = (name: string, rules: KubeObject[], extra: KubeObject = {}): [string, KubeObject] => ['ClusterRole', { metadata: { name }, rules, ...extra }];
const role = (name: string, namespace: string, rules: KubeObject[]): [string, KubeObject] => ['Role', { metadata: { name, namespace }, rules }];
const grant = (kind: 'RoleBinding' | 'ClusterRoleBinding', name: string, roleRef: { kind: string; name: string }, user = 'bob', namespace?: string): [string, KubeObject] => [
  kind,
  { metadata: { name, ...(namespace ? { namespace } : {}) }, roleRef: { apiGroup: rbacGroup, ...roleRef }, subjects: [{ kind: 'User', name: user }] },
];

const podsRule = (verbs: string[]) => ({ apiGroups: [''], resources: ['pods'], verbs });
const roleObj = (name: string, namespace: string, rules: KubeObject[]): KubeObject => ({ metadata: { name, namespace }, rules });
const bindingObj = (kind: 'RoleBinding' | 'ClusterRoleBinding', name: string, roleRef: { kind: string; name: string }, namespace?: string, subjects: KubeObject[] = [{ kind: 'User', name: 'carol' }]): KubeObject => ({
  metadata: { name, ...(namespace ? { namespace } : {}) },
  roleRef: { apiGroup: rbacGroup, ...roleRef },
  subjects,
});

/** Asserts a refusal and returns its message. */
function refused(fn: () => void, code = 403): string {
  let caught: ApiError | undefined;
  try {
    fn();
  } catch (err) {
    caught = err as ApiError;
  }
  assert.ok(caught, 'expected a refusal');
  assert.equal(caught.code, code, caught.message);
  return caught.message;
}

// bob holds get on pods in namespace a only.
const bobInA: Objects = [role('pod-get', 'a', [podsRule(['get'])]), grant('RoleBinding', 'bob-get', { kind: 'Role', name: 'pod-get' }, 'bob', 'a')];

describe('RBAC escalation prevention', () => {
  it('a Role may grant only what its author holds; the missing rules are listed compacted, as kube’s', () => {
    const adm = admissionWith(bobInA);
    adm.admit(roles, roleObj('r', 'a', [podsRule(['get'])]), undefined, { user: bob });
    const msg = refused(() => adm.admit(roles, roleObj('r', 'a', [podsRule(['get', 'list', 'watch'])]), undefined, { user: bob }));
    assert.equal(msg, 'roles.rbac.authorization.k8s.io "r" is forbidden: user "bob" (groups=["system:authenticated"]) is attempting to grant RBAC permissions not currently held:\n{APIGroups:[""], Resources:["pods"], Verbs:["list" "watch"]}');
    // What bob holds in namespace a does not count in namespace b.
    refused(() => adm.admit(roles, roleObj('r', 'b', [podsRule(['get'])]), undefined, { user: bob }));
  });

  it('resourceNames: each name granted must be held (or all names held)', () => {
    const adm = admissionWith([role('cm-x', 'a', [{ apiGroups: [''], resources: ['configmaps'], resourceNames: ['x'], verbs: ['get'] }]), grant('RoleBinding', 'b', { kind: 'Role', name: 'cm-x' }, 'bob', 'a')]);
    adm.admit(roles, roleObj('r', 'a', [{ apiGroups: [''], resources: ['configmaps'], resourceNames: ['x'], verbs: ['get'] }]), undefined, { user: bob });
    const msg = refused(() => adm.admit(roles, roleObj('r', 'a', [{ apiGroups: [''], resources: ['configmaps'], resourceNames: ['x', 'y'], verbs: ['get'] }]), undefined, { user: bob }));
    assert.match(msg, /not currently held:\n\{APIGroups:\[""\], Resources:\["configmaps"\], ResourceNames:\["y"\], Verbs:\["get"\]\}$/);
    refused(() => adm.admit(roles, roleObj('r', 'a', [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get'] }]), undefined, { user: bob }));
  });

  it('the escalate verb lifts the check; one limited by resourceNames allows updating those roles, not creating them', () => {
    const anyRole = admissionWith([role('esc', 'a', [{ apiGroups: [rbacGroup], resources: ['roles'], verbs: ['escalate'] }]), grant('RoleBinding', 'b', { kind: 'Role', name: 'esc' }, 'bob', 'a')]);
    anyRole.admit(roles, roleObj('r', 'a', [{ apiGroups: ['*'], resources: ['*'], verbs: ['*'] }]), undefined, { user: bob });
    const named = admissionWith([role('esc', 'a', [{ apiGroups: [rbacGroup], resources: ['roles'], resourceNames: ['r'], verbs: ['escalate'] }]), grant('RoleBinding', 'b', { kind: 'Role', name: 'esc' }, 'bob', 'a')]);
    const wide = roleObj('r', 'a', [podsRule(['*'])]);
    refused(() => named.admit(roles, wide, undefined, { user: bob }));
    named.admit(roles, wide, roleObj('r', 'a', []), { user: bob });
  });

  it('system:masters and the server’s own writes are not checked', () => {
    const adm = admissionWith([]);
    adm.admit(clusterRoles, { metadata: { name: 'all' }, rules: [{ apiGroups: ['*'], resources: ['*'], verbs: ['*'] }] }, undefined, { user: { name: 'admin', groups: ['system:masters'] } });
    adm.admit(clusterRoles, { metadata: { name: 'all' }, rules: [{ apiGroups: ['*'], resources: ['*'], verbs: ['*'] }] }, undefined, {});
  });

  it('an aggregationRule takes full authority, to set or to edit a role that has one, whatever its rules', () => {
    const aggregated = (rules: KubeObject[] = []): KubeObject => ({ metadata: { name: 'agg' }, rules, aggregationRule: { clusterRoleSelectors: [{ matchLabels: { x: 'y' } }] } });
    const plain = admissionWith(bobInA);
    assert.equal(refused(() => plain.admit(clusterRoles, aggregated(), undefined, { user: bob })), 'clusterroles.rbac.authorization.k8s.io "agg" is forbidden: must have cluster-admin privileges to use the aggregationRule');
    refused(() => plain.admit(clusterRoles, { metadata: { name: 'agg' }, rules: [] }, aggregated(), { user: bob }), 403);
    // Its rules are checked too.
    assert.match(refused(() => plain.admit(clusterRoles, aggregated([podsRule(['delete'])]), undefined, { user: bob })), /attempting to grant RBAC permissions not currently held/);
    const everything = admissionWith([clusterRole('cluster-admin', [{ apiGroups: ['*'], resources: ['*'], verbs: ['*'] }, { nonResourceURLs: ['*'], verbs: ['*'] }]), grant('ClusterRoleBinding', 'bob-admin', { kind: 'ClusterRole', name: 'cluster-admin' })]);
    everything.admit(clusterRoles, aggregated(), undefined, { user: bob });
    // Every ordinary verb on everything is still not everything (and `*` would include escalate).
    const most = admissionWith([clusterRole('most', [{ apiGroups: ['*'], resources: ['*'], verbs: ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete'] }]), grant('ClusterRoleBinding', 'bob-most', { kind: 'ClusterRole', name: 'most' })]);
    refused(() => most.admit(clusterRoles, aggregated(), undefined, { user: bob }));
    // The aggregation controller's identity holds escalate.
    const escalator = admissionWith([clusterRole('esc', [{ apiGroups: [rbacGroup], resources: ['clusterroles'], verbs: ['escalate'] }]), grant('ClusterRoleBinding', 'b', { kind: 'ClusterRole', name: 'esc' })]);
    escalator.admit(clusterRoles, aggregated([podsRule(['*'])]), aggregated(), { user: bob });
  });

  it('an update touching only owner references, finalizers or managed fields is not checked (the garbage collector’s)', () => {
    const adm = admissionWith([]);
    const old = { ...bindingObj('ClusterRoleBinding', 'admins', { kind: 'ClusterRole', name: 'cluster-admin' }), metadata: { name: 'admins', resourceVersion: '5', finalizers: ['f'] } };
    const gcEdit = { ...old, metadata: { name: 'admins', resourceVersion: '5', ownerReferences: [{ apiVersion: 'v1', kind: 'Namespace', name: 'x', uid: 'u' }] } };
    adm.admit(clusterRoleBindings, gcEdit, old, { user: bob });
    const subjectEdit = { ...old, subjects: [{ kind: 'User', name: 'bob' }] };
    assert.equal(refused(() => adm.admit(clusterRoleBindings, subjectEdit, old, { user: bob }), 404), 'clusterroles.rbac.authorization.k8s.io "cluster-admin" not found');
  });

  it('a binding needs the bind verb on its role, or holding every rule of it', () => {
    const reader: Objects = [clusterRole('pod-reader', [podsRule(['get'])]), clusterRole('admin', [podsRule(['*'])])];
    const adm = admissionWith([...reader, ...bobInA]);
    // bob holds pod get in a: binding pod-reader there is no escalation; in b, or cluster-wide, it is.
    adm.admit(roleBindings, bindingObj('RoleBinding', 'share', { kind: 'ClusterRole', name: 'pod-reader' }, 'a'), undefined, { user: bob });
    refused(() => adm.admit(roleBindings, bindingObj('RoleBinding', 'share', { kind: 'ClusterRole', name: 'pod-reader' }, 'b'), undefined, { user: bob }));
    const msg = refused(() => adm.admit(clusterRoleBindings, bindingObj('ClusterRoleBinding', 'share', { kind: 'ClusterRole', name: 'pod-reader' }), undefined, { user: bob }));
    assert.match(msg, /^clusterrolebindings\.rbac\.authorization\.k8s\.io "share" is forbidden: user "bob" \(groups=\["system:authenticated"\]\) is attempting to grant RBAC permissions not currently held:\n\{APIGroups:\[""\], Resources:\["pods"\], Verbs:\["get"\]\}$/);
    // bind on clusterroles/admin in namespace a: may bind admin there only.
    const binder = admissionWith([...reader, role('binder', 'a', [{ apiGroups: [rbacGroup], resources: ['clusterroles'], resourceNames: ['admin'], verbs: ['bind'] }]), grant('RoleBinding', 'b', { kind: 'Role', name: 'binder' }, 'bob', 'a')]);
    binder.admit(roleBindings, bindingObj('RoleBinding', 'x', { kind: 'ClusterRole', name: 'admin' }, 'a'), undefined, { user: bob });
    refused(() => binder.admit(roleBindings, bindingObj('RoleBinding', 'x', { kind: 'ClusterRole', name: 'admin' }, 'b'), undefined, { user: bob }));
  });

  it('binding a role that does not exist is kube’s NotFound for it, from the registry', () => {
    const adm = admissionWith(bobInA);
    assert.equal(refused(() => adm.admit(roleBindings, bindingObj('RoleBinding', 'x', { kind: 'ClusterRole', name: 'gone' }, 'a'), undefined, { user: bob }), 404), 'clusterroles.rbac.authorization.k8s.io "gone" not found');
    assert.equal(refused(() => adm.admit(roleBindings, bindingObj('RoleBinding', 'x', { kind: 'Role', name: 'gone' }, 'a'), undefined, { user: bob }), 404), 'roles.rbac.authorization.k8s.io "gone" not found');
  });

  it('roles the author’s bindings name but that are missing are listed as resolution errors', () => {
    const adm = admissionWith([...bobInA, grant('ClusterRoleBinding', 'broken', { kind: 'ClusterRole', name: 'gone' })]);
    const msg = refused(() => adm.admit(roles, roleObj('r', 'a', [podsRule(['delete'])]), undefined, { user: bob }));
    assert.match(msg, /Verbs:\["delete"\]\}; resolution errors: \[clusterroles\.rbac\.authorization\.k8s\.io "gone" not found\]$/);
  });
});

describe('NodeRestriction', () => {
  const adm = admissionWith([]);
  const node = (name: string, spec: KubeObject = {}, labels: Record<string, string> = {}): KubeObject => ({ metadata: { name, labels }, spec });
  const pod = (name: string, nodeName: string, o: { mirror?: boolean; labels?: Record<string, string> } = {}): KubeObject => ({
    metadata: { name, namespace: 'a', ...(o.mirror ? { annotations: { 'kubernetes.io/config.mirror': 'h' } } : {}), ...(o.labels ? { labels: o.labels } : {}) },
    spec: { nodeName, containers: [] },
  });
  const lease = (name: string, namespace = 'kube-node-lease'): KubeObject => ({ metadata: { name, namespace }, spec: { holderIdentity: name } });

  it('a kubelet writes its own Node only', () => {
    adm.admit(nodes, node('one'), undefined, { user: kubelet });
    adm.admit(nodes, node('one', {}, { x: 'y' }), node('one'), { user: kubelet });
    adm.admit(nodes, node('one'), node('one'), { user: kubelet, subresource: 'status' });
    assert.equal(refused(() => adm.admit(nodes, node('two', {}, { x: 'y' }), node('two'), { user: kubelet })), 'nodes "two" is forbidden: node "one" is not allowed to modify node "two"');
    assert.equal(refused(() => adm.admitDelete(nodes, node('two'), { user: kubelet })), 'nodes "two" is forbidden: node "one" is not allowed to modify node "two"');
    adm.admitDelete(nodes, node('one'), { user: kubelet });
  });

  it('a kubelet registers with taints but never changes them', () => {
    const taint = { key: 'node-role.kubernetes.io/master', effect: 'NoSchedule' };
    adm.admit(nodes, node('one', { taints: [taint] }), undefined, { user: kubelet });
    adm.admit(nodes, node('one', { taints: [taint] }, { x: 'y' }), node('one', { taints: [taint] }), { user: kubelet });
    adm.admit(nodes, node('one', { taints: [] }), node('one'), { user: kubelet });
    assert.equal(refused(() => adm.admit(nodes, node('one'), node('one', { taints: [taint] }), { user: kubelet })), 'nodes "one" is forbidden: node "one" is not allowed to modify taints');
  });

  it('a kubelet creates mirror pods bound to itself, and deletes only pods bound to itself', () => {
    adm.admit(pods, pod('static', 'one', { mirror: true }), undefined, { user: kubelet });
    assert.equal(refused(() => adm.admit(pods, pod('p', 'one'), undefined, { user: kubelet })), 'pods "p" is forbidden: pod does not have "kubernetes.io/config.mirror" annotation, node "one" can only create mirror pods');
    assert.equal(refused(() => adm.admit(pods, pod('p', 'two', { mirror: true }), undefined, { user: kubelet })), 'pods "p" is forbidden: node "one" can only create pods with spec.nodeName set to itself');
    adm.admitDelete(pods, pod('p', 'one'), { user: kubelet });
    assert.equal(refused(() => adm.admitDelete(pods, pod('p', 'two'), { user: kubelet })), 'pods "p" is forbidden: node "one" can only delete pods with spec.nodeName set to itself');
  });

  it('a kubelet updates the status of its pods only, and never their labels; nothing else of a pod', () => {
    adm.admit(pods, pod('p', 'one'), pod('p', 'one'), { user: kubelet, subresource: 'status' });
    assert.equal(refused(() => adm.admit(pods, pod('p', 'two'), pod('p', 'two'), { user: kubelet, subresource: 'status' })), 'pods "p" is forbidden: node "one" can only update pod status for pods with spec.nodeName set to itself');
    assert.equal(refused(() => adm.admit(pods, pod('p', 'one', { labels: { a: 'b' } }), pod('p', 'one'), { user: kubelet, subresource: 'status' })), 'pods "p" is forbidden: node "one" cannot update labels through pod status');
    assert.equal(refused(() => adm.admit(pods, pod('p', 'one', { labels: { a: 'b' } }), pod('p', 'one'), { user: kubelet })), 'pods "p" is forbidden: unexpected operation "UPDATE", node "one" can only create and delete mirror pods');
    assert.equal(refused(() => adm.admit(pods, pod('p', 'one'), pod('p', 'one'), { user: kubelet, subresource: 'binding' })), 'pods "p" is forbidden: unexpected pod subresource "binding", only \'status\' and \'eviction\' are allowed');
  });

  it('a kubelet creates and writes only its own Lease in kube-node-lease', () => {
    adm.admit(leases, lease('one'), undefined, { user: kubelet });
    adm.admit(leases, lease('one'), lease('one'), { user: kubelet });
    assert.equal(refused(() => adm.admit(leases, lease('two'), undefined, { user: kubelet })), 'leases.coordination.k8s.io "two" is forbidden: can only access node lease with the same name as the requesting node');
    assert.equal(refused(() => adm.admit(leases, lease('one', 'kube-system'), undefined, { user: kubelet })), 'leases.coordination.k8s.io "one" is forbidden: can only access leases in the "kube-node-lease" system namespace');
    refused(() => adm.admitDelete(leases, lease('two'), { user: kubelet }));
  });

  it('others are not restricted', () => {
    adm.admit(pods, pod('p', 'two'), pod('p', 'two'), { user: bob });
    adm.admit(leases, lease('two'), undefined, { user: bob });
    adm.admitDelete(nodes, node('two'), { user: bob });
  });
});
