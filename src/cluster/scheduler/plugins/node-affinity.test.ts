import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { V1Node, V1NodeSelectorRequirement, V1NodeSelectorTerm, V1Pod } from '@kubernetes/client-node';
import { compileNodeAffinity, nodeAffinity } from './node-affinity.ts';

const node = (name: string, labels: Record<string, string> = {}): V1Node => ({ metadata: { name, labels } });
const withTerms = (terms: V1NodeSelectorTerm[], nodeSelector?: Record<string, string>): V1Pod => ({
  spec: { containers: [], nodeSelector, affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: terms } } } },
});
const expr = (key: string, operator: string, values?: string[]): V1NodeSelectorRequirement => ({ key, operator, values });
const fits = (pod: V1Pod, n: V1Node): boolean => compileNodeAffinity(pod)(n);

describe('NodeAffinity', () => {
  it('refuses with kube-scheduler\'s wording', () => {
    const pod: V1Pod = { spec: { containers: [], nodeSelector: { disk: 'ssd' } } };
    assert.deepEqual(nodeAffinity(compileNodeAffinity(pod), node('n1')), { code: 'UnschedulableAndUnresolvable', reasons: ["node(s) didn't match Pod's node affinity/selector"] });
    assert.equal(nodeAffinity(compileNodeAffinity(pod), node('n1', { disk: 'ssd' })), undefined);
  });

  it('matches every nodeSelector label', () => {
    const pod: V1Pod = { spec: { containers: [], nodeSelector: { disk: 'ssd', zone: 'a' } } };
    assert.equal(fits(pod, node('n', { disk: 'ssd', zone: 'a', x: 'y' })), true);
    assert.equal(fits(pod, node('n', { disk: 'ssd', zone: 'b' })), false);
    assert.equal(fits({ spec: { containers: [] } }, node('n')), true, 'no selector: any node');
  });

  it('supports In, NotIn, Exists, DoesNotExist, Gt and Lt', () => {
    const n = node('n', { zone: 'a', cores: '8' });
    const one = (e: V1NodeSelectorRequirement): boolean => fits(withTerms([{ matchExpressions: [e] }]), n);
    assert.equal(one(expr('zone', 'In', ['a', 'b'])), true);
    assert.equal(one(expr('zone', 'In', ['b'])), false);
    assert.equal(one(expr('zone', 'NotIn', ['b'])), true);
    assert.equal(one(expr('zone', 'NotIn', ['a'])), false);
    assert.equal(one(expr('missing', 'NotIn', ['a'])), true, 'NotIn passes a node without the label');
    assert.equal(one(expr('zone', 'Exists')), true);
    assert.equal(one(expr('missing', 'Exists')), false);
    assert.equal(one(expr('missing', 'DoesNotExist')), true);
    assert.equal(one(expr('zone', 'DoesNotExist')), false);
    assert.equal(one(expr('cores', 'Gt', ['4'])), true);
    assert.equal(one(expr('cores', 'Gt', ['8'])), false);
    assert.equal(one(expr('cores', 'Lt', ['16'])), true);
    assert.equal(one(expr('zone', 'Gt', ['1'])), false, 'a non-integer label never satisfies Gt');
    assert.equal(one(expr('cores', 'Gt', ['x'])), false, 'a non-integer bound matches nothing');
    assert.equal(one(expr('zone', 'Bogus', ['a'])), false);
  });

  it('matches metadata.name through matchFields', () => {
    const pod = withTerms([{ matchFields: [{ key: 'metadata.name', operator: 'In', values: ['n2'] }] }]);
    assert.equal(fits(pod, node('n1')), false);
    assert.equal(fits(pod, node('n2')), true);
    const notIn = withTerms([{ matchFields: [{ key: 'metadata.name', operator: 'NotIn', values: ['n2'] }] }]);
    assert.equal(fits(notIn, node('n1')), true);
    assert.equal(fits(notIn, node('n2')), false);
  });

  it('ORs terms, ANDs requirements, and lets an empty term match nothing', () => {
    const pod = withTerms([{ matchExpressions: [expr('zone', 'In', ['a']), expr('disk', 'In', ['ssd'])] }, { matchExpressions: [expr('zone', 'In', ['c'])] }]);
    assert.equal(fits(pod, node('n', { zone: 'a', disk: 'ssd' })), true);
    assert.equal(fits(pod, node('n', { zone: 'a' })), false);
    assert.equal(fits(pod, node('n', { zone: 'c' })), true);
    assert.equal(fits(withTerms([{}]), node('n', { zone: 'a' })), false);
    assert.equal(fits(withTerms([]), node('n')), false);
  });

  it('requires both the nodeSelector and the affinity', () => {
    const pod = withTerms([{ matchExpressions: [expr('zone', 'In', ['a'])] }], { disk: 'ssd' });
    assert.equal(fits(pod, node('n', { zone: 'a', disk: 'ssd' })), true);
    assert.equal(fits(pod, node('n', { zone: 'a' })), false);
    assert.equal(fits(pod, node('n', { disk: 'ssd' })), false);
  });
});
