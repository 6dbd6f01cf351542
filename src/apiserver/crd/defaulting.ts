/**
 * Schema defaulting of custom resources, as kube-apiserver applies it when it decodes a
 * request body and when it reads from storage: a property that is missing, or `null` where
 * the schema does not allow null, gets a deep copy of its schema's `default`, recursively
 * through properties, `additionalProperties` values and array items. Also the step before it,
 * the removal of `null`s the schema neither allows nor can default.
 */
import type { JSONSchemaProps } from '../../api/schema.ts';

type Json = unknown;
type JsonObject = Record<string, Json>;

function isObject(x: Json): x is JsonObject {
  return typeof x === 'object' && x !== null && !Array.isArray(x);
}

function propertySchema(s: JSONSchemaProps | undefined, k: string): JSONSchemaProps | undefined {
  if (!s) return undefined;
  if (s.properties && Object.hasOwn(s.properties, k)) return s.properties[k];
  return typeof s.additionalProperties === 'object' ? s.additionalProperties : undefined;
}

/** A null the schema does not allow (it may still have a default). */
function isNonNullableNull(x: Json, s: JSONSchemaProps | undefined): s is JSONSchemaProps {
  return x === null && s !== undefined && !s.nullable;
}

function copy<T>(value: T): T {
  return structuredClone(value);
}

/**
 * Fills in defaults in place. `obj` is any JSON value matching `schema` (a whole custom
 * resource, or a value inside one); values already present are never replaced.
 */
export function applyDefaults(obj: Json, schema: JSONSchemaProps | undefined): void {
  if (!schema) return;
  if (Array.isArray(obj)) {
    const items = schema.items;
    if (!items) return;
    for (let i = 0; i < obj.length; i++) {
      if (isNonNullableNull(obj[i], items) && items.default !== undefined) obj[i] = copy(items.default);
      applyDefaults(obj[i], items);
    }
    return;
  }
  if (!isObject(obj)) return;
  if (schema.properties) {
    for (const [k, prop] of Object.entries(schema.properties)) {
      if (prop.default === undefined) continue;
      if (!Object.hasOwn(obj, k) || isNonNullableNull(obj[k], prop)) obj[k] = copy(prop.default);
    }
  }
  const ap = typeof schema.additionalProperties === 'object' ? schema.additionalProperties : undefined;
  for (const k of Object.keys(obj)) {
    const prop = schema.properties && Object.hasOwn(schema.properties, k) ? schema.properties[k] : undefined;
    if (prop) applyDefaults(obj[k], prop);
    else if (ap) {
      if (isNonNullableNull(obj[k], ap) && ap.default !== undefined) obj[k] = copy(ap.default);
      applyDefaults(obj[k], ap);
    }
  }
}

/**
 * Removes, in place, object fields that are `null` where the schema is not nullable and has
 * no default (kube-apiserver does this right after pruning; nulls that have a default are left
 * for `applyDefaults`). Array items are never removed, and nulls the schema says nothing of
 * (under `x-kubernetes-preserve-unknown-fields`) are kept. Built-in schemas, which reference
 * shared definitions, are read through `resolve`; none of them is nullable, so a built-in
 * object loses its null fields as a Go struct would.
 */
export function dropNonNullableNulls(obj: Json, schema: JSONSchemaProps | undefined, resolve: (s: JSONSchemaProps) => JSONSchemaProps = (s) => s): void {
  const node = schema && resolve(schema);
  if (Array.isArray(obj)) {
    for (const item of obj) dropNonNullableNulls(item, node?.items, resolve);
    return;
  }
  if (!isObject(obj)) return;
  for (const k of Object.keys(obj)) {
    const declared = propertySchema(node, k);
    const s = declared && resolve(declared);
    if (isNonNullableNull(obj[k], s) && s.default === undefined) delete obj[k];
    else dropNonNullableNulls(obj[k], s, resolve);
  }
}
