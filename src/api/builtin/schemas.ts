/**
 * OpenAPI v3 component schemas of the built-in kinds, generated at run time from
 * @kubernetes/client-node's model classes: each class's `attributeTypeMap` becomes an object
 * schema named as Kubernetes names it (`io.k8s.api.core.v1.PodSpec`), references between
 * models become `$ref: '#/components/schemas/<name>'` (so the recursive JSONSchemaProps is
 * finite), and Kubernetes' list, map and patch tags, required fields, kind identities
 * (`x-kubernetes-group-version-kind`) and short descriptions are laid over the result. These
 * schemas drive strategic merge patch, server-side apply, unknown-field detection and the
 * documents served at `/openapi/v2` and `/openapi/v3`.
 */
import type { JSONSchemaProps, SchemaResolver } from '../schema.ts';
import { clientModels } from './client-models.ts';
import { commonFieldDescriptions, fieldDescriptions } from './descriptions.ts';
import { builtinKinds, type BuiltinKind } from './kinds.ts';
import { listComponentName, listKindSchema } from './list-kind.ts';
import { definitionNameOf, pkg } from './model-names.ts';
import { atomicStructs, fieldTags, requiredFields, type FieldTags, type PackageAlias } from './patch-metadata.ts';
import { componentRef, componentsPrefix, names, propertyOverrides, specialComponents } from './special-types.ts';
import { parseTypeExpr, type ModelClass, type TypeExpr } from './type-expr.ts';

/** Kinds that are request or response bodies only, with no stored collection and so no List kind. */
const unlisted = new Set(['Status', 'DeleteOptions', 'Binding', 'Eviction', 'Scale']);

const aliasOfPackage = new Map<string, PackageAlias>(Object.entries(pkg).map(([alias, p]) => [p, alias as PackageAlias]));

function splitName(definition: string): { alias?: PackageAlias; type: string } {
  const dot = definition.lastIndexOf('.');
  return { alias: aliasOfPackage.get(definition.slice(0, dot)), type: definition.slice(dot + 1) };
}

function scalarSchema(t: TypeExpr, format: string): JSONSchemaProps {
  switch (t.kind) {
    case 'primitive':
      if (t.name === 'string') return format === 'byte' ? { type: 'string', format: 'byte' } : { type: 'string' };
      if (t.name === 'boolean') return { type: 'boolean' };
      if (t.name === 'number') {
        if (format === 'int32' || format === 'int64') return { type: 'integer', format };
        return format ? { type: 'number', format } : { type: 'number' };
      }
      // `any` and `object`: free-form JSON (overrides give the Kubernetes name where there is one).
      return { 'x-kubernetes-preserve-unknown-fields': true };
    case 'special':
      if (t.name === 'Date') return componentRef(names.time);
      if (t.name === 'V1MicroTime') return componentRef(names.microTime);
      return componentRef(names.intOrString);
    case 'array':
      return { type: 'array', items: scalarSchema(t.of, format) };
    case 'map':
      return { type: 'object', additionalProperties: scalarSchema(t.of, format) };
    case 'model':
      return componentRef(definitionNameOf(t.name));
  }
}

function tagExtensions(tags: FieldTags): JSONSchemaProps {
  const ext: JSONSchemaProps = {};
  if (tags.list) ext['x-kubernetes-list-type'] = tags.list;
  if (tags.keys) ext['x-kubernetes-list-map-keys'] = [...tags.keys];
  if (tags.map) ext['x-kubernetes-map-type'] = tags.map;
  if (tags.strategy) ext['x-kubernetes-patch-strategy'] = tags.strategy;
  if (tags.mergeKey) ext['x-kubernetes-patch-merge-key'] = tags.mergeKey;
  return ext;
}

