import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { builtinComponents } from '../../api/builtin/schemas.ts';
import type { JSONSchemaProps } from '../../api/schema.ts';
import { crdComponentName, crdComponents } from './crd-components.ts';
import { documentHash, serializeDocument } from './hash.ts';
import { builtinPatchTypes, customResourcePatchTypes, groupVersionPath, operationPrefix, parseGroupVersionPath, type OpenApiResource } from './resources.ts';
import { buildOpenApiV2 } from './v2-document.ts';
import { buildOpenApiV3Document, type OpenApiV3Document } from './v3-document.ts';
import { buildOpenApiV3Root } from './v3-root.ts';

const components = builtinComponents();

const builtin = (group: string, kind: string, resource: string, namespaced: boolean, subresources: OpenApiResource['subresources'] = {}): OpenApiResource => ({
  group,
  version: 'v1',
  kind,
  resource,
  namespaced,
  subresources,
  schema: `io.k8s.api.${group ? group.replace(/\.k8s\.io$/, '') : 'core'}.v1.${kind}`,
  patchTypes: builtinPatchTypes,
});

const widgetSchema: JSONSchemaProps = {
  type: 'object',
  properties: {
    spec: { type: 'object', properties: { size: { type: 'integer' }, port: { 'x-kubernetes-int-or-string': true, anyOf: [{ type: 'integer' }, { type: 'string' }] } } },
    status: { type: 'object', properties: { ready: { type: 'boolean' } } },
  },
};

const widgets: OpenApiResource = {
  group: 'example.com',
  version: 'v1',
  kind: 'Widget',
  listKind: 'WidgetList',
  resource: 'widgets',
  namespaced: true,
  subresources: { status: true, scale: true },
  schema: widgetSchema,
  patchTypes: customResourcePatchTypes,
};

const resources: OpenApiResource[] = [
  builtin('', 'Namespace', 'namespaces', false, { status: true }),
  builtin('', 'Node', 'nodes', false, { status: true }),
  builtin('', 'Pod', 'pods', true, { status: true }),
  builtin('', 'ConfigMap', 'configmaps', true),
  builtin('', 'Secret', 'secrets', true),
  builtin('', 'Service', 'services', true, { status: true }),
  builtin('', 'Endpoints', 'endpoints', true),
  builtin('', 'Event', 'events', true),
  builtin('', 'ServiceAccount', 'serviceaccounts', true),
  builtin('apps', 'Deployment', 'deployments', true, { status: true, scale: true }),
  builtin('apps', 'ReplicaSet', 'replicasets', true, { status: true, scale: true }),
  builtin('apps', 'DaemonSet', 'daemonsets', true, { status: true }),
  builtin('policy', 'PodDisruptionBudget', 'poddisruptionbudgets', true, { status: true }),
  builtin('coordination.k8s.io', 'Lease', 'leases', true),
  builtin('events.k8s.io', 'Event', 'events', true),
  { ...builtin('apiextensions.k8s.io', 'CustomResourceDefinition', 'customresourcedefinitions', false, { status: true }), schema: 'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.CustomResourceDefinition' },
  widgets,
];

type Operation = Record<string, unknown> & { parameters?: Array<{ name: string; in: string }>; requestBody?: { content: Record<string, unknown> } };

/** What kubectl's query-parameter verifier does: the first PATCH operation of the kind must list the parameter. */
function patchSupports(doc: OpenApiV3Document, gvk: { group: string; version: string; kind: string }, param: string): boolean | undefined {
  for (const item of Object.values(doc.paths)) {
    const op = item['patch'] as Operation | undefined;
    if (!op) continue;
    const ext = op['x-kubernetes-group-version-kind'] as Record<string, string>;
    if (ext['group'] !== gvk.group || ext['version'] !== gvk.version || ext['kind'] !== gvk.kind) continue;
    return !!op.parameters?.some((p) => p.name === param && p.in === 'query');
  }
  return undefined;
}

