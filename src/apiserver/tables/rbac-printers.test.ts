import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { bindingTableConvertor } from './rbac-printers.ts';
import { builtinTableConvertor, createdAtTableConvertor } from './registry.ts';

const now = Date.parse('2025-01-01T12:00:00Z');

describe('RBAC printers', () => {
  it('prints bindings as kube does: NAME, ROLE as Kind/name, AGE; USERS, GROUPS, SERVICEACCOUNTS wide', () => {
    assert.deepEqual(bindingTableConvertor.columns.map((c) => (c.priority === 1 ? `${c.name}*` : c.name)), ['Name', 'Role', 'Age', 'Users*', 'Groups*', 'ServiceAccounts*']);
    const cells = bindingTableConvertor.cells(
      {
        metadata: { name: 'rb', creationTimestamp: '2025-01-01T11:55:00Z' },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'view' },
        subjects: [{ kind: 'User', name: 'alice' }, { kind: 'Group', name: 'devs' }, { kind: 'User', name: 'bob' }, { kind: 'ServiceAccount', name: 'sa', namespace: 'ns1' }, { kind: 'ServiceAccount', name: 'bare' }],
      },
      now,
    );
    assert.deepEqual(cells, ['rb', 'ClusterRole/view', '5m', 'alice, bob', 'devs', 'ns1/sa, bare']);
    assert.deepEqual(bindingTableConvertor.cells({ metadata: { name: 'empty', creationTimestamp: '2025-01-01T11:59:00Z' }, roleRef: { kind: 'Role', name: 'r' } }, now), ['empty', 'Role/r', '60s', '', '', '']);
  });

  it('serves roles and cluster roles with CREATED AT, bindings with the binding printer', () => {
    assert.equal(builtinTableConvertor('rbac.authorization.k8s.io', 'clusterroles'), createdAtTableConvertor);
    assert.equal(builtinTableConvertor('rbac.authorization.k8s.io', 'roles'), createdAtTableConvertor);
    assert.equal(builtinTableConvertor('rbac.authorization.k8s.io', 'clusterrolebindings'), bindingTableConvertor);
    assert.equal(builtinTableConvertor('rbac.authorization.k8s.io', 'rolebindings'), bindingTableConvertor);
  });
});