function modelSchema(definition: string, cls: ModelClass, kind: BuiltinKind | undefined): JSONSchemaProps {
  const { alias, type } = splitName(definition);
  const tags = (alias && fieldTags[alias]) || {};
  const descriptions = (alias && fieldDescriptions[alias]) || {};
  const overrides = propertyOverrides[definition] ?? {};
  const properties: Record<string, JSONSchemaProps> = {};
  for (const a of cls.attributeTypeMap) {
    const field = a.baseName;
    let s: JSONSchemaProps = { ...(overrides[field] ?? scalarSchema(parseTypeExpr(a.type), a.format)) };
    const t = tags[`${type}.${field}`];
    if (t) s = { ...s, ...tagExtensions(t) };
    const description = descriptions[`${type}.${field}`] ?? (kind ? commonFieldDescriptions[field] : undefined);
    if (description) s.description = description;
    properties[field] = s;
  }
  const schema: JSONSchemaProps = { type: 'object', properties };
  if (kind) schema.description = kind.description;
  const required = alias ? requiredFields[alias]?.[type] : undefined;
  if (required?.length) schema.required = required.filter((f) => f in properties);
  if (alias && atomicStructs[alias]?.includes(type)) schema['x-kubernetes-map-type'] = 'atomic';
  return schema;
}

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}

function buildComponents(): Record<string, JSONSchemaProps> {
  const kindByModel = new Map(builtinKinds.map((k) => [k.model, k]));
  const components: Record<string, JSONSchemaProps> = {};
  for (const [model, cls] of clientModels) {
    const name = definitionNameOf(model);
    if (components[name]) throw new Error(`two client-node models map to ${name}`);
    components[name] = modelSchema(name, cls, kindByModel.get(model));
  }
  Object.assign(components, structuredClone(specialComponents));

  // Every group-version a built-in is served at also accepts DeleteOptions, as in Kubernetes.
  const groupVersions = [...new Map(builtinKinds.map((k) => [`${k.group}/${k.version}`, k])).values()];
  for (const k of builtinKinds) {
    const name = definitionNameOf(k.model);
    const gvks = k.kind === 'DeleteOptions'
      ? groupVersions.map((g) => ({ group: g.group, version: g.version, kind: 'DeleteOptions' }))
      : [{ group: k.group, version: k.version, kind: k.kind }];
    components[name]!['x-kubernetes-group-version-kind'] = gvks;
    if (!unlisted.has(k.kind)) {
      components[listComponentName(name)] = listKindSchema({ itemComponent: name, group: k.group, version: k.version, kind: k.kind });
    }
  }
  for (const [component, fields] of Object.entries(fieldDefaults)) {
    for (const [field, value] of Object.entries(fields)) {
      const prop = components[component]?.properties?.[field];
      if (prop) prop.default = value;
    }
  }
  return deepFreeze(components);
}

/**
 * Defaults published in the schema, as Kubernetes publishes them: server-side apply needs a
 * list-map key's default (a port applied without `protocol` is the TCP port).
 */
const fieldDefaults: Record<string, Record<string, unknown>> = {
  'io.k8s.api.core.v1.ContainerPort': { protocol: 'TCP' },
  'io.k8s.api.core.v1.ServicePort': { protocol: 'TCP' },
  'io.k8s.api.core.v1.EndpointPort': { protocol: 'TCP' },
};

let memo: Record<string, JSONSchemaProps> | undefined;

/**
 * Every built-in component schema by definition name, built on first use and shared after
 * that: the returned maps and schemas are frozen.
 */
export function builtinComponents(): Record<string, JSONSchemaProps> {
  memo ??= buildComponents();
  return memo;
}

let byGvk: Map<string, string> | undefined;

/** The component schema of a built-in kind, or undefined when Shipyard has none for it. */
export function builtinSchemaFor(group: string, version: string, kind: string): { name: string; schema: JSONSchemaProps } | undefined {
  const components = builtinComponents();
  if (!byGvk) {
    byGvk = new Map();
    for (const [name, schema] of Object.entries(components)) {
      for (const g of schema['x-kubernetes-group-version-kind'] ?? []) {
        const key = `${g.group}/${g.version}/${g.kind}`;
        if (!byGvk.has(key)) byGvk.set(key, name);
      }
    }
  }
  const name = byGvk.get(`${group}/${version}/${kind}`);
  return name ? { name, schema: components[name]! } : undefined;
}

/** Follows `#/components/schemas/<name>` references within the built-in components. */
export const builtinResolver: SchemaResolver = (schema) => {
  let s = schema;
  for (let hops = 0; s.$ref !== undefined; hops++) {
    if (hops > 8 || !s.$ref.startsWith(componentsPrefix)) throw new Error(`cannot resolve schema reference ${s.$ref}`);
    const target = builtinComponents()[s.$ref.slice(componentsPrefix.length)];
    if (!target) throw new Error(`unknown schema reference ${s.$ref}`);
    s = target;
  }
  return s;
};
