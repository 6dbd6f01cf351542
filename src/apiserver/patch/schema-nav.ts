/**
 * Reading the schema that drives strategic merge patch and server-side apply. Every node is
 * passed through the resolver (served OpenAPI refers to kinds with `$ref`, or wraps the
 * reference as `allOf: [{$ref}]` beside a description or default), then the engines ask:
 * what is the schema of this property or list item, is this property declared (a "named"
 * field), how does this list merge (patch strategy and merge key for strategic merge; list
 * type and keys for apply), and is this map atomic. Where a schema leaves `metadata` opaque
 * (CRDs declare it as a bare `type: object`), ObjectMeta's own list semantics are used, as the
 * apiserver does: finalizers are a set, ownerReferences a map keyed by uid.
 */
import type { JSONSchemaProps, SchemaResolver } from '../../api/schema.ts';
import { errors } from '../errors.ts';
import { isObject } from './json-value.ts';

/** A schema node, or undefined where the schema says nothing (the value is then untyped). */
export type Schema = JSONSchemaProps | undefined;

const extensionKeys = [
  'x-kubernetes-list-type',
  'x-kubernetes-list-map-keys',
  'x-kubernetes-map-type',
  'x-kubernetes-patch-merge-key',
  'x-kubernetes-patch-strategy',
  'x-kubernetes-preserve-unknown-fields',
] as const;

function ownExtensions(node: JSONSchemaProps): Partial<JSONSchemaProps> {
  const out: Partial<JSONSchemaProps> = {};
  for (const key of extensionKeys) if (node[key] !== undefined) (out as Record<string, unknown>)[key] = node[key];
  return out;
}

const maxReferenceChain = 16;

/** Follows `$ref` until a node without one; a reference the resolver cannot follow is a server bug (500). */
function follow(node: JSONSchemaProps, resolve: SchemaResolver): JSONSchemaProps {
  let current = node;
  for (let i = 0; i < maxReferenceChain; i++) {
    let next: JSONSchemaProps;
    try {
      next = resolve(current);
    } catch (err) {
      throw errors.internal(`schema reference ${JSON.stringify(current.$ref)} cannot be resolved: ${err instanceof Error ? err.message : String(err)}`);
    }
    if (next === current || !next.$ref || next.$ref === current.$ref) return next;
    current = next;
  }
  throw errors.internal(`schema reference ${JSON.stringify(node.$ref)} does not end within ${maxReferenceChain} steps`);
}

/**
 * deref's results by resolver and node. Schemas are never modified once built and a resolver
 * always resolves a node the same way, while resolving a reference copies the node it reaches
 * (ObjectMeta, for the metadata of every built-in object): every create walks these.
 */
const resolvedNodes = new WeakMap<SchemaResolver, WeakMap<JSONSchemaProps, JSONSchemaProps>>();

/** The node with its `$ref` (and an `allOf` of references) resolved; the node's own list/map extensions win. */
export function deref(node: Schema, resolve: SchemaResolver): Schema {
  if (!node) return undefined;
  if (typeof node !== 'object') return resolveNode(node, resolve);
  let byNode = resolvedNodes.get(resolve);
  if (!byNode) resolvedNodes.set(resolve, (byNode = new WeakMap()));
  let resolved = byNode.get(node);
  if (!resolved) byNode.set(node, (resolved = resolveNode(node, resolve)));
  return resolved;
}

function resolveNode(node: JSONSchemaProps, resolve: SchemaResolver): JSONSchemaProps {
  let resolved = follow(node, resolve);
  if (resolved.allOf?.length && !resolved.properties && !resolved.items && resolved.additionalProperties === undefined) {
    let combined: JSONSchemaProps = {};
    for (const part of resolved.allOf) {
      const p = deref(part, resolve) ?? {};
      combined = { ...combined, ...p, properties: { ...combined.properties, ...p.properties } };
    }
    if (!Object.keys(combined.properties ?? {}).length) delete combined.properties;
    const { allOf: _allOf, ...rest } = resolved;
    resolved = { ...combined, ...rest };
  }
  return resolved === node ? node : { ...resolved, ...ownExtensions(node) };
}

/** The schema of property `key` of an object node (declared property, else `additionalProperties`). */
export function propertySchema(node: Schema, key: string, resolve: SchemaResolver): Schema {
  if (!node) return undefined;
  const declared = node.properties && Object.hasOwn(node.properties, key) ? node.properties[key] : undefined;
  if (declared) return deref(declared, resolve);
  return isObject(node.additionalProperties) ? deref(node.additionalProperties as JSONSchemaProps, resolve) : undefined;
}

export function itemSchema(node: Schema, resolve: SchemaResolver): Schema {
  return deref(node?.items, resolve);
}

