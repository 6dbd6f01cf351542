import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { JSONSchemaProps } from '../../api/schema.ts';
import { validateStructuralSchema } from './structural.ts';

const cases: Array<{ name: string; schema: Record<string, unknown>; want: string[] }> = [
  { name: 'a structural schema', schema: { type: 'object', properties: { spec: { type: 'object', properties: { a: { type: 'string' } } } } }, want: [] },
  {
    name: 'errors are sorted by message',
    schema: { type: 'object', properties: { b: {}, a: { type: 'array' } } },
    want: ['s.properties[a].items: Required value: must be specified', 's.properties[b].type: Required value: must not be empty for specified object fields'],
  },
  { name: 'generateName may be restricted', schema: { type: 'object', properties: { metadata: { type: 'object', properties: { name: { type: 'string' }, generateName: { type: 'string' } } } } }, want: [] },
  { name: 'metadata description is forbidden', schema: { type: 'object', properties: { metadata: { type: 'object', description: 'x' } } }, want: ['s.properties[metadata]: Forbidden: must not specify anything other than name and generateName, but metadata is implicitly specified'] },
  { name: 'metadata in a nested context', schema: { type: 'object', properties: { metadata: { type: 'object' } }, anyOf: [{ properties: { metadata: { properties: {} } } }] }, want: ['s.anyOf[0].properties[metadata]: Forbidden: must not be specified in a nested context'] },
  { name: 'embedded metadata must be an object', schema: { type: 'object', properties: { t: { type: 'object', 'x-kubernetes-embedded-resource': true, properties: { metadata: { type: 'string' } } } } }, want: ['s.properties[t].properties[metadata].type: Invalid value: "string": must be object'] },
  {
    name: 'nested extensions',
    schema: { type: 'object', properties: { a: { type: 'string' } }, allOf: [{ properties: { a: { nullable: true, 'x-kubernetes-list-type': 'set' } } }] },
    want: ['s.allOf[0].properties[a].nullable: Forbidden: must be false to be structural', 's.allOf[0].properties[a].x-kubernetes-list-type: Forbidden: must be undefined to be structural'],
  },
  { name: 'int-or-string under allOf', schema: { type: 'object', properties: { p: { 'x-kubernetes-int-or-string': true, allOf: [{ anyOf: [{ type: 'integer' }, { type: 'string' }] }, { pattern: '^[0-9]+%?$' }] } } }, want: [] },
];

describe('validateStructuralSchema', () => {
  for (const c of cases) {
    it(c.name, () => assert.deepEqual(validateStructuralSchema(c.schema as JSONSchemaProps, 's').map((e) => e.message), c.want));
  }
});
