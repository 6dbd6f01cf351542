/**
 * PolicyRule matching and escalation coverage, pinned to kube's rbac/v1 helpers
 * (plugin/pkg/auth/authorizer/rbac/rbac.go RuleAllows) and validation.Covers / CompactRules
 * (pkg/registry/rbac/validation, component-helpers/auth/rbac/validation).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { UserInfo } from '../auth/tokens.ts';
import type { Attributes, ResourceAttributes } from './attributes.ts';
import { compactRules, formatRule, ruleAllows, rulesAllow, uncoveredRules, type PolicyRule } from './rules.ts';

const user: UserInfo = { name: 'alice', uid: '', groups: ['system:authenticated'] };

const res = (verb: string, resource: string, o: Partial<ResourceAttributes> = {}): Attributes => ({ kind: 'resource', user, verb, namespace: 'a', apiGroup: '', resource, subresource: '', name: '', ...o });
const url = (verb: string, path: string): Attributes => ({ kind: 'nonresource', user, verb, path });

describe('ruleAllows (kube RuleAllows)', () => {
  const cases: { name: string; rule: PolicyRule; a: Attributes; want: boolean }[] = [
    { name: 'exact verb, group and resource', rule: { verbs: ['get'], apiGroups: [''], resources: ['pods'] }, a: res('get', 'pods'), want: true },
    { name: 'another verb', rule: { verbs: ['get'], apiGroups: [''], resources: ['pods'] }, a: res('list', 'pods'), want: false },
    { name: 'another group', rule: { verbs: ['get'], apiGroups: ['apps'], resources: ['pods'] }, a: res('get', 'pods'), want: false },
    { name: '* verbs, groups and resources', rule: { verbs: ['*'], apiGroups: ['*'], resources: ['*'] }, a: res('deletecollection', 'deployments', { apiGroup: 'apps' }), want: true },
    { name: '* resources match subresources too', rule: { verbs: ['get'], apiGroups: [''], resources: ['*'] }, a: res('get', 'pods', { subresource: 'log', name: 'p' }), want: true },
    { name: 'a resource does not grant its subresources', rule: { verbs: ['get'], apiGroups: [''], resources: ['pods'] }, a: res('get', 'pods', { subresource: 'log', name: 'p' }), want: false },
    { name: 'resource/subresource grants that subresource', rule: { verbs: ['get'], apiGroups: [''], resources: ['pods/log'] }, a: res('get', 'pods', { subresource: 'log', name: 'p' }), want: true },
    { name: 'a subresource rule does not grant the resource', rule: { verbs: ['get'], apiGroups: [''], resources: ['pods/log'] }, a: res('get', 'pods', { name: 'p' }), want: false },
    { name: '*/status grants any resource’s status', rule: { verbs: ['update'], apiGroups: ['*'], resources: ['*/status'] }, a: res('update', 'deployments', { apiGroup: 'apps', subresource: 'status', name: 'd' }), want: true },
    { name: '*/status does not grant another subresource', rule: { verbs: ['update'], apiGroups: ['*'], resources: ['*/status'] }, a: res('update', 'deployments', { apiGroup: 'apps', subresource: 'scale', name: 'd' }), want: false },
    { name: '*/status does not grant the resource itself', rule: { verbs: ['update'], apiGroups: ['*'], resources: ['*/status'] }, a: res('update', 'deployments', { apiGroup: 'apps', name: 'd' }), want: false },
    { name: 'resourceNames: the named object', rule: { verbs: ['get', 'list'], apiGroups: [''], resources: ['configmaps'], resourceNames: ['x'] }, a: res('get', 'configmaps', { name: 'x' }), want: true },
    { name: 'resourceNames: another object', rule: { verbs: ['get'], apiGroups: [''], resources: ['configmaps'], resourceNames: ['x'] }, a: res('get', 'configmaps', { name: 'y' }), want: false },
    { name: 'resourceNames: a list names no object, so it is not granted', rule: { verbs: ['get', 'list'], apiGroups: [''], resources: ['configmaps'], resourceNames: ['x'] }, a: res('list', 'configmaps'), want: false },
    { name: 'resourceNames: a create names no object either', rule: { verbs: ['create'], apiGroups: [''], resources: ['configmaps'], resourceNames: ['x'] }, a: res('create', 'configmaps'), want: false },
    { name: 'empty resourceNames: every name', rule: { verbs: ['get'], apiGroups: [''], resources: ['configmaps'], resourceNames: [] }, a: res('get', 'configmaps', { name: 'y' }), want: true },
    { name: 'a resource rule grants no URL', rule: { verbs: ['*'], apiGroups: ['*'], resources: ['*'] }, a: url('get', '/healthz'), want: false },
    { name: 'a URL rule grants no resource', rule: { verbs: ['*'], nonResourceURLs: ['*'] }, a: res('get', 'pods'), want: false },
    { name: 'URL: exact', rule: { verbs: ['get'], nonResourceURLs: ['/healthz'] }, a: url('get', '/healthz'), want: true },
    { name: 'URL: exact is not a prefix', rule: { verbs: ['get'], nonResourceURLs: ['/healthz'] }, a: url('get', '/healthz/etcd'), want: false },
    { name: 'URL: trailing * is a prefix', rule: { verbs: ['get'], nonResourceURLs: ['/healthz/*'] }, a: url('get', '/healthz/etcd'), want: true },
    { name: 'URL: the prefix itself without its slash is not under it', rule: { verbs: ['get'], nonResourceURLs: ['/healthz/*'] }, a: url('get', '/healthz'), want: false },
    { name: 'URL: /api* prefixes /apis too (a string prefix, not a path one)', rule: { verbs: ['get'], nonResourceURLs: ['/api*'] }, a: url('get', '/apis/apps'), want: true },
    { name: 'URL: several trailing * are one (Go TrimRight)', rule: { verbs: ['get'], nonResourceURLs: ['/metrics**'] }, a: url('get', '/metrics/slis'), want: true },
    { name: 'URL: * is every path', rule: { verbs: ['get'], nonResourceURLs: ['*'] }, a: url('get', '/anything'), want: true },
    { name: 'URL: the verb still counts', rule: { verbs: ['get'], nonResourceURLs: ['*'] }, a: url('post', '/anything'), want: false },
  ];
  for (const c of cases) {
    it(c.name, () => assert.equal(ruleAllows(c.rule, c.a), c.want));
  }

  it('rulesAllow: any one rule suffices', () => {
    const rules: PolicyRule[] = [{ verbs: ['get'], apiGroups: [''], resources: ['pods'] }, { verbs: ['get'], nonResourceURLs: ['/version'] }];
    assert.equal(rulesAllow(rules, url('get', '/version')), true);
    assert.equal(rulesAllow(rules, res('get', 'pods')), true);
    assert.equal(rulesAllow(rules, res('get', 'secrets')), false);
    assert.equal(rulesAllow([], res('get', 'pods')), false);
  });
});

