/**
 * Checks of `x-kubernetes-embedded-resource` values (a Pod template, a RawExtension): each
 * must carry `apiVersion` and `kind`, and its `metadata` must be valid ObjectMeta, as
 * kube-apiserver checks embedded objects. The resource root itself is not checked here: its
 * TypeMeta and ObjectMeta are the generic store's.
 */
import { fieldError, type FieldError } from '../../api/field-errors.ts';
import { isDns1035Label, isDns1123Label, isQualifiedName, isValidLabelValue, isValidPathSegmentName } from '../../api/names.ts';
import type { JSONSchemaProps } from '../../api/schema.ts';
import { child, index, key } from './field-path.ts';

type Json = unknown;
type JsonObject = Record<string, Json>;

function isObject(x: Json): x is JsonObject {
  return typeof x === 'object' && x !== null && !Array.isArray(x);
}

const totalAnnotationSizeLimit = 256 * 1024;

function validateStringMap(path: string, value: Json, checkValue: ((v: string) => string[]) | undefined, errs: FieldError[]): void {
  if (!isObject(value)) {
    errs.push(fieldError.invalid(path, value, 'must be a map of strings'));
    return;
  }
  let size = 0;
  for (const [k, v] of Object.entries(value)) {
    for (const msg of isQualifiedName(k)) errs.push(fieldError.invalid(path, k, msg));
    if (typeof v !== 'string') {
      errs.push(fieldError.invalid(key(path, k), v, 'must be a string'));
      continue;
    }
    size += k.length + v.length;
    if (checkValue) for (const msg of checkValue(v)) errs.push(fieldError.invalid(key(path, k), v, msg));
  }
  if (!checkValue && size > totalAnnotationSizeLimit) errs.push(fieldError.tooLong(path, totalAnnotationSizeLimit));
}

/** ObjectMeta of an embedded object: name rules (path segment), namespace, labels and annotations. */
export function validateEmbeddedObjectMeta(path: string, meta: Json): FieldError[] {
  if (!isObject(meta)) return [fieldError.invalid(path, meta, 'must be an object')];
  const errs: FieldError[] = [];
  for (const f of ['name', 'generateName', 'namespace'] as const) {
    const v = meta[f];
    if (v === undefined || v === null) continue;
    if (typeof v !== 'string') {
      errs.push(fieldError.invalid(child(path, f), v, 'must be a string'));
      continue;
    }
    if (v === '') continue;
    const msgs = f === 'namespace' ? isDns1123Label(v) : isValidPathSegmentName(v);
    for (const msg of msgs) errs.push(fieldError.invalid(child(path, f), v, msg));
  }
  if (meta.labels !== undefined && meta.labels !== null) validateStringMap(child(path, 'labels'), meta.labels, isValidLabelValue, errs);
  if (meta.annotations !== undefined && meta.annotations !== null) validateStringMap(child(path, 'annotations'), meta.annotations, undefined, errs);
  return errs;
}

/** The TypeMeta and ObjectMeta checks of one embedded object at `path`. */
export function validateEmbeddedResource(path: string, x: JsonObject): FieldError[] {
  const errs: FieldError[] = [];
  if (!Object.hasOwn(x, 'apiVersion')) errs.push(fieldError.required(child(path, 'apiVersion')));
  if (!Object.hasOwn(x, 'kind')) errs.push(fieldError.required(child(path, 'kind')));
  for (const [k, v] of Object.entries(x)) {
    if (k === 'apiVersion') {
      const p = child(path, k);
      if (typeof v !== 'string') errs.push(fieldError.invalid(p, v, 'must be a string'));
      else if (v === '') errs.push(fieldError.invalid(p, v, 'must not be empty'));
      else if (v.split('/').length > 2) errs.push(fieldError.invalid(p, v, `unexpected GroupVersion string: ${v}`));
    } else if (k === 'kind') {
      const p = child(path, k);
      if (typeof v !== 'string') errs.push(fieldError.invalid(p, v, 'must be a string'));
      else if (v === '') errs.push(fieldError.invalid(p, v, 'must not be empty'));
      else {
        const msgs = isDns1035Label(v.toLowerCase());
        if (msgs.length > 0) errs.push(fieldError.invalid(p, v, `may have mixed case, but should otherwise match: ${msgs.join(',')}`));
      }
    } else if (k === 'metadata') {
      errs.push(...validateEmbeddedObjectMeta(child(path, k), v));
    }
  }
  return errs;
}

function walk(path: string, x: Json, s: JSONSchemaProps | undefined, errs: FieldError[]): void {
  if (!s) return;
  if (Array.isArray(x)) {
    x.forEach((item, i) => walk(index(path, i), item, s.items, errs));
    return;
  }
  if (!isObject(x)) return;
  if (s['x-kubernetes-embedded-resource']) errs.push(...validateEmbeddedResource(path, x));
  const ap = typeof s.additionalProperties === 'object' ? s.additionalProperties : undefined;
  for (const [k, v] of Object.entries(x)) {
    const prop = s.properties && Object.hasOwn(s.properties, k) ? s.properties[k] : undefined;
    if (prop) walk(child(path, k), v, prop, errs);
    else if (ap) walk(key(path, k), v, ap, errs);
  }
}

/**
 * Every embedded resource in `value`. `isResourceRoot` makes `value` itself count as one
 * (kube-apiserver does so for a default on an embedded node); a custom resource's own root
 * is validated with `false`, its TypeMeta and ObjectMeta being the generic store's.
 */
export function validateEmbeddedResources(value: Json, schema: JSONSchemaProps, basePath = '', isResourceRoot = false): FieldError[] {
  const errs: FieldError[] = [];
  walk(basePath, value, isResourceRoot ? { ...schema, 'x-kubernetes-embedded-resource': true } : schema, errs);
  return errs;
}
