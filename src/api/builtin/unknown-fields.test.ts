import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { noRefs } from '../schema.ts';
import { builtinResolver, builtinSchemaFor } from './schemas.ts';
import { findUnknownFields } from './unknown-fields.ts';

const schemaOf = (group: string, kind: string) => builtinSchemaFor(group, 'v1', kind)!.schema;
const unknown = (group: string, kind: string, obj: unknown) => findUnknownFields(obj, schemaOf(group, kind), builtinResolver);

describe('findUnknownFields', () => {
  it('accepts a well-formed Deployment', () => {
    const deployment = {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'web', labels: { 'app.kubernetes.io/name': 'web' }, annotations: { 'anything/goes': 'x' } },
      spec: {
        replicas: 2,
        selector: { matchLabels: { app: 'web' } },
        strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: '25%', maxUnavailable: 0 } },
        template: {
          metadata: { labels: { app: 'web' } },
          spec: {
            containers: [{ name: 'c', image: 'nginx', ports: [{ containerPort: 80 }], resources: { limits: { cpu: '500m', memory: 1024 } }, env: [{ name: 'A', value: 'b' }] }],
            nodeSelector: { 'kubernetes.io/os': 'linux' },
          },
        },
      },
      status: { replicas: 2, conditions: [{ type: 'Available', status: 'True' }] },
    };
    assert.deepEqual(unknown('apps', 'Deployment', deployment), []);
  });

  it('finds typos at the top, in nested objects and in nested lists', () => {
    const deployment = {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metdata: { name: 'web' },
      spec: {
        foo: 1,
        selector: { matchLabels: { app: 'web' }, matchExpresions: [] },
        template: {
          spec: {
            containers: [
              { name: 'a', image: 'nginx' },
              { name: 'b', imagee: 'nginx', ports: [{ containerPort: 80, protocl: 'TCP' }] },
            ],
          },
        },
      },
    };
    assert.deepEqual(unknown('apps', 'Deployment', deployment), [
      'metdata',
      'spec.foo',
      'spec.selector.matchExpresions',
      'spec.template.spec.containers[1].imagee',
      'spec.template.spec.containers[1].ports[0].protocl',
    ]);
  });

  it('allows any key in maps, but checks the values of maps of objects', () => {
    const pod = { metadata: { labels: { 'any.key/x': 'y' }, annotations: { z: '' } }, spec: { containers: [], nodeSelector: { whatever: 'x' } } };
    assert.deepEqual(unknown('', 'Pod', pod), []);
    const crd = {
      spec: {
        versions: [{ name: 'v1', schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', typo: true } } } } }],
      },
    };
    assert.deepEqual(unknown('apiextensions.k8s.io', 'CustomResourceDefinition', crd), [
      'spec.versions[0].schema.openAPIV3Schema.properties.spec.typo',
    ]);
  });

  it('allows anything inside free-form fields', () => {
    const pod = {
      metadata: { managedFields: [{ manager: 'kubectl', fieldsV1: { 'f:spec': { 'f:containers': { 'k:{"name":"c"}': {} } } } }] },
    };
    assert.deepEqual(unknown('', 'Pod', pod), []);
    const crd = {
      spec: {
        versions: [{
          name: 'v1',
          schema: { openAPIV3Schema: { type: 'object', default: { any: { thing: 1 } }, items: { whatever: true }, additionalProperties: { type: 'string' } } },
          subresources: { status: {} },
        }],
      },
    };
    assert.deepEqual(unknown('apiextensions.k8s.io', 'CustomResourceDefinition', crd), []);
  });

  it('ignores nulls and values of the wrong JSON type', () => {
    assert.deepEqual(unknown('', 'Pod', { metadata: null, spec: { containers: 'oops', volumes: [null] } }), []);
  });

  it('works on inline schemas without references', () => {
    const schema = { type: 'object' as const, properties: { spec: { type: 'object' as const, properties: { size: { type: 'integer' as const } } } } };
    assert.deepEqual(findUnknownFields({ spec: { size: 1, colour: 'red' } }, schema, noRefs), ['spec.colour']);
  });
});