/** Whether `key` is a declared property (a struct field), as opposed to a key of a map or an unknown field. */
export function isNamedField(node: Schema, key: string): boolean {
  return !!node?.properties && Object.hasOwn(node.properties, key);
}

export function isAtomicMap(node: Schema): boolean {
  return node?.['x-kubernetes-map-type'] === 'atomic';
}

/** How strategic merge patch treats a field: `x-kubernetes-patch-strategy` and `-merge-key`. */
export interface PatchMeta {
  readonly merge: boolean;
  readonly replace: boolean;
  readonly retainKeys: boolean;
  readonly mergeKey?: string;
}

export function patchMeta(node: Schema): PatchMeta {
  const strategies = (node?.['x-kubernetes-patch-strategy'] ?? '').split(',').map((s) => s.trim());
  return {
    merge: strategies.includes('merge'),
    replace: strategies.includes('replace'),
    retainKeys: strategies.includes('retainKeys'),
    mergeKey: node?.['x-kubernetes-patch-merge-key'] || undefined,
  };
}

/** How server-side apply treats a list: replaced whole, a set of scalars, or a map of items by key fields. */
export type ListSemantics = { readonly type: 'atomic' } | { readonly type: 'set' } | { readonly type: 'map'; readonly keys: readonly string[] };

const atomic: ListSemantics = { type: 'atomic' };
const set: ListSemantics = { type: 'set' };

function isScalarSchema(node: Schema): boolean {
  const t = node?.type;
  return t === 'string' || t === 'integer' || t === 'number' || t === 'boolean' || !!node?.['x-kubernetes-int-or-string'];
}

/**
 * `x-kubernetes-list-type` decides; without it, a patch merge key makes a map keyed by it, and a
 * merge strategy over scalars makes a set (as kube-openapi converts built-in schemas). Anything
 * else is atomic.
 */
export function listSemantics(node: Schema, resolve: SchemaResolver): ListSemantics {
  if (!node) return atomic;
  const declared = node['x-kubernetes-list-type'];
  const mergeKey = node['x-kubernetes-patch-merge-key'];
  if (declared === 'map') {
    const keys = node['x-kubernetes-list-map-keys']?.length ? node['x-kubernetes-list-map-keys'] : mergeKey ? [mergeKey] : [];
    return keys.length ? { type: 'map', keys } : atomic;
  }
  if (declared === 'set') return set;
  if (declared === 'atomic') return atomic;
  if (mergeKey) return { type: 'map', keys: [mergeKey] };
  if (patchMeta(node).merge && isScalarSchema(itemSchema(node, resolve))) return set;
  return atomic;
}

const str: JSONSchemaProps = { type: 'string' };
const stringMap: JSONSchemaProps = { type: 'object', additionalProperties: str };

/** ObjectMeta as the patch engines need it (apimachinery's field tags, in schema form). */
export const objectMetaSchema: JSONSchemaProps = {
  type: 'object',
  properties: {
    name: str,
    generateName: str,
    namespace: str,
    selfLink: str,
    uid: str,
    resourceVersion: str,
    generation: { type: 'integer' },
    creationTimestamp: str,
    deletionTimestamp: str,
    deletionGracePeriodSeconds: { type: 'integer' },
    labels: stringMap,
    annotations: stringMap,
    ownerReferences: {
      type: 'array',
      items: {
        type: 'object',
        properties: { apiVersion: str, kind: str, name: str, uid: str, controller: { type: 'boolean' }, blockOwnerDeletion: { type: 'boolean' } },
      },
      'x-kubernetes-list-type': 'map',
      'x-kubernetes-list-map-keys': ['uid'],
      'x-kubernetes-patch-strategy': 'merge',
      'x-kubernetes-patch-merge-key': 'uid',
    },
    finalizers: { type: 'array', items: str, 'x-kubernetes-list-type': 'set', 'x-kubernetes-patch-strategy': 'merge' },
    managedFields: { type: 'array', items: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true }, 'x-kubernetes-list-type': 'atomic' },
  },
};

/** The resolved root of an object's schema, with ObjectMeta filled in where `metadata` is opaque or missing. */
export function rootSchema(schema: Schema, resolve: SchemaResolver): JSONSchemaProps {
  const root = deref(schema, resolve) ?? {};
  const metadata = propertySchema(root, 'metadata', resolve);
  if (metadata?.properties && Object.keys(metadata.properties).length) return root;
  const properties = { ...(root.properties ?? {}), metadata: objectMetaSchema };
  // Without declared properties the root is untyped; declaring metadata alone must not make it stricter.
  return root.properties ? { ...root, properties } : { ...root, properties, 'x-kubernetes-preserve-unknown-fields': true };
}
