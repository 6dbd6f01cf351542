/**
 * The Node authorizer, pinned to kube's (plugin/pkg/auth/authorizer/node/node_authorizer.go):
 * who is a node, the pod → Secret/ConfigMap/ServiceAccount graph, reads of single objects,
 * tokens, node Leases, nodeRules, and the reasons it gives when it has no opinion.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { UserInfo } from '../auth/tokens.ts';
import type { KubeObject } from '../registry/resource.ts';
import type { Attributes, ResourceAttributes } from './attributes.ts';
import { authorizeNode, NodeGraph, nodeNameOf, podReferences } from './node-authorizer.ts';

const kubelet = (node: string): UserInfo => ({ name: `system:node:${node}`, uid: '', groups: ['system:nodes', 'system:authenticated'] });
const one = kubelet('one');

const ask = (verb: string, resource: string, o: Partial<ResourceAttributes> = {}, user = one): ResourceAttributes => ({ kind: 'resource', user, verb, namespace: 'a', apiGroup: '', resource, subresource: '', name: '', ...o });

const pod = (name: string, nodeName: string | undefined, spec: KubeObject = {}): KubeObject => ({ metadata: { name, namespace: 'a' }, spec: { ...(nodeName ? { nodeName } : {}), containers: [{ name: 'c', image: 'i' }], ...spec } });

function graphWith(...pods: KubeObject[]): NodeGraph {
  const g = new NodeGraph();
  for (const p of pods) g.apply(p, p);
  return g;
}

const decide = (g: NodeGraph, a: Attributes) => {
  const d = authorizeNode(g, a);
  return d && { allowed: d.allowed, reason: d.reason };
};
const allowed = { allowed: true, reason: '' };
const noRelation = (node = 'one') => ({ allowed: false, reason: `no relationship found between node '${node}' and this object` });

describe('nodeNameOf', () => {
  it('is a node only as system:node:<name> in system:nodes', () => {
    assert.equal(nodeNameOf(one), 'one');
    assert.equal(nodeNameOf({ name: 'system:node:one', uid: '', groups: ['system:authenticated'] }), undefined);
    assert.equal(nodeNameOf({ name: 'alice', uid: '', groups: ['system:nodes'] }), undefined);
    assert.equal(nodeNameOf({ name: 'system:node:', uid: '', groups: ['system:nodes'] }), undefined);
  });

  it('has no opinion on anyone else', () => {
    assert.equal(authorizeNode(new NodeGraph(), ask('get', 'secrets', { name: 's' }, { name: 'alice', uid: '', groups: [] })), undefined);
  });
});

describe('podReferences', () => {
  it('finds every Secret, ConfigMap and the ServiceAccount a pod uses', () => {
    const refs = podReferences(
      pod('p', 'one', {
        serviceAccountName: 'builder',
        imagePullSecrets: [{ name: 'pull' }],
        volumes: [{ name: 'v1', secret: { secretName: 'vol-secret' } }, { name: 'v2', configMap: { name: 'vol-cm' } }, { name: 'v3', projected: { sources: [{ secret: { name: 'proj-secret' } }, { configMap: { name: 'proj-cm' } }] } }],
        initContainers: [{ name: 'i', envFrom: [{ secretRef: { name: 'init-env' } }] }],
        containers: [{ name: 'c', env: [{ name: 'E', valueFrom: { configMapKeyRef: { name: 'env-cm', key: 'k' } } }], envFrom: [{ configMapRef: { name: 'envfrom-cm' } }] }],
        ephemeralContainers: [{ name: 'e', env: [{ name: 'S', valueFrom: { secretKeyRef: { name: 'eph-secret', key: 'k' } } }] }],
      }),
    );
    assert.deepEqual(refs.sort(), [
      'configmap/a/env-cm',
      'configmap/a/envfrom-cm',
      'configmap/a/kube-root-ca.crt',
      'configmap/a/proj-cm',
      'configmap/a/vol-cm',
      'secret/a/eph-secret',
      'secret/a/init-env',
      'secret/a/proj-secret',
      'secret/a/pull',
      'secret/a/vol-secret',
      'serviceaccount/a/builder',
    ]);
  });

  it('a pod without a service account name uses `default`; no token automount, no root CA', () => {
    assert.deepEqual(podReferences(pod('p', 'one', { automountServiceAccountToken: false })), ['serviceaccount/a/default']);
  });
});

describe('authorizeNode: Secrets and ConfigMaps', () => {
  const g = graphWith(pod('app', 'one', { volumes: [{ name: 'v', secret: { secretName: 'db' } }, { name: 'c', configMap: { name: 'settings' } }] }));

  it('reads (get, and a list or watch of one name) of what its pods use', () => {
    for (const verb of ['get', 'list', 'watch']) {
      assert.deepEqual(decide(g, ask(verb, 'secrets', { name: 'db' })), allowed, verb);
      assert.deepEqual(decide(g, ask(verb, 'configmaps', { name: 'settings' })), allowed, verb);
    }
  });

  it('nothing else, with kube’s reasons', () => {
    assert.deepEqual(decide(g, ask('get', 'secrets', { name: 'db' }, kubelet('two'))), noRelation('two'));
    assert.deepEqual(decide(g, ask('get', 'secrets', { name: 'other' })), noRelation());
    assert.deepEqual(decide(g, ask('get', 'secrets', { name: 'db', namespace: 'b' })), noRelation());
    assert.deepEqual(decide(g, ask('list', 'secrets')), { allowed: false, reason: 'No Object name found' });
    assert.deepEqual(decide(g, ask('update', 'secrets', { name: 'db' })), { allowed: false, reason: 'can only read resources of this type' });
    assert.deepEqual(decide(g, ask('create', 'configmaps')), { allowed: false, reason: 'can only read resources of this type' });
    assert.deepEqual(decide(g, ask('get', 'secrets', { name: 'db', subresource: 'x' })), { allowed: false, reason: 'cannot read subresource' });
    assert.deepEqual(decide(g, ask('list', 'secrets', { namespace: '' })), { allowed: false, reason: 'can only read namespaced object of this type' });
  });

  it('follows pods being bound, moved and deleted', () => {
    const graph = new NodeGraph();
    const unbound = pod('app', undefined, { volumes: [{ name: 'v', secret: { secretName: 'db' } }] });
    graph.apply(unbound, unbound);
    assert.deepEqual(decide(graph, ask('get', 'secrets', { name: 'db' })), noRelation(), 'an unscheduled pod relates to no node');
    const bound = pod('app', 'one', { volumes: [{ name: 'v', secret: { secretName: 'db' } }] });
    graph.apply(bound, bound);
    assert.deepEqual(decide(graph, ask('get', 'secrets', { name: 'db' })), allowed);
    // Two pods share the Secret: it stays readable until both are gone.
    const twin = { ...bound, metadata: { name: 'twin', namespace: 'a' } };
    graph.apply(twin, twin);
    graph.apply(undefined, bound);
    assert.deepEqual(decide(graph, ask('get', 'secrets', { name: 'db' })), allowed);
    graph.apply(undefined, twin);
    assert.deepEqual(decide(graph, ask('get', 'secrets', { name: 'db' })), noRelation());
  });
});

describe('authorizeNode: ServiceAccounts', () => {
  const g = graphWith(pod('app', 'one', { serviceAccountName: 'builder' }));

  it('creates tokens for its pods’ service accounts only', () => {
    assert.deepEqual(decide(g, ask('create', 'serviceaccounts', { name: 'builder', subresource: 'token' })), allowed);
    assert.deepEqual(decide(g, ask('create', 'serviceaccounts', { name: 'default', subresource: 'token' })), noRelation());
    assert.deepEqual(decide(g, ask('create', 'serviceaccounts', { name: 'builder', subresource: 'token' }, kubelet('two'))), noRelation('two'));
  });

  it('nothing else of ServiceAccounts, with kube’s reasons', () => {
    assert.deepEqual(decide(g, ask('get', 'serviceaccounts', { name: 'builder' })), { allowed: false, reason: 'can only create tokens for individual service accounts' });
    assert.deepEqual(decide(g, ask('create', 'serviceaccounts', { subresource: 'token' })), { allowed: false, reason: 'can only create tokens for individual service accounts' });
    assert.deepEqual(decide(g, ask('create', 'serviceaccounts', { name: 'builder' })), { allowed: false, reason: 'can only create token subresource of serviceaccount' });
  });
});

describe('authorizeNode: Leases', () => {
  const g = new NodeGraph();
  const lease = (verb: string, o: Partial<ResourceAttributes> = {}) => ask(verb, 'leases', { apiGroup: 'coordination.k8s.io', namespace: 'kube-node-lease', name: 'one', ...o });

  it('its own Lease in kube-node-lease; a create’s name is left to NodeRestriction', () => {
    for (const verb of ['get', 'create', 'update', 'patch', 'delete']) assert.deepEqual(decide(g, lease(verb)), allowed, verb);
    assert.deepEqual(decide(g, lease('create', { name: '' })), allowed);
  });

  it('not another node’s, not elsewhere, not listed, with kube’s reasons', () => {
    assert.deepEqual(decide(g, lease('update', { name: 'two' })), { allowed: false, reason: 'can only access node lease with the same name as the requesting node' });
    assert.deepEqual(decide(g, lease('get', { namespace: 'kube-system' })), { allowed: false, reason: 'can only access leases in the "kube-node-lease" system namespace' });
    assert.deepEqual(decide(g, lease('list', { name: '' })), { allowed: false, reason: 'can only get, create, update, patch, or delete a node lease' });
    assert.deepEqual(decide(g, lease('watch')), { allowed: false, reason: 'can only get, create, update, patch, or delete a node lease' });
  });
});

describe('authorizeNode: everything else by nodeRules', () => {
  const g = new NodeGraph();
  it('allows what kube’s system:node rules allow', () => {
    assert.deepEqual(decide(g, ask('create', 'nodes', { namespace: '' })), allowed);
    assert.deepEqual(decide(g, ask('patch', 'nodes', { namespace: '', name: 'one', subresource: 'status' })), allowed);
    assert.deepEqual(decide(g, ask('update', 'pods', { name: 'p', subresource: 'status' })), allowed);
    assert.deepEqual(decide(g, ask('create', 'pods')), allowed, 'mirror pods (NodeRestriction narrows them)');
    assert.deepEqual(decide(g, ask('create', 'pods', { name: 'p', subresource: 'eviction' })), allowed);
    assert.deepEqual(decide(g, ask('create', 'events', { apiGroup: 'events.k8s.io' })), allowed);
    assert.deepEqual(decide(g, ask('get', 'endpoints', { name: 'e' })), allowed);
    assert.deepEqual(decide(g, ask('create', 'tokenreviews', { apiGroup: 'authentication.k8s.io', namespace: '' })), allowed);
    assert.deepEqual(decide(g, ask('create', 'subjectaccessreviews', { apiGroup: 'authorization.k8s.io', namespace: '' })), allowed);
  });

  it('has no opinion on the rest (RBAC may still allow)', () => {
    assert.equal(decide(g, ask('delete', 'nodes', { namespace: '', name: 'one' })), undefined);
    assert.equal(decide(g, ask('update', 'pods', { name: 'p' })), undefined);
    assert.equal(decide(g, ask('list', 'deployments', { apiGroup: 'apps' })), undefined);
    assert.equal(decide(g, { kind: 'nonresource', user: one, verb: 'get', path: '/metrics' }), undefined);
  });
});
