/**
 * The RBAC index as kube's RBACAuthorizer (plugin/pkg/auth/authorizer/rbac/rbac.go,
 * pkg/registry/rbac/validation/rule.go): reasons credited to the binding's first subject that
 * applies, missing roles reported once as kube's aggregate error, ServiceAccount subjects,
 * ClusterRoles bound in one namespace, non-resource URLs, and a namespace's own URL being in
 * that namespace. (rbac-index.test.ts covers the index's bookkeeping.)
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { UserInfo } from '../auth/tokens.ts';
import { parseRequestInfo } from '../http/request-info.ts';
import type { KubeObject } from '../registry/resource.ts';
import { attributesOf, type Attributes, type ResourceAttributes } from './attributes.ts';
import { aggregateMessage, missingRoleMessage, RbacIndex } from './rbac-index.ts';

const alice: UserInfo = { name: 'alice', uid: '', groups: ['devs', 'system:authenticated'] };
const sa: UserInfo = { name: 'system:serviceaccount:a:builder', uid: '', groups: ['system:serviceaccounts', 'system:serviceaccounts:a', 'system:authenticated'] };

const ask = (user: UserInfo, verb: string, resource: string, namespace: string, o: Partial<ResourceAttributes> = {}): ResourceAttributes => ({ kind: 'resource', user, verb, namespace, apiGroup: '', resource, subresource: '', name: '', ...o });
const meta = (name: string, namespace?: string) => ({ name, ...(namespace ? { namespace } : {}) });
const role = (kind: 'Role' | 'ClusterRole', name: string, namespace: string | undefined, rules: KubeObject[]) => ({ kind, obj: { metadata: meta(name, namespace), rules } });
const binding = (kind: 'RoleBinding' | 'ClusterRoleBinding', name: string, namespace: string | undefined, roleRef: { kind: string; name: string }, subjects: KubeObject[]) => ({ kind, obj: { metadata: meta(name, namespace), roleRef, subjects } });

function indexOf(...objects: { kind: string; obj: KubeObject }[]): RbacIndex {
  const index = new RbacIndex();
  for (const { kind, obj } of objects) index.apply(kind, obj, obj);
  return index;
}

const readPods = role('ClusterRole', 'pod-reader', undefined, [{ apiGroups: [''], resources: ['pods'], verbs: ['get', 'list'] }]);

describe('RBAC authorizer as kube’s', () => {
  it('credits an allow to the first subject of the binding that applies, in the binding’s order', () => {
    const index = indexOf(readPods, binding('ClusterRoleBinding', 'readers', undefined, { kind: 'ClusterRole', name: 'pod-reader' }, [{ kind: 'Group', name: 'devs' }, { kind: 'User', name: 'alice' }]));
    assert.equal(index.authorize(ask(alice, 'get', 'pods', 'x')).reason, 'RBAC: allowed by ClusterRoleBinding "readers" of ClusterRole "pod-reader" to Group "devs"');
    const userFirst = indexOf(readPods, binding('ClusterRoleBinding', 'readers', undefined, { kind: 'ClusterRole', name: 'pod-reader' }, [{ kind: 'User', name: 'alice' }, { kind: 'Group', name: 'devs' }]));
    assert.equal(userFirst.authorize(ask(alice, 'get', 'pods', 'x')).reason, 'RBAC: allowed by ClusterRoleBinding "readers" of ClusterRole "pod-reader" to User "alice"');
  });

  it('a ServiceAccount subject is the user system:serviceaccount:<ns>:<name>, its namespace defaulting to the RoleBinding’s', () => {
    const index = indexOf(
      readPods,
      binding('RoleBinding', 'builder-reads', 'a', { kind: 'ClusterRole', name: 'pod-reader' }, [{ kind: 'ServiceAccount', name: 'builder' }]),
    );
    const d = index.authorize(ask(sa, 'list', 'pods', 'a'));
    assert.equal(d.allowed, true);
    assert.equal(d.reason, 'RBAC: allowed by RoleBinding "builder-reads/a" of ClusterRole "pod-reader" to ServiceAccount "builder/a"');
    // A user merely named like a ServiceAccount of another namespace is someone else.
    assert.equal(index.authorize(ask({ ...sa, name: 'system:serviceaccount:b:builder' }, 'list', 'pods', 'a')).allowed, false);
  });

  it('a ServiceAccount subject without a namespace in a ClusterRoleBinding applies to no one', () => {
    const index = indexOf(readPods, binding('ClusterRoleBinding', 'nobody', undefined, { kind: 'ClusterRole', name: 'pod-reader' }, [{ kind: 'ServiceAccount', name: 'builder' }]));
    assert.equal(index.authorize(ask({ name: 'system:serviceaccount::builder', uid: '', groups: [] }, 'list', 'pods', 'a')).allowed, false);
    assert.equal(index.authorize(ask(sa, 'list', 'pods', 'a')).allowed, false);
  });

  it('a RoleBinding to a ClusterRole grants only in its own namespace, and nothing at the cluster scope', () => {
    const index = indexOf(readPods, binding('RoleBinding', 'alice-reads', 'team', { kind: 'ClusterRole', name: 'pod-reader' }, [{ kind: 'User', name: 'alice' }]));
    assert.equal(index.authorize(ask(alice, 'list', 'pods', 'team')).allowed, true);
    assert.equal(index.authorize(ask(alice, 'list', 'pods', 'other')).allowed, false);
    assert.equal(index.authorize(ask(alice, 'list', 'pods', '')).allowed, false);
  });

  it('a Role is looked up in the RoleBinding’s namespace only', () => {
    const index = indexOf(
      role('Role', 'cm', 'a', [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get'] }]),
      binding('RoleBinding', 'alice-cm', 'b', { kind: 'Role', name: 'cm' }, [{ kind: 'User', name: 'alice' }]),
    );
    const d = index.authorize(ask(alice, 'get', 'configmaps', 'b', { name: 'x' }));
    assert.equal(d.allowed, false);
    assert.equal(d.reason, 'RBAC: role.rbac.authorization.k8s.io "cm" not found');
  });

  it('a binding to a missing ClusterRole denies with kube’s reason, once however many bindings name it', () => {
    const index = indexOf(
      binding('ClusterRoleBinding', 'one', undefined, { kind: 'ClusterRole', name: 'gone' }, [{ kind: 'User', name: 'alice' }, { kind: 'Group', name: 'devs' }]),
      binding('RoleBinding', 'two', 'a', { kind: 'ClusterRole', name: 'gone' }, [{ kind: 'Group', name: 'devs' }]),
    );
    const d = index.authorize(ask(alice, 'get', 'pods', 'a'));
    assert.deepEqual({ ...d }, { allowed: false, reason: 'RBAC: clusterrole.rbac.authorization.k8s.io "gone" not found' });
    const two = indexOf(
      binding('ClusterRoleBinding', 'one', undefined, { kind: 'ClusterRole', name: 'gone' }, [{ kind: 'User', name: 'alice' }]),
      binding('RoleBinding', 'two', 'a', { kind: 'Role', name: 'gone-too' }, [{ kind: 'User', name: 'alice' }]),
    );
    assert.equal(two.authorize(ask(alice, 'get', 'pods', 'a')).reason, 'RBAC: [clusterrole.rbac.authorization.k8s.io "gone" not found, role.rbac.authorization.k8s.io "gone-too" not found]');
    assert.equal(indexOf().authorize(ask(alice, 'get', 'pods', 'a')).reason, '', 'no bindings: a silent denial');
  });

  it('a missing role does not stand in the way of another binding’s allow', () => {
    const index = indexOf(
      readPods,
      binding('ClusterRoleBinding', 'broken', undefined, { kind: 'ClusterRole', name: 'gone' }, [{ kind: 'User', name: 'alice' }]),
      binding('ClusterRoleBinding', 'readers', undefined, { kind: 'ClusterRole', name: 'pod-reader' }, [{ kind: 'User', name: 'alice' }]),
    );
    assert.equal(index.authorize(ask(alice, 'get', 'pods', 'a')).allowed, true);
  });

  it('non-resource URLs are granted by ClusterRoleBindings only', () => {
    const urls = role('ClusterRole', 'health', undefined, [{ nonResourceURLs: ['/healthz', '/healthz/*'], verbs: ['get'] }]);
    const path = (p: string): Attributes => ({ kind: 'nonresource', user: alice, verb: 'get', path: p });
    const viaRoleBinding = indexOf(urls, binding('RoleBinding', 'h', 'a', { kind: 'ClusterRole', name: 'health' }, [{ kind: 'User', name: 'alice' }]));
    assert.equal(viaRoleBinding.authorize(path('/healthz')).allowed, false);
    const viaCluster = indexOf(urls, binding('ClusterRoleBinding', 'h', undefined, { kind: 'ClusterRole', name: 'health' }, [{ kind: 'User', name: 'alice' }]));
    assert.equal(viaCluster.authorize(path('/healthz/etcd')).allowed, true);
    assert.equal(viaCluster.authorize(path('/livez')).allowed, false);
  });

  it('GET /api/v1/namespaces/x (and its status) is a request in namespace x, so a RoleBinding there may grant it', () => {
    const attrs = (method: string, p: string) => attributesOf(alice, method, p, parseRequestInfo(method, p, new URLSearchParams()));
    assert.deepEqual(attrs('GET', '/api/v1/namespaces/x'), { kind: 'resource', user: alice, verb: 'get', namespace: 'x', apiGroup: '', apiVersion: 'v1', resource: 'namespaces', subresource: '', name: 'x' });
    assert.equal((attrs('PUT', '/api/v1/namespaces/x/status') as ResourceAttributes).namespace, 'x');
    assert.equal((attrs('GET', '/api/v1/namespaces') as ResourceAttributes).namespace, '', 'listing namespaces is cluster-scoped');
    const index = indexOf(
      role('ClusterRole', 'ns-reader', undefined, [{ apiGroups: [''], resources: ['namespaces'], verbs: ['get'] }]),
      binding('RoleBinding', 'see-x', 'x', { kind: 'ClusterRole', name: 'ns-reader' }, [{ kind: 'User', name: 'alice' }]),
    );
    assert.equal(index.authorize(attrs('GET', '/api/v1/namespaces/x')).allowed, true);
    assert.equal(index.authorize(attrs('GET', '/api/v1/namespaces/y')).allowed, false);
    assert.equal(index.authorize(attrs('GET', '/api/v1/namespaces')).allowed, false);
    const discovery = attrs('GET', '/apis/apps/v1');
    assert.equal(discovery.kind, 'nonresource', 'discovery is a non-resource URL to an authorizer');
  });

  it('rulesFor names missing roles; messages are worded as kube’s lister and registry word them', () => {
    const index = indexOf(binding('ClusterRoleBinding', 'b', undefined, { kind: 'ClusterRole', name: 'gone' }, [{ kind: 'User', name: 'alice' }]));
    const held = index.rulesFor(alice, 'a');
    assert.deepEqual(held, { rules: [], missing: [{ kind: 'ClusterRole', name: 'gone' }] });
    assert.equal(missingRoleMessage({ kind: 'ClusterRole', name: 'gone' }, 'lister'), 'clusterrole.rbac.authorization.k8s.io "gone" not found');
    assert.equal(missingRoleMessage({ kind: 'Role', name: 'gone' }, 'registry'), 'roles.rbac.authorization.k8s.io "gone" not found');
    assert.equal(aggregateMessage(['a', 'b', 'a']), '[a, b]');
    assert.equal(aggregateMessage(['a', 'a']), 'a');
  });
});
