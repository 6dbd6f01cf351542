import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { compileNodeSelector, compileRequiredNodeAffinity, type NodeLike, type NodePlacementSpec, type NodeSelectorRequirement, type NodeSelectorTerm } from './node-affinity.ts';

const node = (name: string, labels: Record<string, string> = {}): NodeLike => ({ metadata: { name, labels } });
const withTerms = (terms: NodeSelectorTerm[], nodeSelector?: Record<string, string>): NodePlacementSpec => ({
  nodeSelector,
  affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: terms } } },
});
const expr = (key: string, operator: string, values?: string[]): NodeSelectorRequirement => ({ key, operator, values });
const fits = (spec: NodePlacementSpec | undefined, n: NodeLike): boolean => compileRequiredNodeAffinity(spec)(n);

describe('required node affinity', () => {
  it('matches every nodeSelector label', () => {
    const spec: NodePlacementSpec = { nodeSelector: { disk: 'ssd', zone: 'a' } };
    assert.equal(fits(spec, node('n', { disk: 'ssd', zone: 'a', x: 'y' })), true);
    assert.equal(fits(spec, node('n', { disk: 'ssd', zone: 'b' })), false);
    assert.equal(fits(spec, { metadata: { name: 'unlabelled' } }), false);
    assert.equal(fits({}, node('n')), true, 'no selector: any node');
    assert.equal(fits(undefined, node('n')), true);
  });

  it('supports In, NotIn, Exists, DoesNotExist, Gt and Lt', () => {
    const n = node('n', { zone: 'a', cores: '8' });
    const one = (e: NodeSelectorRequirement): boolean => fits(withTerms([{ matchExpressions: [e] }]), n);
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
    assert.equal(one(expr('cores', 'Lt', ['-1'])), false);
    assert.equal(one(expr('missing', 'Lt', ['16'])), false, 'a missing label never satisfies Lt');
    assert.equal(one(expr('zone', 'Gt', ['1'])), false, 'a non-integer label never satisfies Gt');
    assert.equal(one(expr('cores', 'Gt', ['x'])), false, 'a non-integer bound matches nothing');
    assert.equal(one(expr('cores', 'Gt', ['1', '2'])), false, 'Gt takes exactly one bound');
    assert.equal(one(expr('zone', 'Bogus', ['a'])), false);
  });

  it('reads only own labels, not what every object inherits', () => {
    assert.equal(fits(withTerms([{ matchExpressions: [expr('constructor', 'Exists')] }]), node('n')), false);
    assert.equal(fits(withTerms([{ matchExpressions: [expr('toString', 'DoesNotExist')] }]), node('n')), true);
  });

  it('matches metadata.name through matchFields, with In and NotIn only', () => {
    const pod = withTerms([{ matchFields: [{ key: 'metadata.name', operator: 'In', values: ['n2'] }] }]);
    assert.equal(fits(pod, node('n1')), false);
    assert.equal(fits(pod, node('n2')), true);
    const notIn = withTerms([{ matchFields: [{ key: 'metadata.name', operator: 'NotIn', values: ['n2'] }] }]);
    assert.equal(fits(notIn, node('n1')), true);
    assert.equal(fits(notIn, node('n2')), false);
    assert.equal(fits(withTerms([{ matchFields: [{ key: 'metadata.name', operator: 'Exists' }] }]), node('n1')), false);
    assert.equal(fits(withTerms([{ matchFields: [{ key: 'metadata.uid', operator: 'In', values: ['n1'] }] }]), node('n1')), false);
  });

  it('ORs terms, ANDs requirements, and lets an empty or unparseable term match nothing', () => {
    const pod = withTerms([{ matchExpressions: [expr('zone', 'In', ['a']), expr('disk', 'In', ['ssd'])] }, { matchExpressions: [expr('zone', 'In', ['c'])] }]);
    assert.equal(fits(pod, node('n', { zone: 'a', disk: 'ssd' })), true);
    assert.equal(fits(pod, node('n', { zone: 'a' })), false);
    assert.equal(fits(pod, node('n', { zone: 'c' })), true);
    const labelAndField = withTerms([{ matchExpressions: [expr('zone', 'In', ['a'])], matchFields: [{ key: 'metadata.name', operator: 'In', values: ['n1'] }] }]);
    assert.equal(fits(labelAndField, node('n1', { zone: 'a' })), true);
    assert.equal(fits(labelAndField, node('n2', { zone: 'a' })), false);
    assert.equal(fits(withTerms([{}]), node('n', { zone: 'a' })), false);
    assert.equal(fits(withTerms([]), node('n')), false);
    assert.equal(fits({ affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: {} } } }, node('n')), false, 'no terms at all');
    const oneBad = withTerms([{ matchExpressions: [expr('zone', 'Bogus')] }, { matchExpressions: [expr('zone', 'In', ['a'])] }]);
    assert.equal(fits(oneBad, node('n', { zone: 'a' })), true, 'a bad term is dropped, the others still count');
  });

  it('requires both the nodeSelector and the affinity', () => {
    const pod = withTerms([{ matchExpressions: [expr('zone', 'In', ['a'])] }], { disk: 'ssd' });
    assert.equal(fits(pod, node('n', { zone: 'a', disk: 'ssd' })), true);
    assert.equal(fits(pod, node('n', { zone: 'a' })), false);
    assert.equal(fits(pod, node('n', { disk: 'ssd' })), false);
  });

  it('compiles a bare NodeSelector for labels and a name', () => {
    const matches = compileNodeSelector({ nodeSelectorTerms: [{ matchExpressions: [expr('zone', 'In', ['a'])] }] });
    assert.equal(matches({ zone: 'a' }, 'n'), true);
    assert.equal(matches(undefined, 'n'), false);
  });
});
