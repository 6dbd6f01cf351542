/**
 * The RBAC index on its own, fed objects as the store's events would feed it: which bindings
 * allow which requests, the reasons it gives (worded only when read), and that edits and
 * deletions of bindings and roles take effect at once, in the right scope.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { UserInfo } from '../auth/tokens.ts';
import type { KubeObject } from '../registry/resource.ts';
import type { ResourceAttributes } from './attributes.ts';
import { RbacIndex } from './rbac-index.ts';

const sa: UserInfo = { name: 'system:serviceaccount:a:bencher', uid: 'u1', groups: ['system:serviceaccounts', 'system:serviceaccounts:a', 'system:authenticated'] };
const alice: UserInfo = { name: 'alice', uid: 'u2', groups: ['devs', 'system:authenticated'] };

const ask = (user: UserInfo, verb: string, resource: string, namespace: string, o: Partial<ResourceAttributes> = {}): ResourceAttributes => ({
  kind: 'resource',
  user,
  verb,
  namespace,
  apiGroup: '',
  resource,
  subresource: '',
  name: '',
  ...o,
});

const role = (name: string, namespace: string | undefined, rules: KubeObject[]): KubeObject => ({ metadata: { name, ...(namespace ? { namespace } : {}) }, rules });
const binding = (name: string, namespace: string | undefined, roleRef: { kind: string; name: string }, subjects: KubeObject[]): KubeObject => ({
  metadata: { name, ...(namespace ? { namespace } : {}) },
  roleRef,
  subjects,
});
const put = (index: RbacIndex, kind: string, obj: KubeObject) => index.apply(kind, obj, obj);
const drop = (index: RbacIndex, kind: string, obj: KubeObject) => index.apply(kind, undefined, obj);

function fixture() {
  const index = new RbacIndex();
  put(index, 'Role', role('creator', 'a', [{ apiGroups: [''], resources: ['configmaps'], verbs: ['create'] }]));
  put(index, 'RoleBinding', binding('bencher-creates', 'a', { kind: 'Role', name: 'creator' }, [{ kind: 'ServiceAccount', name: 'bencher', namespace: 'a' }]));
  put(index, 'ClusterRole', role('pod-reader', undefined, [{ apiGroups: [''], resources: ['pods'], verbs: ['get', 'list'] }]));
  put(index, 'ClusterRoleBinding', binding('devs-read-pods', undefined, { kind: 'ClusterRole', name: 'pod-reader' }, [{ kind: 'Group', name: 'devs' }]));
  return index;
}

describe('RbacIndex.authorize', () => {
  it('allows through a RoleBinding in the request’s namespace only, with kube’s reason', () => {
    const index = fixture();
    const ok = index.authorize(ask(sa, 'create', 'configmaps', 'a'));
    assert.equal(ok.allowed, true);
    assert.equal(ok.reason, 'RBAC: allowed by RoleBinding "bencher-creates/a" of Role "creator" to ServiceAccount "bencher/a"');
    assert.deepEqual({ ...ok }, { allowed: true, reason: ok.reason }, 'a copy of the decision keeps its reason');
    assert.equal(index.authorize(ask(sa, 'create', 'configmaps', 'b')).allowed, false);
    assert.equal(index.authorize(ask(sa, 'delete', 'configmaps', 'a')).allowed, false);
    assert.equal(index.authorize(ask(sa, 'create', 'configmaps', '')).allowed, false, 'a RoleBinding grants nothing at the cluster scope');
  });

  it('allows through a ClusterRoleBinding to a group, in every namespace and at the cluster scope', () => {
    const index = fixture();
    for (const ns of ['a', 'z', '']) {
      const d = index.authorize(ask(alice, 'list', 'pods', ns));
      assert.equal(d.allowed, true, ns);
      assert.equal(d.reason, 'RBAC: allowed by ClusterRoleBinding "devs-read-pods" of ClusterRole "pod-reader" to Group "devs"');
    }
    assert.equal(index.authorize(ask(sa, 'list', 'pods', 'a')).allowed, false);
  });

  it('a RoleBinding may bind a ClusterRole, which then grants in its namespace only', () => {
    const index = fixture();
    put(index, 'RoleBinding', binding('alice-pods-b', 'b', { kind: 'ClusterRole', name: 'creator-everywhere' }, [{ kind: 'User', name: 'alice' }]));
    assert.match(index.authorize(ask(alice, 'create', 'configmaps', 'b')).reason, /clusterrole.rbac.authorization.k8s.io "creator-everywhere" not found/);
    put(index, 'ClusterRole', role('creator-everywhere', undefined, [{ apiGroups: [''], resources: ['configmaps'], verbs: ['create'] }]));
    assert.equal(index.authorize(ask(alice, 'create', 'configmaps', 'b')).allowed, true);
    assert.equal(index.authorize(ask(alice, 'create', 'configmaps', 'a')).allowed, false);
  });

  it('follows edits and deletions of bindings and roles at once', () => {
    const index = fixture();
    // Subjects replaced: the old subject loses the grant, the new one gains it.
    put(index, 'RoleBinding', binding('bencher-creates', 'a', { kind: 'Role', name: 'creator' }, [{ kind: 'User', name: 'alice' }]));
    assert.equal(index.authorize(ask(sa, 'create', 'configmaps', 'a')).allowed, false);
    assert.equal(index.authorize(ask(alice, 'create', 'configmaps', 'a')).allowed, true);
    // The role's rules change.
    put(index, 'Role', role('creator', 'a', [{ apiGroups: [''], resources: ['secrets'], verbs: ['create'] }]));
    assert.equal(index.authorize(ask(alice, 'create', 'configmaps', 'a')).allowed, false);
    assert.equal(index.authorize(ask(alice, 'create', 'secrets', 'a')).allowed, true);
    // The binding goes.
    drop(index, 'RoleBinding', binding('bencher-creates', 'a', { kind: 'Role', name: 'creator' }, []));
    assert.equal(index.authorize(ask(alice, 'create', 'secrets', 'a')).allowed, false);
    // A binding of the same name in another namespace is another binding.
    put(index, 'RoleBinding', binding('bencher-creates', 'b', { kind: 'Role', name: 'creator' }, [{ kind: 'ServiceAccount', name: 'bencher', namespace: 'a' }]));
    put(index, 'Role', role('creator', 'b', [{ apiGroups: [''], resources: ['configmaps'], verbs: ['create'] }]));
    drop(index, 'RoleBinding', binding('bencher-creates', 'a', { kind: 'Role', name: 'creator' }, []));
    assert.equal(index.authorize(ask(sa, 'create', 'configmaps', 'b')).allowed, true);
    drop(index, 'ClusterRoleBinding', binding('devs-read-pods', undefined, { kind: 'ClusterRole', name: 'pod-reader' }, []));
    assert.equal(index.authorize(ask(alice, 'list', 'pods', 'a')).allowed, false);
  });

  it('lists the rules a user holds in a namespace, cluster-wide ones included', () => {
    const index = fixture();
    put(index, 'RoleBinding', binding('alice-creates', 'a', { kind: 'Role', name: 'creator' }, [{ kind: 'User', name: 'alice' }]));
    assert.deepEqual(
      index.rulesFor(alice, 'a').rules.map((r) => r.resources?.[0]),
      ['pods', 'configmaps'],
    );
    assert.deepEqual(index.rulesFor(alice, 'b').rules.map((r) => r.resources?.[0]), ['pods']);
    assert.deepEqual(index.rulesFor(sa, '').rules, []);
  });
});
