/**
 * Impersonation headers, pinned to kube's filter
 * (staging/src/k8s.io/apiserver/pkg/endpoints/filters/impersonation.go): what is checked, in
 * which order, with which attributes, and the groups the impersonated user ends up in.
 */
import assert from 'node:assert/strict';
import type { IncomingHttpHeaders } from 'node:http';
import { describe, it } from 'node:test';
import type { UserInfo } from '../auth/tokens.ts';
import type { ApiError } from '../errors.ts';
import type { KubeObject } from '../registry/resource.ts';
import { createAuthorizer } from './authorizer.ts';
import { impersonate, wantsImpersonation } from './impersonation.ts';
import { NodeGraph } from './node-authorizer.ts';
import { RbacIndex } from './rbac-index.ts';

const bob: UserInfo = { name: 'bob', uid: '', groups: ['system:authenticated'] };

/** bob may impersonate what `rules` grant, cluster-wide. */
function authorizerFor(rules: KubeObject[]) {
  const rbac = new RbacIndex();
  const objects: [string, KubeObject][] = [
    ['ClusterRole', { metadata: { name: 'impersonator' }, rules }],
    ['ClusterRoleBinding', { metadata: { name: 'bob' }, roleRef: { kind: 'ClusterRole', name: 'impersonator' }, subjects: [{ kind: 'User', name: 'bob' }] }],
  ];
  for (const [kind, obj] of objects) rbac.apply(kind, obj, obj);
  return createAuthorizer(rbac, new NodeGraph());
}

const may = (resources: string[], apiGroups = [''], resourceNames?: string[]) => ({ apiGroups, resources, verbs: ['impersonate'], ...(resourceNames ? { resourceNames } : {}) });
const everything = authorizerFor([may(['users', 'groups', 'serviceaccounts']), may(['uids', 'userextras/scopes'], ['authentication.k8s.io'])]);

function refusal(fn: () => unknown): ApiError {
  try {
    fn();
  } catch (err) {
    return err as ApiError;
  }
  assert.fail('expected a refusal');
}

describe('impersonation', () => {
  it('only Impersonate-* headers ask for it', () => {
    assert.equal(wantsImpersonation({ authorization: 'Bearer x', accept: 'application/json' }), false);
    assert.equal(wantsImpersonation({ 'impersonate-user': 'alice' }), true);
  });

  it('a user: needs impersonate on users/<name>; ends in system:authenticated', () => {
    assert.deepEqual(impersonate(bob, { 'impersonate-user': 'alice' }, everything), { name: 'alice', uid: '', groups: ['system:authenticated'] });
    const err = refusal(() => impersonate(bob, { 'impersonate-user': 'alice' }, authorizerFor([may(['users'], [''], ['carol'])])));
    assert.equal(err.code, 403);
    assert.equal(err.message, 'users "alice" is forbidden: User "bob" cannot impersonate resource "users" in API group "" at the cluster scope');
  });

  it('a ServiceAccount: needs impersonate on serviceaccounts/<name> in its namespace; gains its groups', () => {
    const headers = { 'impersonate-user': 'system:serviceaccount:a:builder' };
    assert.deepEqual(impersonate(bob, headers, everything), {
      name: 'system:serviceaccount:a:builder',
      uid: '',
      groups: ['system:serviceaccounts', 'system:serviceaccounts:a', 'system:authenticated'],
    });
    const err = refusal(() => impersonate(bob, headers, authorizerFor([may(['users'])])));
    assert.equal(err.message, 'serviceaccounts "builder" is forbidden: User "bob" cannot impersonate resource "serviceaccounts" in API group "" in the namespace "a"');
  });

  it('a name that is not a valid ServiceAccount user name is a plain user', () => {
    const odd = 'system:serviceaccount:Not_A_Namespace:x';
    assert.deepEqual(impersonate(bob, { 'impersonate-user': odd }, authorizerFor([may(['users'])])), { name: odd, uid: '', groups: ['system:authenticated'] });
    assert.deepEqual(impersonate(bob, { 'impersonate-user': 'system:serviceaccount:a' }, authorizerFor([may(['users'])])).groups, ['system:authenticated']);
  });

  it('groups asked for are the answer: a ServiceAccount then gets no groups of its own', () => {
    const headers: IncomingHttpHeaders = { 'impersonate-user': 'system:serviceaccount:a:builder', 'impersonate-group': 'devs' };
    assert.deepEqual(impersonate(bob, headers, everything).groups, ['devs', 'system:authenticated']);
    const err = refusal(() => impersonate(bob, headers, authorizerFor([may(['serviceaccounts'])])));
    assert.equal(err.message, 'groups "devs" is forbidden: User "bob" cannot impersonate resource "groups" in API group "" at the cluster scope');
  });

  it('system:authenticated is added unless a group already says authenticated or unauthenticated; system:anonymous is unauthenticated', () => {
    assert.deepEqual(impersonate(bob, { 'impersonate-user': 'alice', 'impersonate-group': 'system:unauthenticated' }, everything).groups, ['system:unauthenticated']);
    assert.deepEqual(impersonate(bob, { 'impersonate-user': 'alice', 'impersonate-group': 'system:authenticated, devs' }, everything).groups, ['system:authenticated', 'devs']);
    assert.deepEqual(impersonate(bob, { 'impersonate-user': 'system:anonymous' }, everything).groups, ['system:unauthenticated']);
  });

  it('extra values and the uid: userextras/<key> and uids in authentication.k8s.io, checked after the user and groups', () => {
    const headers: IncomingHttpHeaders = { 'impersonate-user': 'alice', 'impersonate-uid': 'u-1', 'impersonate-extra-scopes': 'view, edit' };
    assert.deepEqual(impersonate(bob, headers, everything), { name: 'alice', uid: 'u-1', groups: ['system:authenticated'], extra: { scopes: ['view', 'edit'] } });
    const noExtras = authorizerFor([may(['users']), may(['uids'], ['authentication.k8s.io'])]);
    assert.equal(refusal(() => impersonate(bob, headers, noExtras)).message, 'userextras.authentication.k8s.io "view" is forbidden: User "bob" cannot impersonate resource "userextras/scopes" in API group "authentication.k8s.io" at the cluster scope');
    const noUid = authorizerFor([may(['users']), may(['userextras/scopes'], ['authentication.k8s.io'])]);
    assert.equal(refusal(() => impersonate(bob, headers, noUid)).message, 'uids.authentication.k8s.io "u-1" is forbidden: User "bob" cannot impersonate resource "uids" in API group "authentication.k8s.io" at the cluster scope');
  });

  it('the user is checked first', () => {
    const err = refusal(() => impersonate(bob, { 'impersonate-user': 'alice', 'impersonate-group': 'devs' }, authorizerFor([])));
    assert.match(err.message, /^users "alice" is forbidden/);
  });

  it('groups, a uid or extras without a user is a bad request', () => {
    const err = refusal(() => impersonate(bob, { 'impersonate-group': 'devs' }, everything));
    assert.equal(err.code, 400);
  });

  it('system:masters may impersonate anyone', () => {
    const admin: UserInfo = { name: 'admin', uid: '', groups: ['system:masters', 'system:authenticated'] };
    assert.equal(impersonate(admin, { 'impersonate-user': 'system:node:one', 'impersonate-group': 'system:nodes' }, authorizerFor([])).name, 'system:node:one');
  });
});
