import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { JSONSchemaProps } from '../../api/schema.ts';
import { applyDefaults, dropNonNullableNulls } from './defaulting.ts';

const schema: JSONSchemaProps = {
  type: 'object',
  properties: {
    spec: {
      type: 'object',
      default: {},
      properties: {
        replicas: { type: 'integer', default: 1 },
        mode: { type: 'string', default: 'auto' },
        optional: { type: 'string', nullable: true, default: 'x' },
        noDefault: { type: 'string' },
        strategy: { type: 'object', default: { type: 'Rolling' }, properties: { type: { type: 'string' }, maxSurge: { type: 'integer', default: 25 } } },
        containers: { type: 'array', items: { type: 'object', default: { name: 'anon' }, properties: { name: { type: 'string' }, pull: { type: 'string', default: 'IfNotPresent' } } } },
        ports: { type: 'array', items: { type: 'integer', default: 80 } },
        byName: { type: 'object', additionalProperties: { type: 'object', default: { weight: 1 }, properties: { weight: { type: 'integer' }, tier: { type: 'string', default: 'gold' } } } },
        list: { type: 'array', default: ['a'], items: { type: 'string' } },
      },
    },
  },
};

const cases: Array<{ name: string; input: Record<string, unknown>; want: Record<string, unknown> }> = [
  {
    name: 'defaults a missing object, then its fields',
    input: {},
    want: { spec: { replicas: 1, mode: 'auto', optional: 'x', strategy: { type: 'Rolling', maxSurge: 25 }, list: ['a'] } },
  },
  {
    name: 'keeps values that are present',
    input: { spec: { replicas: 5, mode: 'manual', optional: 'y', strategy: { type: 'Recreate', maxSurge: 0 }, list: [] } },
    want: { spec: { replicas: 5, mode: 'manual', optional: 'y', strategy: { type: 'Recreate', maxSurge: 0 }, list: [] } },
  },
  {
    name: 'replaces a null where the schema is not nullable, keeps it where it is',
    input: { spec: { replicas: null, optional: null } },
    want: { spec: { replicas: 1, mode: 'auto', optional: null, strategy: { type: 'Rolling', maxSurge: 25 }, list: ['a'] } },
  },
  {
    name: 'defaults inside array items, and null items',
    input: { spec: { containers: [{ name: 'a' }, null, { pull: 'Always' }], ports: [1, null] } },
    want: { spec: { replicas: 1, mode: 'auto', optional: 'x', strategy: { type: 'Rolling', maxSurge: 25 }, list: ['a'], containers: [{ name: 'a', pull: 'IfNotPresent' }, { name: 'anon', pull: 'IfNotPresent' }, { pull: 'Always' }], ports: [1, 80] } },
  },
  {
    name: 'defaults inside additionalProperties values, and null values',
    input: { spec: { byName: { a: { weight: 3 }, b: null } } },
    want: { spec: { replicas: 1, mode: 'auto', optional: 'x', strategy: { type: 'Rolling', maxSurge: 25 }, list: ['a'], byName: { a: { weight: 3, tier: 'gold' }, b: { weight: 1, tier: 'gold' } } } },
  },
];

describe('applyDefaults', () => {
  for (const c of cases) {
    it(c.name, () => {
      const obj = structuredClone(c.input);
      applyDefaults(obj, schema);
      assert.deepEqual(obj, c.want);
    });
  }

  it('copies defaults, so objects never share them', () => {
    const a: Record<string, any> = {};
    const b: Record<string, any> = {};
    applyDefaults(a, schema);
    applyDefaults(b, schema);
    a.spec.strategy.type = 'changed';
    assert.equal(b.spec.strategy.type, 'Rolling');
    assert.deepEqual((schema.properties!.spec!.properties!.strategy!.default as Record<string, unknown>), { type: 'Rolling' });
  });

  it('leaves fields without a schema alone', () => {
    const obj = { other: { replicas: null } };
    applyDefaults(obj, schema);
    assert.deepEqual(obj.other, { replicas: null });
  });
});

describe('dropNonNullableNulls', () => {
  const nullCases: Array<{ name: string; input: Record<string, unknown>; want: Record<string, unknown> }> = [
    { name: 'drops a null with neither nullable nor default', input: { spec: { noDefault: null } }, want: { spec: {} } },
    { name: 'keeps a null that will be defaulted', input: { spec: { replicas: null } }, want: { spec: { replicas: null } } },
    { name: 'keeps a nullable null', input: { spec: { optional: null } }, want: { spec: { optional: null } } },
    { name: 'keeps nulls without a schema', input: { spec: { unknown: null } }, want: { spec: { unknown: null } } },
    { name: 'recurses into arrays but never drops items', input: { spec: { containers: [null, { name: null }] } }, want: { spec: { containers: [null, {}] } } },
  ];
  for (const c of nullCases) {
    it(c.name, () => {
      const obj = structuredClone(c.input);
      dropNonNullableNulls(obj, schema);
      assert.deepEqual(obj, c.want);
    });
  }
});