describe('uncoveredRules (kube validation.Covers)', () => {
  const podsReader: PolicyRule = { verbs: ['get', 'list'], apiGroups: [''], resources: ['pods'] };

  it('breaks a grant into one verb on one resource of one group (and one name) and returns what is not held', () => {
    const missing = uncoveredRules([podsReader], [{ verbs: ['get', 'delete'], apiGroups: ['', 'apps'], resources: ['pods'] }]);
    assert.deepEqual(
      missing.map(formatRule).sort(),
      ['{APIGroups:[""], Resources:["pods"], Verbs:["delete"]}', '{APIGroups:["apps"], Resources:["pods"], Verbs:["delete"]}', '{APIGroups:["apps"], Resources:["pods"], Verbs:["get"]}'],
    );
    assert.deepEqual(uncoveredRules([podsReader], [{ verbs: ['list'], apiGroups: [''], resources: ['pods'] }]), []);
  });

  it('a wildcard granted is covered only by a wildcard held', () => {
    assert.equal(uncoveredRules([podsReader], [{ verbs: ['*'], apiGroups: [''], resources: ['pods'] }]).length, 1);
    assert.equal(uncoveredRules([{ verbs: ['get'], apiGroups: [''], resources: ['pods', 'secrets'] }], [{ verbs: ['get'], apiGroups: [''], resources: ['*'] }]).length, 1);
    assert.deepEqual(uncoveredRules([{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }], [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }]), []);
  });

  it('*/status held covers any resource’s status, not the resource', () => {
    const held: PolicyRule[] = [{ verbs: ['update'], apiGroups: ['apps'], resources: ['*/status'] }];
    assert.deepEqual(uncoveredRules(held, [{ verbs: ['update'], apiGroups: ['apps'], resources: ['deployments/status', 'replicasets/status'] }]), []);
    assert.equal(uncoveredRules(held, [{ verbs: ['update'], apiGroups: ['apps'], resources: ['deployments'] }]).length, 1);
    assert.equal(uncoveredRules([{ verbs: ['update'], apiGroups: ['apps'], resources: ['*'] }], [{ verbs: ['update'], apiGroups: ['apps'], resources: ['deployments/scale'] }]).length, 0);
  });

  it('resourceNames: a named grant is covered by the name or by no names held; an unnamed grant only by no names held', () => {
    const named: PolicyRule = { verbs: ['get'], apiGroups: [''], resources: ['configmaps'], resourceNames: ['a', 'b'] };
    assert.deepEqual(uncoveredRules([{ verbs: ['get'], apiGroups: [''], resources: ['configmaps'] }], [named]), []);
    assert.deepEqual(
      uncoveredRules([{ verbs: ['get'], apiGroups: [''], resources: ['configmaps'], resourceNames: ['a'] }], [named]).map(formatRule),
      ['{APIGroups:[""], Resources:["configmaps"], ResourceNames:["b"], Verbs:["get"]}'],
    );
    assert.equal(uncoveredRules([{ verbs: ['get'], apiGroups: [''], resources: ['configmaps'], resourceNames: ['a'] }], [{ verbs: ['get'], apiGroups: [''], resources: ['configmaps'] }]).length, 1);
  });

  it('non-resource URLs: exact, prefix `*` and `*` held; a URL grant is never covered by resource rules', () => {
    assert.deepEqual(uncoveredRules([{ verbs: ['get'], nonResourceURLs: ['/healthz/*'] }], [{ verbs: ['get'], nonResourceURLs: ['/healthz/etcd', '/healthz/*'] }]), []);
    assert.equal(uncoveredRules([{ verbs: ['get'], nonResourceURLs: ['/healthz'] }], [{ verbs: ['get'], nonResourceURLs: ['/healthz/*'] }]).length, 1);
    assert.deepEqual(uncoveredRules([{ verbs: ['*'], nonResourceURLs: ['*'] }], [{ verbs: ['get', 'post'], nonResourceURLs: ['/x', '/y/*'] }]), []);
    assert.equal(uncoveredRules([{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }], [{ verbs: ['get'], nonResourceURLs: ['/metrics'] }]).length, 1);
  });
});

