import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { JSONSchemaProps } from '../../api/schema.ts';
import { pruneObject, pruneObjectMeta, pruneValue, strictDecodingMessage, unknownFieldWarnings } from './prune.ts';

const meta = { name: 'w', namespace: 'default', labels: { a: 'b' }, anything: 'kept: root metadata is not pruned here' };

const schema: JSONSchemaProps = {
  type: 'object',
  properties: {
    spec: {
      type: 'object',
      properties: {
        replicas: { type: 'integer' },
        containers: { type: 'array', items: { type: 'object', properties: { name: { type: 'string' } } } },
        labels: { type: 'object', additionalProperties: { type: 'string' } },
        nested: { type: 'object', additionalProperties: { type: 'object', properties: { keep: { type: 'string' } } } },
        free: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true, properties: { typed: { type: 'object', properties: { x: { type: 'integer' } } } } },
        freeList: { type: 'array', items: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
        template: { type: 'object', 'x-kubernetes-embedded-resource': true, properties: { spec: { type: 'object', properties: { a: { type: 'string' } } } } },
        raw: { type: 'object', 'x-kubernetes-embedded-resource': true, 'x-kubernetes-preserve-unknown-fields': true },
        anyMap: { type: 'object', additionalProperties: true },
        scalar: { type: 'string' },
      },
    },
    status: { type: 'object', properties: { ready: { type: 'boolean' } } },
  },
};

const cases: Array<{ name: string; input: Record<string, unknown>; want: Record<string, unknown>; pruned: string[] }> = [
  {
    name: 'keeps apiVersion, kind and metadata at the root',
    input: { apiVersion: 'example.com/v1', kind: 'Widget', metadata: meta, spec: {} },
    want: { apiVersion: 'example.com/v1', kind: 'Widget', metadata: meta, spec: {} },
    pruned: [],
  },
  {
    name: 'drops unknown root and spec fields',
    input: { apiVersion: 'v', kind: 'K', metadata: {}, extra: 1, spec: { replicas: 1, foo: 'x', bar: { baz: 1 } } },
    want: { apiVersion: 'v', kind: 'K', metadata: {}, spec: { replicas: 1 } },
    pruned: ['extra', 'spec.bar', 'spec.foo'],
  },
  {
    name: 'drops unknown fields inside array items',
    input: { spec: { containers: [{ name: 'a', image: 'x' }, { name: 'b' }, { other: true }] } },
    want: { spec: { containers: [{ name: 'a' }, { name: 'b' }, {}] } },
    pruned: ['spec.containers[0].image', 'spec.containers[2].other'],
  },
  {
    name: 'keeps additionalProperties keys and prunes their values',
    input: { spec: { labels: { a: 'b', c: 'd' }, nested: { x: { keep: 'k', drop: 'd' } } } },
    want: { spec: { labels: { a: 'b', c: 'd' }, nested: { x: { keep: 'k' } } } },
    pruned: ['spec.nested.x.drop'],
  },
  {
    name: 'preserve-unknown-fields keeps unknown fields but prunes specified ones',
    input: { spec: { free: { anything: { deep: [1, { x: 1 }] }, typed: { x: 1, y: 2 } }, freeList: [{ a: 1 }, { b: { c: 2 } }] } },
    want: { spec: { free: { anything: { deep: [1, { x: 1 }] }, typed: { x: 1 } }, freeList: [{ a: 1 }, { b: { c: 2 } }] } },
    pruned: ['spec.free.typed.y'],
  },
  {
    name: 'embedded resources keep apiVersion and kind, and metadata loses what ObjectMeta lacks',
    input: { spec: { template: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', bogus: 1 }, spec: { a: 'x', b: 'y' }, extra: 1 } } },
    want: { spec: { template: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: { a: 'x' } } } },
    pruned: ['spec.template.extra', 'spec.template.metadata.bogus', 'spec.template.spec.b'],
  },
  {
    name: 'embedded and preserving keeps everything but unknown metadata',
    input: { spec: { raw: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', x: 1 }, data: { k: 'v' } } } },
    want: { spec: { raw: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' }, data: { k: 'v' } } } },
    pruned: ['spec.raw.metadata.x'],
  },
  {
    name: 'metadata below the root is an ordinary unknown field',
    input: { spec: { containers: [{ name: 'a', metadata: { x: 1 } }] } },
    want: { spec: { containers: [{ name: 'a' }] } },
    pruned: ['spec.containers[0].metadata'],
  },
  {
    name: 'additionalProperties: true keeps keys but empties nested objects, as Kubernetes does',
    input: { spec: { anyMap: { a: 1, b: { c: 2 } } } },
    want: { spec: { anyMap: { a: 1, b: {} } } },
    pruned: ['spec.anyMap.b.c'],
  },
  {
    name: 'an object where the schema says scalar loses its fields',
    input: { spec: { scalar: { a: 1 } } },
    want: { spec: { scalar: {} } },
    pruned: ['spec.scalar.a'],
  },
];

describe('pruneObject', () => {
  for (const c of cases) {
    it(c.name, () => {
      const obj = structuredClone(c.input);
      const pruned = pruneObject(obj, schema);
      assert.deepEqual(obj, c.want);
      assert.deepEqual(pruned, c.pruned);
    });
  }

  it('keeps everything under a root that preserves unknown fields', () => {
    const obj = { apiVersion: 'v', kind: 'K', metadata: {}, anything: { a: 1 } };
    assert.deepEqual(pruneObject(obj, { type: 'object', 'x-kubernetes-preserve-unknown-fields': true }), []);
    assert.deepEqual(obj.anything, { a: 1 });
  });
});

describe('pruneValue and pruneObjectMeta', () => {
  it('prunes a value that is not a resource, metadata included (unreported at its root, as in Kubernetes)', () => {
    const value = { metadata: { a: 1 }, spec: 1 };
    assert.deepEqual(pruneValue(value, { type: 'object', properties: { spec: { type: 'integer' } } }), []);
    assert.deepEqual(value, { spec: 1 });
  });
  it('drops fields ObjectMeta does not have', () => {
    const m = { name: 'a', labels: {}, clusterName: 'x', foo: 1 };
    assert.deepEqual(pruneObjectMeta(m), ['metadata.clusterName', 'metadata.foo']);
    assert.deepEqual(m, { name: 'a', labels: {} });
  });
});

describe('unknown field reporting', () => {
  const cases: Array<{ paths: string[]; strict: string; warnings: string[] }> = [
    { paths: ['spec.foo'], strict: 'strict decoding error: unknown field "spec.foo"', warnings: ['unknown field "spec.foo"'] },
    { paths: ['spec.a', 'spec.b[0].c'], strict: 'strict decoding error: unknown field "spec.a", unknown field "spec.b[0].c"', warnings: ['unknown field "spec.a"', 'unknown field "spec.b[0].c"'] },
  ];
  for (const c of cases) {
    it(c.paths.join(', '), () => {
      assert.equal(strictDecodingMessage(c.paths), c.strict);
      assert.deepEqual(unknownFieldWarnings(c.paths), c.warnings);
    });
  }
});
