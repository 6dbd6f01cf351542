import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { JSONSchemaProps } from '../schema.ts';
import { definitionNameOf } from './model-names.ts';
import { builtinComponents, builtinResolver, builtinSchemaFor } from './schemas.ts';

const resolve = builtinResolver;
const buildStart = performance.now();
const components = builtinComponents();
const buildMs = performance.now() - buildStart;

/** The schema at a dotted path below a kind, following `$ref`s; `[]` steps into list items. */
function at(root: JSONSchemaProps, path: string): JSONSchemaProps {
  let s = root;
  for (const step of path.split('.')) {
    s = resolve(s);
    if (step === '[]') s = s.items!;
    else s = s.properties?.[step] ?? assert.fail(`no property ${step} on the way to ${path}`);
    assert.ok(s, `path ${path} ends early at ${step}`);
  }
  return s;
}

describe('built-in component schemas', () => {
  it('builds once', () => {
    // The first call above built the map (the model classes were loaded at import). How long
    // that took is reported, not asserted: a loaded machine would fail any bound.
    console.log(`built ${Object.keys(components).length} built-in component schemas in ${buildMs.toFixed(1)} ms`);
    assert.equal(builtinComponents(), components, 'memoized');
  });

  it('names schemas as Kubernetes does', () => {
    assert.equal(definitionNameOf('V1Pod'), 'io.k8s.api.core.v1.Pod');
    assert.equal(definitionNameOf('V1ObjectMeta'), 'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta');
    assert.equal(definitionNameOf('V1LabelSelector'), 'io.k8s.apimachinery.pkg.apis.meta.v1.LabelSelector');
    assert.equal(definitionNameOf('CoreV1Event'), 'io.k8s.api.core.v1.Event');
    assert.equal(definitionNameOf('EventsV1Event'), 'io.k8s.api.events.v1.Event');
    assert.equal(definitionNameOf('V1JSONSchemaProps'), 'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSONSchemaProps');
    assert.equal(definitionNameOf('ApiextensionsV1ServiceReference'), 'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.ServiceReference');
    assert.equal(definitionNameOf('V1Scale'), 'io.k8s.api.autoscaling.v1.Scale');
    assert.equal(definitionNameOf('V1Lease'), 'io.k8s.api.coordination.v1.Lease');
    assert.equal(definitionNameOf('V1Deployment'), 'io.k8s.api.apps.v1.Deployment');
  });

  it('gives Pod containers a merge key and list-map semantics', () => {
    const pod = builtinSchemaFor('', 'v1', 'Pod')!;
    assert.equal(pod.name, 'io.k8s.api.core.v1.Pod');
    const containers = at(pod.schema, 'spec.containers');
    assert.equal(containers.type, 'array');
    assert.equal(containers['x-kubernetes-patch-merge-key'], 'name');
    assert.equal(containers['x-kubernetes-patch-strategy'], 'merge');
    assert.equal(containers['x-kubernetes-list-type'], 'map');
    assert.deepEqual(containers['x-kubernetes-list-map-keys'], ['name']);
    assert.deepEqual(resolve(containers.items!).required, ['name']);
    const volumes = at(pod.schema, 'spec.volumes');
    assert.equal(volumes['x-kubernetes-patch-strategy'], 'merge,retainKeys');
    const tolerations = at(pod.schema, 'spec.tolerations');
    assert.equal(tolerations['x-kubernetes-list-type'], 'atomic');
    assert.equal(tolerations['x-kubernetes-patch-merge-key'], undefined);
    assert.equal(at(pod.schema, 'spec.containers.[].env')['x-kubernetes-patch-merge-key'], 'name');
    assert.equal(at(pod.schema, 'spec.containers.[].ports')['x-kubernetes-patch-merge-key'], 'containerPort');
    assert.equal(at(pod.schema, 'spec.containers.[].volumeMounts')['x-kubernetes-patch-merge-key'], 'mountPath');
    assert.equal(at(pod.schema, 'status.conditions')['x-kubernetes-patch-merge-key'], 'type');
    assert.equal(at(pod.schema, 'spec.ephemeralContainers.[].env')['x-kubernetes-patch-merge-key'], 'name');
  });

  it('reaches spec.template.spec.containers from Deployment through references', () => {
    const deployment = builtinSchemaFor('apps', 'v1', 'Deployment')!;
    assert.deepEqual(deployment.schema['x-kubernetes-group-version-kind'], [{ group: 'apps', version: 'v1', kind: 'Deployment' }]);
    assert.equal(at(deployment.schema, 'spec.template').$ref, '#/components/schemas/io.k8s.api.core.v1.PodTemplateSpec');
    const containers = at(deployment.schema, 'spec.template.spec.containers');
    assert.equal(containers['x-kubernetes-patch-merge-key'], 'name');
    assert.equal(resolve(containers.items!).properties?.['image']?.type, 'string');
    assert.equal(at(deployment.schema, 'spec.strategy')['x-kubernetes-patch-strategy'], 'retainKeys');
    assert.equal(at(deployment.schema, 'status.conditions')['x-kubernetes-patch-merge-key'], 'type');
    assert.equal(at(deployment.schema, 'spec.replicas').type, 'integer');
  });

  it('describes ObjectMeta lists and owner references as Kubernetes tags them', () => {
    const meta = components['io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta']!;
    assert.equal(meta.properties!['finalizers']!['x-kubernetes-patch-strategy'], 'merge');
    assert.equal(meta.properties!['finalizers']!['x-kubernetes-list-type'], 'set');
    assert.equal(meta.properties!['ownerReferences']!['x-kubernetes-patch-merge-key'], 'uid');
    assert.equal(meta.properties!['creationTimestamp']!.$ref, '#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.Time');
    const owner = components['io.k8s.apimachinery.pkg.apis.meta.v1.OwnerReference']!;
    assert.deepEqual(owner.required, ['apiVersion', 'kind', 'name', 'uid']);
    assert.equal(owner['x-kubernetes-map-type'], 'atomic');
    assert.equal(components['io.k8s.api.core.v1.NodeStatus']!.properties!['addresses']!['x-kubernetes-patch-merge-key'], 'type');
    assert.equal(components['io.k8s.api.core.v1.ServiceSpec']!.properties!['ports']!['x-kubernetes-patch-merge-key'], 'port');
  });

  it('shapes the scalar types: IntOrString, Quantity, Time, MicroTime', () => {
    const intOrString = components['io.k8s.apimachinery.pkg.util.intstr.IntOrString']!;
    assert.equal(intOrString.type, 'string');
    assert.equal(intOrString.format, 'int-or-string');
    assert.equal(intOrString['x-kubernetes-int-or-string'], true);
    assert.equal(components['io.k8s.apimachinery.pkg.apis.meta.v1.Time']!.format, 'date-time');
    assert.ok(components['io.k8s.apimachinery.pkg.apis.meta.v1.MicroTime']);
    const port = components['io.k8s.api.core.v1.ServicePort']!.properties!['targetPort']!;
    assert.equal(port.$ref, '#/components/schemas/io.k8s.apimachinery.pkg.util.intstr.IntOrString');
    const limits = components['io.k8s.api.core.v1.ResourceRequirements']!.properties!['limits']!;
    assert.equal((limits.additionalProperties as JSONSchemaProps).$ref, '#/components/schemas/io.k8s.apimachinery.pkg.api.resource.Quantity');
    assert.equal(components['io.k8s.api.coordination.v1.LeaseSpec']!.properties!['renewTime']!.$ref, '#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.MicroTime');
    assert.deepEqual(components['io.k8s.api.core.v1.Secret']!.properties!['data']!.additionalProperties, { type: 'string', format: 'byte' });
  });

  it('keeps wire names and refers to JSONSchemaProps recursively', () => {
    const props = components['io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSONSchemaProps']!.properties!;
    const self = '#/components/schemas/io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSONSchemaProps';
    assert.equal((props['properties']!.additionalProperties as JSONSchemaProps).$ref, self);
    assert.equal(props['allOf']!.items!.$ref, self);
    assert.equal(props['not']!.$ref, self);
    for (const wire of ['$ref', '$schema', 'default', 'x-kubernetes-preserve-unknown-fields', 'x-kubernetes-list-map-keys']) assert.ok(props[wire], wire);
    assert.equal(props['x-kubernetes-validations']!['x-kubernetes-patch-merge-key'], 'rule');
    const crd = builtinSchemaFor('apiextensions.k8s.io', 'v1', 'CustomResourceDefinition')!;
    assert.equal(resolve(at(crd.schema, 'spec.versions.[].schema.openAPIV3Schema')), components['io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSONSchemaProps']);
    assert.ok(components['io.k8s.api.autoscaling.v1.Scale']);
    assert.equal(components['io.k8s.apimachinery.pkg.apis.meta.v1.ListMeta']!.properties!['continue']!.type, 'string');
  });

  it('finds every kind by group, version and kind, Lists included', () => {
    const kinds: Array<[string, string]> = [
      ['', 'Namespace'], ['', 'Node'], ['', 'Pod'], ['', 'ConfigMap'], ['', 'Secret'], ['', 'Service'], ['', 'Endpoints'],
      ['', 'Event'], ['', 'ServiceAccount'], ['', 'Binding'], ['', 'Status'], ['', 'DeleteOptions'], ['apps', 'Deployment'],
      ['apps', 'ReplicaSet'], ['apps', 'DaemonSet'], ['policy', 'PodDisruptionBudget'], ['policy', 'Eviction'],
      ['coordination.k8s.io', 'Lease'], ['events.k8s.io', 'Event'], ['apiextensions.k8s.io', 'CustomResourceDefinition'],
      ['autoscaling', 'Scale'], ['', 'PodList'], ['apps', 'DeploymentList'],
    ];
    for (const [group, kind] of kinds) {
      const found = builtinSchemaFor(group, 'v1', kind);
      assert.ok(found, `${group}/v1 ${kind}`);
      assert.ok(found.schema.description, `${kind} has a description`);
    }
    assert.equal(builtinSchemaFor('', 'v1', 'Event')!.name, 'io.k8s.api.core.v1.Event');
    assert.equal(builtinSchemaFor('events.k8s.io', 'v1', 'Event')!.name, 'io.k8s.api.events.v1.Event');
    assert.equal(builtinSchemaFor('apps', 'v1', 'DeleteOptions')!.name, 'io.k8s.apimachinery.pkg.apis.meta.v1.DeleteOptions');
    assert.equal(builtinSchemaFor('apps', 'v1', 'StatefulSet'), undefined);
  });

  it('has no dangling references, and its schemas are frozen', () => {
    for (const [name, schema] of Object.entries(components)) {
      JSON.stringify(schema, (key, value: unknown) => {
        if (key === '$ref' && typeof value === 'string') assert.ok(resolve({ $ref: value }), `${name} → ${value}`);
        return value;
      });
    }
    assert.ok(Object.isFrozen(components['io.k8s.api.core.v1.PodSpec']!.properties!['containers']));
    assert.throws(() => resolve({ $ref: '#/components/schemas/io.k8s.api.core.v1.Nothing' }), /unknown schema reference/);
  });
});
