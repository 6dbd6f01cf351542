/**
 * Validation of a custom resource against its version's structural schema, as kube-apiserver
 * validates it after pruning and defaulting: the OpenAPI checks, walking the object along the
 * schema the way kube-openapi does (leaf keywords through ajv, see leaf-checks.ts; properties,
 * items, additionalProperties and allOf/anyOf/oneOf/not here), then embedded resources'
 * TypeMeta/ObjectMeta, then `x-kubernetes-list-type` uniqueness. Root `metadata` is left to the
 * generic ObjectMeta validation, except for the name/generateName restrictions a CRD may
 * declare. `x-kubernetes-validations` (CEL) rules are cel-validation.ts's, run on what passes here.
 */
import { fieldError, type FieldError } from '../../api/field-errors.ts';
import type { JSONSchemaProps } from '../../api/schema.ts';
import { validateEmbeddedResources } from './embedded.ts';
import { join, type LeafPlace, runLeafCheck } from './leaf-checks.ts';
import { validateListTypes } from './list-types.ts';

/** The field Kubernetes puts composite (allOf/anyOf/oneOf/not) failures on when it validates a whole object: a nil field.Path. */
export const compositeField = '<nil>';

interface Place extends LeafPlace {
  /** Field path of the validated document itself, where composite failures are reported. */
  readonly base: string;
}

function isObject(x: unknown): x is Record<string, unknown> {
  return typeof x === 'object' && x !== null && !Array.isArray(x);
}

function childPlace(p: Place, k: string): Place {
  return { base: p.base, field: join(p.field, k), rel: join(p.rel, k) };
}

function indexPlace(p: Place, i: number): Place {
  return { base: p.base, field: `${p.field}[${i}]`, rel: `${p.rel}[${i}]` };
}

function composite(p: Place, message: string): FieldError {
  return fieldError.invalid(p.base || compositeField, '', message);
}

/** The branch with the fewest errors: the closest to passing (kube-openapi keeps its best-matching failure). */
function closest(results: FieldError[][]): FieldError[] {
  let best: FieldError[] | undefined;
  for (const r of results) if (!best || r.length < best.length) best = r;
  return best ?? [];
}

function junctors(x: unknown, s: JSONSchemaProps, p: Place, errs: FieldError[]): void {
  const at = JSON.stringify(p.rel);
  if (Array.isArray(s.anyOf) && s.anyOf.length > 0) {
    const failures: FieldError[][] = [];
    for (const branch of s.anyOf) {
      const r = validateNode(x, branch, p);
      if (r.length === 0) {
        failures.length = 0;
        break;
      }
      failures.push(r);
    }
    if (failures.length > 0) errs.push(composite(p, `${at} must validate at least one schema (anyOf)`), ...closest(failures));
  }
  if (Array.isArray(s.oneOf) && s.oneOf.length > 0) {
    const failures: FieldError[][] = [];
    let valid = 0;
    for (const branch of s.oneOf) {
      const r = validateNode(x, branch, p);
      if (r.length === 0) valid++;
      else failures.push(r);
    }
    if (valid !== 1) {
      errs.push(composite(p, `${at} must validate one and only one schema (oneOf). ${valid === 0 ? 'Found none valid' : `Found ${valid} valid alternatives`}`));
      if (valid === 0) errs.push(...closest(failures));
    }
  }
  if (Array.isArray(s.allOf) && s.allOf.length > 0) {
    let valid = 0;
    for (const branch of s.allOf) {
      const r = validateNode(x, branch, p);
      if (r.length === 0) valid++;
      errs.push(...r);
    }
    if (valid !== s.allOf.length) errs.push(composite(p, `${at} must validate all the schemas (allOf)${valid === 0 ? '. None validated' : ''}`));
  }
  if (s.not && validateNode(x, s.not, p).length === 0) errs.push(composite(p, `${at} must not validate the schema (not)`));
}

/**
 * One node: its leaf checks, its junctors, then its children. Like kube-openapi, a null is
 * only checked for type and enum.
 */
