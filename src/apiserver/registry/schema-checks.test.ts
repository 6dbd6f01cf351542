import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { builtinResolver, builtinSchemaFor } from '../../api/builtin/schemas.ts';
import { noRefs, type JSONSchemaProps } from '../../api/schema.ts';
import { checkSchema } from './schema-checks.ts';
import type { KubeObject, ResourceDefinition } from './resource.ts';
import type { WriteContext } from './store.ts';

const schema: JSONSchemaProps = {
  type: 'object',
  properties: {
    spec: {
      type: 'object',
      required: ['size'],
      properties: { size: { type: 'integer', default: 1 }, mode: { type: 'string', enum: ['a', 'b'] }, note: { type: 'string' } },
      'x-kubernetes-validations': [{ rule: 'self.size < 10', message: 'size below 10' }, { rule: "!has(oldSelf.mode) || self.mode == oldSelf.mode", message: 'mode is immutable' }],
    },
  },
};

const def = { kind: 'Widget', group: 'example.com', crd: { name: 'widgets.example.com', uid: 'u' }, schema: { root: schema, resolve: noRefs } } as unknown as ResourceDefinition;

function widget(spec: KubeObject): KubeObject {
  return { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w' }, spec };
}

function check(obj: KubeObject, old?: KubeObject, fieldValidation: WriteContext['fieldValidation'] = 'Ignore'): { messages: string[]; warnings: string[] } {
  const ctx = { manager: 'test', warnings: [] as string[], fieldValidation };
  return { messages: checkSchema(def, obj, ctx, old).map((e) => e.message), warnings: ctx.warnings };
}

describe('checkSchema on custom resources', () => {
  it('defaults and prunes before the CEL rules see the object', () => {
    const obj = widget({ extra: true });
    assert.deepEqual(check(obj).messages, []);
    assert.deepEqual(obj.spec, { size: 1 });
  });

  it('runs the rules after the schema checks, with the old object for transition rules', () => {
    assert.deepEqual(check(widget({ size: 12 })).messages, ['spec: Invalid value: "object": size below 10']);
    assert.deepEqual(check(widget({ size: 2, mode: 'b' }), widget({ size: 2, mode: 'a' })).messages, ['spec: Invalid value: "object": mode is immutable']);
    assert.deepEqual(check(widget({ size: 2, mode: 'b' })).messages, []);
  });

  it('does not run the rules on an object of the wrong shape, as kube-apiserver does not', () => {
    assert.deepEqual(check(widget({ size: 'big' })).messages, [
      'spec.size: Invalid value: "string": spec.size in body must be of type integer: "string"',
      '<nil>: Invalid value: "null": some validation rules were not checked because the object was invalid; correct the existing errors to complete validation',
    ]);
    assert.deepEqual(check(widget({ size: 12, mode: 'c' })).messages.length, 2);
  });

  it('returns failures on values the update left alone as warnings (ratcheting), and others as errors', () => {
    const stored = widget({ size: 12, note: 'was' });
    const relabelled = { ...widget({ size: 12, note: 'was' }), metadata: { name: 'w', labels: { a: 'b' } } };
    assert.deepEqual(check(relabelled, stored), { messages: [], warnings: ['spec: Invalid value: "object": size below 10'] });
    assert.deepEqual(check(widget({ size: 12, note: 'changed' }), stored), { messages: ['spec: Invalid value: "object": size below 10'], warnings: [] });
  });
});

describe('checkSchema on built-ins', () => {
  const builtin = (group: string, version: string, kind: string): ResourceDefinition => {
    const found = builtinSchemaFor(group, version, kind);
    assert.ok(found, kind);
    return { kind, group, schema: { root: found.schema, resolve: builtinResolver } } as unknown as ResourceDefinition;
  };

  it('drops null fields, as decoding into Go types does, but keeps nulls inside free-form values', () => {
    const cm: KubeObject = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', labels: null, annotations: { a: 'b' } }, data: { k: 'v' }, binaryData: null };
    assert.deepEqual(checkSchema(builtin('', 'v1', 'ConfigMap'), cm, { manager: 'test', fieldValidation: 'Strict' } as WriteContext), []);
    assert.deepEqual(cm, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', annotations: { a: 'b' } }, data: { k: 'v' } });
    // A CRD's schema defaults are free-form JSON (apiextensions' JSON type): their nulls are data.
    const free = { type: 'object', default: { metadata: { creationTimestamp: null } }, description: null };
    const crd: KubeObject = {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'ws.example.com' },
      spec: { group: 'example.com', names: { plural: 'ws', kind: 'W' }, scope: 'Namespaced', versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', properties: { tmpl: free } } } }] },
    };
    checkSchema(builtin('apiextensions.k8s.io', 'v1', 'CustomResourceDefinition'), crd, { manager: 'test', fieldValidation: 'Strict' } as WriteContext);
    assert.deepEqual(crd.spec.versions[0].schema.openAPIV3Schema.properties.tmpl, { type: 'object', default: { metadata: { creationTimestamp: null } } });
  });
});
