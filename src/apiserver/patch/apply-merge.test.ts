import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { noRefs, type JSONSchemaProps } from '../../api/schema.ts';
import { mergeApplied, pruneUnowned } from './apply-merge.ts';
import { fieldElement as f, FieldSet, keyElement as k } from './field-set.ts';

const schema: JSONSchemaProps = {
  type: 'object',
  properties: {
    items: { type: 'array', items: { type: 'object', properties: { name: { type: 'string' }, v: { type: 'integer' } } }, 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['name'] },
    tags: { type: 'array', items: { type: 'string' }, 'x-kubernetes-list-type': 'set' },
    args: { type: 'array', items: { type: 'string' } },
    labels: { type: 'object', additionalProperties: { type: 'string' } },
  },
};

const items = (...names: string[]) => names.map((name) => ({ name }));
const names = (out: unknown) => (out as { items: Array<{ name: string }> }).items.map((i) => i.name);

describe('mergeApplied', () => {
  const orders: Array<[string[], string[], string[]]> = [
    [['a'], ['b'], ['a', 'b']],
    [['a', 'x'], ['b', 'a'], ['b', 'a', 'x']],
    [['a', 'b'], ['b', 'a'], ['b', 'a']],
    [['a', 'x', 'b'], ['b', 'a'], ['x', 'b', 'a']],
    [['x', 'a', 'y'], ['a', 'n'], ['x', 'a', 'y', 'n']],
  ];
  for (const [live, applied, expected] of orders) {
    it(`orders map-list items: live ${live} + applied ${applied} → ${expected}`, () => {
      assert.deepEqual(names(mergeApplied({ items: items(...live) }, { items: items(...applied) }, schema, noRefs)), expected);
    });
  }

  it('merges shared items field by field', () => {
    const out = mergeApplied({ items: [{ name: 'a', v: 1, keep: true }] }, { items: [{ name: 'a', v: 2 }] }, schema, noRefs);
    assert.deepEqual(out, { items: [{ name: 'a', v: 2, keep: true }] });
  });

  it('unites sets, replaces atomic lists, merges maps, and drops nulls', () => {
    const out = mergeApplied({ tags: ['x'], args: ['1', '2'], labels: { a: '1', b: '2' } }, { tags: ['y', 'x'], args: ['3'], labels: { b: null, c: '3' } }, schema, noRefs);
    assert.deepEqual(out, { tags: ['y', 'x'], args: ['3'], labels: { a: '1', c: '3' } });
  });
});

describe('pruneUnowned', () => {
  it('removes what only the previous configuration owned', () => {
    const obj = { items: items('a', 'b'), labels: { a: '1', b: '2' } };
    const last = FieldSet.of([[f('items'), k({ name: 'a' })], [f('items'), k({ name: 'b' })], [f('labels'), f('a')], [f('labels'), f('b')]]);
    const owned = FieldSet.of([[f('items'), k({ name: 'a' })], [f('labels'), f('b')]]);
    pruneUnowned(obj, last, owned, schema, noRefs);
    assert.deepEqual(obj, { items: items('a'), labels: { b: '2' } });
  });
});
