/**
 * The authorizer chain (`--authorization-mode=Node,RBAC` behind system:masters) and the 403
 * message, pinned to kube's union authorizer (reasons one a line) and
 * responsewriters.forbiddenMessage with apierrors.NewForbidden.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { UserInfo } from '../auth/tokens.ts';
import type { KubeObject } from '../registry/resource.ts';
import type { Attributes, ResourceAttributes } from './attributes.ts';
import { createAuthorizer, forbiddenMessage } from './authorizer.ts';
import { NodeGraph } from './node-authorizer.ts';
import { RbacIndex } from './rbac-index.ts';

const alice: UserInfo = { name: 'alice', uid: '', groups: ['system:authenticated'] };
const admin: UserInfo = { name: 'admin', uid: '', groups: ['system:masters', 'system:authenticated'] };
const kubelet: UserInfo = { name: 'system:node:one', uid: '', groups: ['system:nodes', 'system:authenticated'] };

const ask = (user: UserInfo, verb: string, resource: string, o: Partial<ResourceAttributes> = {}): ResourceAttributes => ({ kind: 'resource', user, verb, namespace: 'a', apiGroup: '', resource, subresource: '', name: '', ...o });

function setup(...objects: [string, KubeObject][]) {
  const rbac = new RbacIndex();
  for (const [kind, obj] of objects) rbac.apply(kind, obj, obj);
  return createAuthorizer(rbac, new NodeGraph());
}

const decide = (authz: ReturnType<typeof setup>, a: Attributes) => {
  const d = authz.authorize(a);
  return { allowed: d.allowed, reason: d.reason };
};

describe('the authorizer chain', () => {
  it('system:masters may do anything, with no reason given', () => {
    assert.deepEqual(decide(setup(), ask(admin, 'delete', 'nodes', { namespace: '', name: 'x' })), { allowed: true, reason: '' });
    assert.deepEqual(decide(setup(), { kind: 'nonresource', user: admin, verb: 'post', path: '/whatever' }), { allowed: true, reason: '' });
  });

  it('no opinion from anyone is a denial', () => {
    assert.deepEqual(decide(setup(), ask(alice, 'get', 'pods')), { allowed: false, reason: '' });
  });

  it('RBAC allows what the Node authorizer refuses a kubelet', () => {
    const authz = setup(
      ['ClusterRole', { metadata: { name: 'secret-reader' }, rules: [{ apiGroups: [''], resources: ['secrets'], verbs: ['get'] }] }],
      ['ClusterRoleBinding', { metadata: { name: 'nodes-read-secrets' }, roleRef: { kind: 'ClusterRole', name: 'secret-reader' }, subjects: [{ kind: 'Group', name: 'system:nodes' }] }],
    );
    const d = decide(authz, ask(kubelet, 'get', 'secrets', { name: 's' }));
    assert.deepEqual(d, { allowed: true, reason: 'RBAC: allowed by ClusterRoleBinding "nodes-read-secrets" of ClusterRole "secret-reader" to Group "system:nodes"' });
  });

  it('a kubelet’s refusal carries the Node authorizer’s reason, then RBAC’s, one a line', () => {
    assert.deepEqual(decide(setup(), ask(kubelet, 'get', 'secrets', { name: 's' })), { allowed: false, reason: "no relationship found between node 'one' and this object" });
    const broken = setup(['ClusterRoleBinding', { metadata: { name: 'b' }, roleRef: { kind: 'ClusterRole', name: 'gone' }, subjects: [{ kind: 'Group', name: 'system:nodes' }] }]);
    assert.deepEqual(decide(broken, ask(kubelet, 'get', 'secrets', { name: 's' })), {
      allowed: false,
      reason: "no relationship found between node 'one' and this object\nRBAC: clusterrole.rbac.authorization.k8s.io \"gone\" not found",
    });
  });

  it('the Node authorizer allows a kubelet what nodeRules grant without any binding', () => {
    assert.equal(decide(setup(), ask(kubelet, 'list', 'services')).allowed, true);
    assert.equal(decide(setup(), ask(alice, 'list', 'services')).allowed, false);
  });
});

describe('forbiddenMessage (kube’s 403 wording)', () => {
  it('a named object in a namespace', () => {
    assert.equal(forbiddenMessage(ask(alice, 'get', 'secrets', { name: 'db' }), ''), 'secrets "db" is forbidden: User "alice" cannot get resource "secrets" in API group "" in the namespace "a"');
  });

  it('a collection at the cluster scope, group-qualified', () => {
    assert.equal(
      forbiddenMessage(ask(alice, 'list', 'clusterroles', { apiGroup: 'rbac.authorization.k8s.io', namespace: '' }), ''),
      'clusterroles.rbac.authorization.k8s.io is forbidden: User "alice" cannot list resource "clusterroles" in API group "rbac.authorization.k8s.io" at the cluster scope',
    );
  });

  it('a subresource is named in the verb phrase, not in the object', () => {
    assert.equal(
      forbiddenMessage(ask(alice, 'update', 'deployments', { apiGroup: 'apps', name: 'web', subresource: 'scale' }), ''),
      'deployments.apps "web" is forbidden: User "alice" cannot update resource "deployments/scale" in API group "apps" in the namespace "a"',
    );
  });

  it('a non-resource URL, and the reason after a colon', () => {
    assert.equal(forbiddenMessage({ kind: 'nonresource', user: alice, verb: 'get', path: '/metrics' }, ''), 'forbidden: User "alice" cannot get path "/metrics"');
    assert.equal(
      forbiddenMessage(ask(alice, 'get', 'pods'), 'RBAC: clusterrole.rbac.authorization.k8s.io "x" not found'),
      'pods is forbidden: User "alice" cannot get resource "pods" in API group "" in the namespace "a": RBAC: clusterrole.rbac.authorization.k8s.io "x" not found',
    );
  });
});
