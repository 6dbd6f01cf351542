import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { defineCustomResource, type ResourceOf } from './define.ts';
import { type Infer, required, s } from './schema-builder.ts';

describe('schema builders', () => {
  const widget = s.object(
    {
      size: required(s.enum(['S', 'M', 'L'])),
      replicas: s.integer({ format: 'int32', minimum: 0, default: 1 }),
      labels: s.map(s.string()),
      ports: s.array(s.object({ name: required(s.string()), port: s.integer() }), { listType: 'map', listMapKeys: ['name'], maxItems: 4 }),
      note: s.nullable(s.string({ description: 'free text' })),
      raw: s.unknownObject(),
    },
    { rules: [{ rule: 'self.replicas <= 10', message: 'too many' }] },
  );

  it('write the JSONSchemaProps a structural CRD schema needs', () => {
    assert.deepEqual(widget.json, {
      type: 'object',
      properties: {
        size: { type: 'string', enum: ['S', 'M', 'L'] },
        replicas: { type: 'integer', format: 'int32', minimum: 0, default: 1 },
        labels: { type: 'object', additionalProperties: { type: 'string' } },
        ports: {
          type: 'array',
          items: { type: 'object', properties: { name: { type: 'string' }, port: { type: 'integer' } }, required: ['name'] },
          'x-kubernetes-list-type': 'map',
          'x-kubernetes-list-map-keys': ['name'],
          maxItems: 4,
        },
        note: { type: 'string', description: 'free text', nullable: true },
        raw: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
      },
      required: ['size'],
      'x-kubernetes-validations': [{ rule: 'self.replicas <= 10', message: 'too many' }],
    });
  });

  it('type required properties as required and the rest as optional (checked by the type check)', () => {
    type Widget = Infer<typeof widget>;
    const ok: Widget = { size: 'M', ports: [{ name: 'http' }], note: null, raw: { anything: [1] } };
    // @ts-expect-error size is required
    const noSize: Widget = { replicas: 1 };
    // @ts-expect-error size is an enum
    const badSize: Widget = { size: 'XL' };
    // @ts-expect-error a port needs its name
    const badPort: Widget = { size: 'S', ports: [{ port: 80 }] };
    assert.ok(ok && noSize && badSize && badPort);
  });
});

describe('defineCustomResource', () => {
  const Widget = defineCustomResource({
    group: 'example.com',
    version: 'v1alpha1',
    kind: 'Widget',
    plural: 'widgets',
    shortNames: ['wd'],
    scope: 'Namespaced',
    spec: s.object({ size: required(s.string()) }),
    status: s.object({ ready: s.boolean() }),
    printerColumns: [{ name: 'Ready', type: 'boolean', jsonPath: '.status.ready' }],
  });

  it('produces the CRD, its names and the REST coordinates', () => {
    assert.deepEqual(Widget.crd, {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'widgets.example.com' },
      spec: {
        group: 'example.com',
        names: { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList', shortNames: ['wd'] },
        scope: 'Namespaced',
        versions: [
          {
            name: 'v1alpha1',
            served: true,
            storage: true,
            schema: {
              openAPIV3Schema: {
                type: 'object',
                properties: {
                  apiVersion: { type: 'string', description: 'The versioned schema of this representation of an object.' },
                  kind: { type: 'string', description: 'The REST resource this object represents.' },
                  metadata: { type: 'object' },
                  spec: { type: 'object', properties: { size: { type: 'string' } }, required: ['size'] },
                  status: { type: 'object', properties: { ready: { type: 'boolean' } } },
                },
                required: ['spec'],
              },
            },
            subresources: { status: {} },
            additionalPrinterColumns: [{ name: 'Ready', type: 'boolean', jsonPath: '.status.ready' }],
          },
        ],
      },
    });
    assert.deepEqual([Widget.apiVersion, Widget.resource, Widget.namespaced], ['example.com/v1alpha1', 'widgets', true]);
  });

  it('types objects of the kind (checked by the type check)', () => {
    const w: ResourceOf<typeof Widget> = { metadata: { name: 'w' }, spec: { size: 'M' }, status: { ready: true } };
    // @ts-expect-error spec.size is required
    const bad: ResourceOf<typeof Widget> = { spec: {} };
    assert.ok(w && bad);
  });
});
