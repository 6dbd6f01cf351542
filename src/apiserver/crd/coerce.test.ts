import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { JSONSchemaProps } from '../../api/schema.ts';
import { coerceCustomResource } from './coerce.ts';
import { validateCustomObject } from './validate-object.ts';

const schema: JSONSchemaProps = {
  type: 'object',
  properties: {
    spec: {
      type: 'object',
      properties: {
        replicas: { type: 'integer', default: 1 },
        image: { type: 'string' },
        mode: { type: 'string', default: 'auto', enum: ['auto', 'manual'] },
      },
    },
  },
};

const cases: Array<{ name: string; input: Record<string, unknown>; want: Record<string, unknown>; unknown: string[] }> = [
  {
    name: 'prunes, drops nulls, then defaults',
    input: { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w' }, spec: { image: null, replicas: null, extra: 1 } },
    want: { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w' }, spec: { replicas: 1, mode: 'auto' } },
    unknown: ['spec.extra'],
  },
  {
    name: 'keeps what is given',
    input: { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w' }, spec: { image: 'nginx', replicas: 3, mode: 'manual' } },
    want: { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w' }, spec: { image: 'nginx', replicas: 3, mode: 'manual' } },
    unknown: [],
  },
];

describe('coerceCustomResource', () => {
  for (const c of cases) {
    it(c.name, () => {
      const obj = structuredClone(c.input);
      assert.deepEqual(coerceCustomResource(obj, schema).unknownFields, c.unknown);
      assert.deepEqual(obj, c.want);
      assert.deepEqual(validateCustomObject(obj, schema), []);
    });
  }
});

describe('coerceCustomResource: nulls as kube-apiserver treats them', () => {
  const openshift: JSONSchemaProps = {
    type: 'object',
    properties: {
      spec: {
        type: 'object',
        properties: {
          unsupportedConfigOverrides: { type: 'object', nullable: true, 'x-kubernetes-preserve-unknown-fields': true },
          kernelArguments: { type: 'array', nullable: true, items: { type: 'string' } },
          logLevel: { type: 'string' },
          replicas: { type: 'integer', default: 1 },
          providerSpec: { type: 'object', properties: { value: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } },
        },
      },
    },
  };
  const machine = (spec: Record<string, unknown>) => ({ apiVersion: 'example.com/v1', kind: 'Thing', metadata: { name: 't' }, spec });

  it('keeps a nullable field set to null', () => {
    const obj = machine({ unsupportedConfigOverrides: null, kernelArguments: null });
    coerceCustomResource(obj, openshift);
    assert.deepEqual(obj.spec, { unsupportedConfigOverrides: null, kernelArguments: null, replicas: 1 });
  });

  it('keeps nulls under x-kubernetes-preserve-unknown-fields', () => {
    const obj = machine({ providerSpec: { value: { metadata: { creationTimestamp: null }, userDataSecret: null } } });
    coerceCustomResource(obj, openshift);
    assert.deepEqual(obj.spec.providerSpec, { value: { metadata: { creationTimestamp: null }, userDataSecret: null } });
  });

  it('drops other nulls, and defaults a null that has a default', () => {
    const obj = machine({ logLevel: null, replicas: null, providerSpec: null });
    coerceCustomResource(obj, openshift);
    assert.deepEqual(obj.spec, { replicas: 1 });
  });
});