describe('formatRule and compactRules (kube CompactString, CompactRules)', () => {
  it('prints the fields kube prints, in its order, Go-quoted', () => {
    assert.equal(formatRule({ verbs: ['get', 'list'], apiGroups: [''], resources: ['pods'], resourceNames: ['p'] }), '{APIGroups:[""], Resources:["pods"], ResourceNames:["p"], Verbs:["get" "list"]}');
    assert.equal(formatRule({ verbs: ['get'], nonResourceURLs: ['/healthz'] }), '{NonResourceURLs:["/healthz"], Verbs:["get"]}');
  });

  it('merges the verbs of atoms on one group, resource and name; keeps URL rules apart', () => {
    const atoms: PolicyRule[] = [
      { verbs: ['get'], apiGroups: [''], resources: ['pods'] },
      { verbs: ['list'], apiGroups: [''], resources: ['pods'] },
      { verbs: ['get'], apiGroups: [''], resources: ['pods'], resourceNames: ['p'] },
      { verbs: ['delete'], apiGroups: [''], resources: ['pods'], resourceNames: ['p'] },
      { verbs: ['get'], nonResourceURLs: ['/x'] },
      { verbs: ['post'], nonResourceURLs: ['/x'] },
    ];
    assert.deepEqual(compactRules(atoms).map(formatRule).sort(), [
      '{APIGroups:[""], Resources:["pods"], ResourceNames:["p"], Verbs:["get" "delete"]}',
      '{APIGroups:[""], Resources:["pods"], Verbs:["get" "list"]}',
      '{NonResourceURLs:["/x"], Verbs:["get"]}',
      '{NonResourceURLs:["/x"], Verbs:["post"]}',
    ]);
  });
});
