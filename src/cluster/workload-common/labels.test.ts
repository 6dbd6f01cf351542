import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { compileSelector, hasAllLabels, isEmptySelector } from './labels.ts';

describe('compileSelector', () => {
  it('follows the LabelSelector rules: missing selects nothing, empty everything', () => {
    assert.equal(compileSelector(undefined)!({ a: 'b' }), false);
    assert.equal(compileSelector({})!({ a: 'b' }), true);
    const sel = compileSelector({ matchLabels: { app: 'web' }, matchExpressions: [{ key: 'tier', operator: 'In', values: ['a', 'b'] }, { key: 'canary', operator: 'DoesNotExist' }] })!;
    assert.equal(sel({ app: 'web', tier: 'a' }), true);
    assert.equal(sel({ app: 'web', tier: 'c' }), false);
    assert.equal(sel({ app: 'web', tier: 'a', canary: '' }), false);
    assert.equal(compileSelector({ matchExpressions: [{ key: 'x', operator: 'NotIn', values: ['1'] }] })!({}), true);
  });

  it('refuses selectors kube would reject', () => {
    assert.equal(compileSelector({ matchExpressions: [{ key: 'x', operator: 'Near' }] }), undefined);
    assert.equal(compileSelector({ matchExpressions: [{ key: 'x', operator: 'In', values: [] }] }), undefined);
  });

  it('tells an empty selector and a full label set apart', () => {
    assert.equal(isEmptySelector({}), true);
    assert.equal(isEmptySelector({ matchLabels: { a: 'b' } }), false);
    assert.equal(hasAllLabels({ a: '1', b: '2' }, { a: '1' }), true);
    assert.equal(hasAllLabels({ a: '1' }, { a: '1', b: '2' }), false);
  });
});