/** Every `$ref` in a document names a schema of that document. */
function assertSelfContained(doc: unknown, schemas: Record<string, unknown>, prefix: string): void {
  JSON.stringify(doc, (key, value: unknown) => {
    if (key === '$ref' && typeof value === 'string') {
      assert.ok(value.startsWith(prefix), value);
      assert.ok(schemas[value.slice(prefix.length)], `dangling ${value}`);
    }
    return value;
  });
}

describe('group-version paths', () => {
  it('round-trips the core and named groups', () => {
    assert.equal(groupVersionPath({ group: '', version: 'v1' }), 'api/v1');
    assert.equal(groupVersionPath({ group: 'apps', version: 'v1' }), 'apis/apps/v1');
    assert.deepEqual(parseGroupVersionPath('apis/example.com/v1beta1'), { group: 'example.com', version: 'v1beta1' });
    assert.deepEqual(parseGroupVersionPath('api/v1'), { group: '', version: 'v1' });
    assert.equal(parseGroupVersionPath('apis/apps'), undefined);
    assert.equal(operationPrefix({ group: 'coordination.k8s.io', version: 'v1' }), 'CoordinationV1');
    assert.equal(operationPrefix({ group: 'stable.example.com', version: 'v1beta1' }), 'StableExampleComV1beta1');
  });
});

describe('buildOpenApiV3Root', () => {
  it('lists each group-version with its document hash', () => {
    const root = buildOpenApiV3Root(['apis/apps/v1', 'api/v1', 'apis/example.com/v1'], (gv) => `H-${gv.length}`);
    assert.deepEqual(Object.keys(root.paths), ['api/v1', 'apis/apps/v1', 'apis/example.com/v1']);
    assert.deepEqual(root.paths['api/v1'], { serverRelativeURL: '/openapi/v3/api/v1?hash=H-6' });
    assert.equal(root.paths['apis/apps/v1']!.serverRelativeURL, '/openapi/v3/apis/apps/v1?hash=H-12');
  });
});

