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

  it('adds a scale subresource beside the status one', () => {
    const scaled = defineCustomResource({
      group: 'example.com',
      version: 'v1',
      kind: 'Pack',
      plural: 'packs',
      scope: 'Namespaced',
      spec: s.object({ replicas: s.integer({ default: 1 }) }),
      status: s.object({ replicas: s.integer(), selector: s.string() }),
      scale: { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas', labelSelectorPath: '.status.selector' },
    });
    assert.deepEqual(scaled.crd.spec.versions[0]!.subresources, {
      status: {},
      scale: { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas', labelSelectorPath: '.status.selector' },
    });
    const unscaled = defineCustomResource({ group: 'example.com', version: 'v1', kind: 'Bag', plural: 'bags', scope: 'Cluster', spec: s.object({}) });
    assert.equal(unscaled.crd.spec.versions[0]!.subresources, undefined);
  });

  it('writes defaults of lists and int-or-string values, and a pattern for the string form', () => {
    const list = s.array(s.object({ type: s.string() }), { minItems: 1, default: [{ type: 'Ready' }] });
    assert.deepEqual(list.json, { type: 'array', items: { type: 'object', properties: { type: { type: 'string' } } }, minItems: 1, default: [{ type: 'Ready' }] });
    assert.deepEqual(s.intOrString({ pattern: '^[0-9]+%?$', default: '100%' }).json, {
      anyOf: [{ type: 'integer' }, { type: 'string' }],
      'x-kubernetes-int-or-string': true,
      pattern: '^[0-9]+%?$',
      default: '100%',
    });
  });

  it('types objects of the kind (checked by the type check)', () => {
    const w: ResourceOf<typeof Widget> = { metadata: { name: 'w' }, spec: { size: 'M' }, status: { ready: true } };
    // @ts-expect-error spec.size is required
    const bad: ResourceOf<typeof Widget> = { spec: {} };
    assert.ok(w && bad);
  });
});
