import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { noRefs, type JSONSchemaProps } from '../../api/schema.ts';
import { ApiError } from '../errors.ts';
import { deref, isNamedField, listSemantics, objectMetaSchema, patchMeta, propertySchema, rootSchema } from './schema-nav.ts';
import { components, resolve } from './test-schemas.ts';

describe('schema navigation', () => {
  it('follows $ref and allOf-wrapped references', () => {
    const pod = deref(components.Pod, resolve)!;
    assert.ok(propertySchema(pod, 'spec', resolve)?.properties?.containers);
    assert.ok(propertySchema(pod, 'status', resolve)?.properties?.conditions, 'allOf: [{$ref}] is unwrapped');
  });

  it('keeps a referring node’s own list extensions', () => {
    const node: JSONSchemaProps = { $ref: '#/components/schemas/Toleration', 'x-kubernetes-list-type': 'atomic' };
    assert.equal(deref(node, resolve)?.['x-kubernetes-list-type'], 'atomic');
  });

  it('turns an unresolvable reference into a 500', () => {
    assert.throws(() => deref({ $ref: '#/components/schemas/Nope' }, resolve), (err: unknown) => err instanceof ApiError && err.code === 500);
  });

  const lists: Array<[string, JSONSchemaProps, ReturnType<typeof listSemantics>]> = [
    ['list-type map with keys', { type: 'array', 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['a', 'b'] }, { type: 'map', keys: ['a', 'b'] }],
    ['list-type map keyed by the merge key', { type: 'array', 'x-kubernetes-list-type': 'map', 'x-kubernetes-patch-merge-key': 'name' }, { type: 'map', keys: ['name'] }],
    ['a merge key alone', { type: 'array', 'x-kubernetes-patch-merge-key': 'name' }, { type: 'map', keys: ['name'] }],
    ['merge strategy over scalars', { type: 'array', items: { type: 'string' }, 'x-kubernetes-patch-strategy': 'merge' }, { type: 'set' }],
    ['list-type set', { type: 'array', 'x-kubernetes-list-type': 'set' }, { type: 'set' }],
    ['no hints', { type: 'array', items: { type: 'object' } }, { type: 'atomic' }],
  ];
  for (const [name, node, expected] of lists) {
    it(`list semantics: ${name}`, () => assert.deepEqual(listSemantics(node, noRefs), expected));
  }

  it('reads patch strategies', () => {
    assert.deepEqual(patchMeta({ 'x-kubernetes-patch-strategy': 'merge,retainKeys', 'x-kubernetes-patch-merge-key': 'name' }), { merge: true, replace: false, retainKeys: true, mergeKey: 'name' });
  });

  it('fills in ObjectMeta where metadata is opaque, and only there', () => {
    assert.equal(propertySchema(rootSchema(components.Deployment, resolve), 'metadata', resolve), objectMetaSchema);
    assert.ok(propertySchema(rootSchema(components.Pod, resolve), 'metadata', resolve)?.properties?.uid);
    const untyped = rootSchema(undefined, noRefs);
    assert.ok(isNamedField(untyped, 'metadata'));
    assert.ok(!isNamedField(untyped, 'spec'));
  });
});
