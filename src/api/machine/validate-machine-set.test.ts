import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { validateMachineSet, type MachineSetLike } from './validate-machine-set.ts';

const labels = { 'machine.openshift.io/cluster-api-cluster': 'c', 'machine.openshift.io/cluster-api-machineset': 'c-worker-a', tier: 'gold' };
const set = (selector: unknown, templateLabels: Record<string, string> = labels): MachineSetLike =>
  ({ spec: { selector, template: { metadata: { labels: templateLabels } } } }) as MachineSetLike;
const messages = (s: MachineSetLike, old?: MachineSetLike) => validateMachineSet(s, old).map((e) => e.message);
const mismatch = (l: Record<string, string> = labels) => `spec.template.metadata.labels: Invalid value: ${JSON.stringify(l)}: \`selector\` does not match template \`labels\``;

describe('validateMachineSet', () => {
  const accepted: Array<[string, unknown]> = [
    ['matchLabels, a subset of the labels', { matchLabels: { 'machine.openshift.io/cluster-api-machineset': 'c-worker-a' } }],
    ['In', { matchExpressions: [{ key: 'tier', operator: 'In', values: ['silver', 'gold'] }] }],
    ['NotIn', { matchExpressions: [{ key: 'tier', operator: 'NotIn', values: ['bronze'] }] }],
    ['NotIn on a missing label', { matchExpressions: [{ key: 'zone', operator: 'NotIn', values: ['a'] }] }],
    ['Exists', { matchExpressions: [{ key: 'tier', operator: 'Exists' }] }],
    ['DoesNotExist', { matchExpressions: [{ key: 'zone', operator: 'DoesNotExist' }] }],
    ['matchLabels and matchExpressions together', { matchLabels: { tier: 'gold' }, matchExpressions: [{ key: 'zone', operator: 'DoesNotExist' }] }],
  ];
  for (const [what, selector] of accepted) it(`accepts a selector the template matches: ${what}`, () => assert.deepEqual(messages(set(selector)), []));

  const refused: Array<[string, unknown]> = [
    ['a matchLabels value differs', { matchLabels: { tier: 'silver' } }],
    ['a matchLabels key is missing', { matchLabels: { zone: 'a' } }],
    ['In misses', { matchExpressions: [{ key: 'tier', operator: 'In', values: ['silver'] }] }],
    ['In on a missing label', { matchExpressions: [{ key: 'zone', operator: 'In', values: ['a'] }] }],
    ['NotIn hits', { matchExpressions: [{ key: 'tier', operator: 'NotIn', values: ['gold'] }] }],
    ['Exists on a missing label', { matchExpressions: [{ key: 'zone', operator: 'Exists' }] }],
    ['DoesNotExist on a present label', { matchExpressions: [{ key: 'tier', operator: 'DoesNotExist' }] }],
    ['matchLabels match but an expression does not', { matchLabels: { tier: 'gold' }, matchExpressions: [{ key: 'tier', operator: 'DoesNotExist' }] }],
  ];
  for (const [what, selector] of refused) {
    it(`refuses a template the selector misses, naming spec.template.metadata.labels: ${what}`, () => {
      const errs = validateMachineSet(set(selector));
      assert.deepEqual(errs.map((e) => [e.type, e.field]), [['FieldValueInvalid', 'spec.template.metadata.labels']]);
      assert.equal(errs[0]!.message, mismatch());
    });
  }

  it('refuses a template without labels', () => {
    const unlabelled = { spec: { selector: { matchLabels: { tier: 'gold' } }, template: {} } };
    assert.deepEqual(messages(unlabelled), [mismatch({})]);
  });

  it('refuses an empty or missing selector, naming spec.selector', () => {
    assert.deepEqual(messages(set({})), ['spec.selector: Invalid value: {}: empty selector is not valid for MachineSet.']);
    assert.deepEqual(messages(set({ matchLabels: {}, matchExpressions: [] })), ['spec.selector: Invalid value: {"matchLabels":{},"matchExpressions":[]}: empty selector is not valid for MachineSet.']);
    assert.deepEqual(messages(set(undefined)), ['spec.selector: Invalid value: {}: empty selector is not valid for MachineSet.']);
  });

  it('refuses an invalid selector, naming the field inside it', () => {
    const errs = validateMachineSet(set({ matchExpressions: [{ key: 'tier', operator: 'Near', values: ['gold'] }] }));
    assert.deepEqual(errs.map((e) => e.field), ['spec.selector.matchExpressions[0].operator']);
    assert.match(errs[0]!.message, /^spec\.selector\.matchExpressions\[0\]\.operator: Unsupported value: "Near": supported values: "In", "NotIn", "Exists", "DoesNotExist"$/);
    const noValues = validateMachineSet(set({ matchExpressions: [{ key: 'tier', operator: 'In', values: [] }] }));
    assert.deepEqual(noValues.map((e) => e.field), ['spec.selector.matchExpressions[0].values']);
  });

  it('does not check again an update that keeps the selector and the template\'s labels', () => {
    const stored = set({ matchLabels: { tier: 'silver' } });
    assert.deepEqual(messages(stored, stored), [], 'a set stored before these checks can still be scaled or finalized');
    assert.deepEqual(messages(set({ matchLabels: { tier: 'silver' } }, { tier: 'bronze' }), stored), [mismatch({ tier: 'bronze' })]);
  });

  it('refuses a change of selector on update, as OpenShift\'s webhook does, and takes any other change', () => {
    const old = set({ matchLabels: { tier: 'gold' } });
    assert.deepEqual(messages(set({ matchLabels: { tier: 'gold', 'machine.openshift.io/cluster-api-cluster': 'c' } }), old), ['spec.selector: Forbidden: selector is immutable']);
    assert.deepEqual(messages(set({ matchLabels: { tier: 'gold' } }, { ...labels, extra: 'x' }), old), []);
  });
});