function validateNode(x: unknown, s: JSONSchemaProps, p: Place, rootMetadata?: JSONSchemaProps | null): FieldError[] {
  const errs = runLeafCheck(s, x, p);
  if (x === null || x === undefined) return errs;
  junctors(x, s, p, errs);
  if (Array.isArray(x)) {
    const items = s.items;
    if (items && typeof items === 'object') for (let i = 0; i < x.length; i++) errs.push(...validateNode(x[i], items, indexPlace(p, i)));
  } else if (isObject(x)) {
    const ap = typeof s.additionalProperties === 'object' ? s.additionalProperties : undefined;
    for (const k of Object.keys(x)) {
      let sub = s.properties && Object.hasOwn(s.properties, k) ? s.properties[k] : ap;
      if (rootMetadata !== undefined && k === 'metadata') sub = rootMetadata ?? undefined;
      if (sub) errs.push(...validateNode(x[k], sub, childPlace(p, k)));
    }
  }
  return errs;
}

/** What of a resource's root `metadata` schema applies to objects: its name/generateName restrictions. */
const rootMetadataNodes = new WeakMap<JSONSchemaProps, JSONSchemaProps | null>();

function rootMetadataNode(schema: JSONSchemaProps): JSONSchemaProps | null {
  let node = rootMetadataNodes.get(schema);
  if (node === undefined) {
    const meta = schema.properties?.metadata;
    const properties: Record<string, JSONSchemaProps> = {};
    for (const k of ['name', 'generateName']) if (meta?.properties?.[k]) properties[k] = meta.properties[k]!;
    node = Object.keys(properties).length > 0 ? { properties } : null;
    rootMetadataNodes.set(schema, node);
  }
  return node;
}

interface SchemaFeatures {
  readonly embedded: boolean;
  readonly listTypes: boolean;
}

const features = new WeakMap<JSONSchemaProps, SchemaFeatures>();

/** Whether the schema has embedded resources or set/map lists anywhere, computed once per schema. */
function featuresOf(schema: JSONSchemaProps): SchemaFeatures {
  const hit = features.get(schema);
  if (hit) return hit;
  let embedded = false;
  let listTypes = false;
  const seen = new Set<object>();
  const visit = (s: unknown): void => {
    if (typeof s !== 'object' || s === null || seen.has(s)) return;
    seen.add(s);
    const n = s as JSONSchemaProps;
    if (n['x-kubernetes-embedded-resource']) embedded = true;
    if (n['x-kubernetes-list-type'] === 'set' || n['x-kubernetes-list-type'] === 'map') listTypes = true;
    visit(n.items);
    visit(n.additionalProperties);
    for (const p of Object.values(n.properties ?? {})) visit(p);
  };
  visit(schema);
  const result = { embedded, listTypes };
  features.set(schema, result);
  return result;
}

/** The OpenAPI checks alone (types, enums, bounds, formats, junctors, ...) of any JSON value, with field paths under `basePath`. */
export function validateOpenAPIValue(value: unknown, schema: JSONSchemaProps, basePath = ''): FieldError[] {
  return validateNode(value, schema, { base: basePath, field: basePath, rel: '' });
}

export interface ValidateValueOptions {
  /** Field path of `value` (for a default: `...properties[spec].default`); empty for a whole object. */
  readonly basePath?: string;
  /** `value` is itself an embedded resource: its apiVersion, kind and metadata are checked too. */
  readonly isResourceRoot?: boolean;
}

/** Validates any JSON value against `schema` (OpenAPI, embedded resources, list types), with field paths under `basePath`. */
export function validateValue(value: unknown, schema: JSONSchemaProps, options: ValidateValueOptions = {}): FieldError[] {
  const base = options.basePath ?? '';
  const errs = validateOpenAPIValue(value, schema, base);
  const f = featuresOf(schema);
  if (f.embedded || options.isResourceRoot) errs.push(...validateEmbeddedResources(value, schema, base, options.isResourceRoot === true));
  if (f.listTypes) errs.push(...validateListTypes(value, schema, base));
  return errs;
}

/**
 * Validates a custom resource (already pruned and defaulted) against its version's
 * `openAPIV3Schema`. Leaf checks are compiled on first use and cached on the schema nodes,
 * so later calls only run them.
 */
export function validateCustomObject(obj: Record<string, unknown>, schema: JSONSchemaProps): FieldError[] {
  const errs = validateNode(obj, schema, { base: '', field: '', rel: '' }, rootMetadataNode(schema));
  const f = featuresOf(schema);
  // The root's own TypeMeta/ObjectMeta are the generic store's: only nested embedded resources here.
  if (f.embedded) errs.push(...validateEmbeddedResources(obj, schema, ''));
  if (f.listTypes) errs.push(...validateListTypes(obj, schema));
  return errs;
}