describe('buildOpenApiV3Document', () => {
  const started = performance.now();
  const core = buildOpenApiV3Document({ group: '', version: 'v1' }, resources, components);
  const apps = buildOpenApiV3Document({ group: 'apps', version: 'v1' }, resources, components);
  const example = buildOpenApiV3Document({ group: 'example.com', version: 'v1' }, resources, components);
  const elapsed = performance.now() - started;

  it('builds quickly', () => {
    console.log(`built the core/v1, apps/v1 and example.com/v1 v3 documents in ${elapsed.toFixed(1)} ms (${serializeDocument(core).body.length} bytes for core/v1)`);
  });

  it('is an OpenAPI 3.0 document of the group-version\'s paths only', () => {
    assert.equal(core.openapi, '3.0.0');
    assert.ok(core.info.title);
    assert.ok(core.paths['/api/v1/namespaces/{namespace}/pods/{name}']);
    assert.ok(core.paths['/api/v1/namespaces/{namespace}/pods/{name}/status']);
    assert.ok(core.paths['/api/v1/pods'], 'list across namespaces');
    assert.ok(core.paths['/api/v1/nodes/{name}']);
    assert.equal(core.paths['/api/v1/namespaces/{namespace}/nodes'], undefined);
    assert.ok(!Object.keys(core.paths).some((p) => p.startsWith('/apis/')));
    assert.ok(apps.paths['/apis/apps/v1/namespaces/{namespace}/deployments/{name}/scale']);
  });

  it('tags PATCH with the kind and the patch content types and parameters kubectl needs', () => {
    const patch = core.paths['/api/v1/namespaces/{namespace}/pods/{name}']!['patch'] as Operation;
    assert.deepEqual(patch['x-kubernetes-group-version-kind'], { group: '', version: 'v1', kind: 'Pod' });
    assert.equal(patch['x-kubernetes-action'], 'patch');
    assert.deepEqual(Object.keys(patch.requestBody!.content).sort(), [
      'application/apply-patch+yaml', 'application/json-patch+json', 'application/merge-patch+json', 'application/strategic-merge-patch+json',
    ]);
    for (const name of ['fieldManager', 'fieldValidation', 'dryRun', 'force']) assert.ok(patch.parameters!.some((p) => p.name === name && p.in === 'query'), name);
    assert.equal(patchSupports(core, { group: '', version: 'v1', kind: 'Pod' }, 'fieldValidation'), true);
    assert.equal(patchSupports(core, { group: '', version: 'v1', kind: 'Node' }, 'fieldValidation'), true);
    assert.equal(patchSupports(apps, { group: 'apps', version: 'v1', kind: 'Deployment' }, 'fieldValidation'), true);
    assert.equal(patchSupports(apps, { group: 'autoscaling', version: 'v1', kind: 'Scale' }, 'fieldValidation'), true);
    assert.equal(patchSupports(example, { group: 'example.com', version: 'v1', kind: 'Widget' }, 'fieldValidation'), true);
  });

  it('marks every operation with its action and kind', () => {
    const actions = new Set<string>();
    for (const item of Object.values(apps.paths)) {
      for (const [method, op] of Object.entries(item)) {
        if (method === 'parameters') continue;
        const o = op as Operation;
        actions.add(o['x-kubernetes-action'] as string);
        assert.ok(o['x-kubernetes-group-version-kind']);
        assert.ok(o['operationId']);
      }
    }
    assert.deepEqual([...actions].sort(), ['delete', 'deletecollection', 'get', 'list', 'patch', 'post', 'put']);
    const scale = apps.paths['/apis/apps/v1/namespaces/{namespace}/deployments/{name}/scale']!['get'] as Operation;
    assert.equal(scale['operationId'], 'readAppsV1NamespacedDeploymentScale');
    assert.deepEqual(scale['x-kubernetes-group-version-kind'], { group: 'autoscaling', version: 'v1', kind: 'Scale' });
  });

  it('carries its kinds and everything they reference, and nothing else', () => {
    const schemas = core.components.schemas;
    for (const name of ['io.k8s.api.core.v1.Pod', 'io.k8s.api.core.v1.PodList', 'io.k8s.api.core.v1.Container', 'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta',
      'io.k8s.apimachinery.pkg.apis.meta.v1.Status', 'io.k8s.apimachinery.pkg.apis.meta.v1.DeleteOptions', 'io.k8s.apimachinery.pkg.apis.meta.v1.Patch',
      'io.k8s.apimachinery.pkg.util.intstr.IntOrString', 'io.k8s.apimachinery.pkg.api.resource.Quantity']) {
      assert.ok(schemas[name], name);
    }
    assert.equal(schemas['io.k8s.api.apps.v1.Deployment'], undefined);
    assert.ok(apps.components.schemas['io.k8s.api.core.v1.PodSpec'], 'apps/v1 brings the pod template types');
    assert.ok(apps.components.schemas['io.k8s.api.autoscaling.v1.Scale']);
    assert.deepEqual(schemas['io.k8s.api.core.v1.Pod']!['x-kubernetes-group-version-kind'], [{ group: '', version: 'v1', kind: 'Pod' }]);
    assertSelfContained(core, schemas, '#/components/schemas/');
    assertSelfContained(apps, apps.components.schemas, '#/components/schemas/');
    assertSelfContained(example, example.components.schemas, '#/components/schemas/');
  });

  it('documents a custom resource without strategic merge patch', () => {
    const patch = example.paths['/apis/example.com/v1/namespaces/{namespace}/widgets/{name}']!['patch'] as Operation;
    assert.equal(patch.requestBody!.content['application/strategic-merge-patch+json'], undefined);
    assert.ok(patch.requestBody!.content['application/merge-patch+json']);
    const widget = example.components.schemas['com.example.v1.Widget']!;
    assert.deepEqual(widget['x-kubernetes-group-version-kind'], [{ group: 'example.com', version: 'v1', kind: 'Widget' }]);
    assert.ok(example.components.schemas['com.example.v1.WidgetList']);
    assert.ok(example.components.schemas['io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta']);
    assert.ok(example.paths['/apis/example.com/v1/namespaces/{namespace}/widgets/{name}/scale']);
  });

  it('is stable: same input, same bytes, same hash', () => {
    const again = serializeDocument(buildOpenApiV3Document({ group: '', version: 'v1' }, resources, components));
    const first = serializeDocument(core);
    assert.equal(again.body, first.body);
    assert.equal(again.hash, first.hash);
    assert.match(first.hash, /^[0-9A-F]{128}$/);
    assert.equal(documentHash(first.body), first.hash);
  });
});

