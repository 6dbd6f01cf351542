/** The audit policy: kube's rule matching (first match wins, None by default) and its validation. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { AuditPolicyError, evaluatePolicy, parseAuditPolicy, type AuditAttributes } from './policy.ts';

const policy = parseAuditPolicy({
  apiVersion: 'audit.k8s.io/v1',
  kind: 'Policy',
  omitStages: ['RequestReceived'],
  rules: [
    { level: 'None', users: ['system:kube-proxy'], verbs: ['watch'] },
    { level: 'None', userGroups: ['system:nodes'], resources: [{ group: '', resources: ['events'] }] },
    { level: 'None', nonResourceURLs: ['/healthz*', '/version'] },
    { level: 'Metadata', resources: [{ group: '', resources: ['secrets', 'configmaps'] }], omitStages: ['ResponseStarted'] },
    { level: 'Metadata', resources: [{ group: 'apps', resources: ['deployments/*'] }, { group: '', resources: ['*/scale'] }] },
    { level: 'Metadata', namespaces: ['kube-system'], verbs: ['create', 'update'] },
    { level: 'Metadata', resources: [{ group: '', resources: ['pods'], resourceNames: ['special'] }] },
    { level: 'Metadata', nonResourceURLs: ['/metrics'] },
  ],
});

const alice = { name: 'alice', groups: ['system:authenticated'] };
const res = (verb: string, resource: string, more: Partial<NonNullable<AuditAttributes['resource']>> = {}, user = alice): AuditAttributes => ({ user, verb, resource: { group: '', resource, ...more } });
const path = (verb: string, p: string, user = alice): AuditAttributes => ({ user, verb, path: p });

describe('audit policy (policy.ts)', () => {
  it('first matching rule wins; no match is None', () => {
    const table: [string, AuditAttributes, string][] = [
      ['a user and verb rule', res('watch', 'endpoints', {}, { name: 'system:kube-proxy', groups: [] }), 'None'],
      ['the same user, another verb, falls through', res('get', 'secrets', {}, { name: 'system:kube-proxy', groups: [] }), 'Metadata'],
      ['a group rule: any of the user groups', res('create', 'events', {}, { name: 'system:node:a', groups: ['system:authenticated', 'system:nodes'] }), 'None'],
      ['events by someone else: no rule', res('create', 'events'), 'None'],
      ['secrets at Metadata', res('get', 'secrets', { namespace: 'x', name: 's' }), 'Metadata'],
      ['a subresource is not the resource', res('get', 'configmaps', { subresource: 'status' }), 'None'],
      ['resource/* covers the subresources', res('update', 'deployments', { group: 'apps', subresource: 'status' }), 'Metadata'],
      ['resource/* covers the resource', res('get', 'deployments', { group: 'apps' }), 'Metadata'],
      ['the group must match', res('get', 'deployments', { group: 'extensions' }), 'None'],
      ['*/scale: any resource', res('patch', 'replicationcontrollers', { subresource: 'scale' }), 'Metadata'],
      ['namespaces rule', res('create', 'pods', { namespace: 'kube-system' }), 'Metadata'],
      ['namespaces rule, another namespace', res('create', 'pods', { namespace: 'default' }), 'None'],
      ['resourceNames', res('get', 'pods', { namespace: 'a', name: 'special' }), 'Metadata'],
      ['resourceNames, another name', res('get', 'pods', { namespace: 'a', name: 'other' }), 'None'],
      ['a non-resource prefix', path('get', '/healthz/ping'), 'None'],
      ['a non-resource URL', path('get', '/metrics'), 'Metadata'],
      ['a resource rule never matches a path', path('create', '/apis'), 'None'],
    ];
    for (const [name, a, want] of table) assert.equal(evaluatePolicy(policy, a).level, want, name);
  });

  it('omitStages: the policy and the rule together', () => {
    assert.deepEqual([...evaluatePolicy(policy, res('get', 'secrets')).omitStages].sort(), ['RequestReceived', 'ResponseStarted']);
    assert.deepEqual(evaluatePolicy(policy, res('get', 'deployments', { group: 'apps' })).omitStages, ['RequestReceived']);
  });

  it('a rule with no conditions matches everything', () => {
    const all = parseAuditPolicy({ rules: [{ level: 'Metadata' }] });
    assert.equal(evaluatePolicy(all, res('delete', 'nodes')).level, 'Metadata');
    assert.equal(evaluatePolicy(all, path('get', '/version')).level, 'Metadata');
    assert.equal(evaluatePolicy(parseAuditPolicy({ rules: [] }), res('get', 'pods')).level, 'None');
  });

  it('refuses what it cannot honour, naming each field', () => {
    let problems: readonly string[] = [];
    try {
      parseAuditPolicy({
        apiVersion: 'audit.k8s.io/v1beta1',
        rules: [{ level: 'RequestResponse' }, { level: 'Loud', verbs: 'get' }, { level: 'None', nonResourceURLs: ['healthz', '/a*b'], namespaces: ['x'] }, { level: 'None', omitStages: ['Never'], user: ['x'] }],
      });
    } catch (err) {
      assert.ok(err instanceof AuditPolicyError);
      problems = err.problems;
    }
    assert.deepEqual(problems, [
      'apiVersion: Unsupported value: "audit.k8s.io/v1beta1": supported values: "audit.k8s.io/v1"',
      'rules[0].level: Unsupported value: "RequestResponse": supported values: "None", "Metadata" (this server does not log request or response bodies)',
      'rules[1].level: Unsupported value: "Loud": supported values: "None", "Metadata"',
      'rules[1].verbs: Invalid value: "get": must be a list of strings',
      'rules[2].nonResourceURLs: Invalid value: rules cannot apply to both regular resources and non-resource URLs',
      `rules[2].nonResourceURLs[0]: Invalid value: "healthz": non-resource URL rules must begin with a '/' character`,
      `rules[2].nonResourceURLs[1]: Invalid value: "/a*b": non-resource URL wildcards ('*') must be the final character of the rule`,
      'rules[3].user: unknown field',
      'rules[3].omitStages[0]: Unsupported value: "Never": supported values: "RequestReceived", "ResponseStarted", "ResponseComplete", "Panic"',
    ]);
    assert.throws(() => parseAuditPolicy({}), /rules: Required value/);
  });
});