describe('crdComponents', () => {
  it('names the kind from the reversed group and fills in the root', () => {
    assert.equal(crdComponentName('stable.example.com', 'v1beta1', 'CronTab'), 'com.example.stable.v1beta1.CronTab');
    const made = crdComponents({ group: 'example.com', version: 'v1', kind: 'Widget', schema: widgetSchema });
    assert.deepEqual(Object.keys(made).sort(), ['com.example.v1.Widget', 'com.example.v1.WidgetList']);
    const widget = made['com.example.v1.Widget']!;
    assert.equal(widget.type, 'object');
    assert.equal(widget.properties!['apiVersion']!.type, 'string');
    assert.equal(widget.properties!['kind']!.type, 'string');
    assert.equal(widget.properties!['metadata']!.$ref, '#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta');
    assert.equal(widget.properties!['spec']!.properties!['size']!.type, 'integer');
    assert.deepEqual(widget['x-kubernetes-group-version-kind'], [{ group: 'example.com', version: 'v1', kind: 'Widget' }]);
    const list = made['com.example.v1.WidgetList']!;
    assert.equal(list.properties!['items']!.items!.$ref, '#/components/schemas/com.example.v1.Widget');
    assert.deepEqual(list['x-kubernetes-group-version-kind'], [{ group: 'example.com', version: 'v1', kind: 'WidgetList' }]);
    assert.equal(widgetSchema.properties!['apiVersion'], undefined, 'the CRD\'s schema is not modified');
  });

  it('honours a custom list kind and a missing schema', () => {
    const made = crdComponents({ group: 'example.com', version: 'v2', kind: 'Gadget', listKind: 'GadgetCollection' });
    assert.ok(made['com.example.v2.GadgetCollection']);
    assert.equal(made['com.example.v2.Gadget']!['x-kubernetes-preserve-unknown-fields'], true);
  });
});

describe('buildOpenApiV2', () => {
  const doc = buildOpenApiV2(resources, components);

  it('is a Swagger 2.0 document of every resource with #/definitions references', () => {
    assert.equal(doc.swagger, '2.0');
    assert.ok(doc.paths['/api/v1/namespaces/{namespace}/pods/{name}']);
    assert.ok(doc.paths['/apis/apps/v1/namespaces/{namespace}/deployments/{name}']);
    assert.ok(doc.paths['/apis/example.com/v1/namespaces/{namespace}/widgets/{name}']);
    assertSelfContained(doc, doc.definitions, '#/definitions/');
    const patch = doc.paths['/apis/apps/v1/namespaces/{namespace}/deployments/{name}']!['patch'] as Operation & { consumes: string[] };
    assert.ok(patch.consumes.includes('application/strategic-merge-patch+json'));
    assert.deepEqual(patch['x-kubernetes-group-version-kind'], { group: 'apps', version: 'v1', kind: 'Deployment' });
    assert.ok(patch.parameters!.some((p) => p.name === 'body' && p.in === 'body'));
    assert.ok(patch.parameters!.some((p) => p.name === 'fieldValidation' && p.in === 'query'));
  });

  it('drops what v2 cannot say, but keeps properties that happen to have those names', () => {
    const quantity = doc.definitions['io.k8s.apimachinery.pkg.api.resource.Quantity'] as Record<string, unknown>;
    assert.equal(quantity['oneOf'], undefined);
    const port = ((doc.definitions['com.example.v1.Widget'] as JSONSchemaProps).properties!['spec']!.properties!['port']!) as Record<string, unknown>;
    assert.equal(port['anyOf'], undefined);
    assert.equal(port['x-kubernetes-int-or-string'], true);
    const props = (doc.definitions['io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSONSchemaProps'] as JSONSchemaProps).properties!;
    assert.ok(props['oneOf'] && props['nullable'] && props['not'], 'JSONSchemaProps keeps its oneOf, nullable and not properties');
    assert.equal(props['not']!.$ref, '#/definitions/io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSONSchemaProps');
  });
});
