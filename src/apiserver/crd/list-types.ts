/**
 * The uniqueness that `x-kubernetes-list-type` promises: a `set` holds no item twice, a
 * `map` holds no two items with the same `x-kubernetes-list-map-keys` values. Duplicates are
 * reported at the second appearance of each value, as kube-apiserver reports them.
 */
import { fieldError, type FieldError } from '../../api/field-errors.ts';
import type { JSONSchemaProps } from '../../api/schema.ts';
import { child, index, key } from './field-path.ts';

type Json = unknown;
type JsonObject = Record<string, Json>;

function isObject(x: Json): x is JsonObject {
  return typeof x === 'object' && x !== null && !Array.isArray(x);
}

/** JSON with object keys sorted, so equal compounds compare equal (Go's json.Marshal sorts map keys). */
function canonical(x: Json): string {
  if (Array.isArray(x)) return `[${x.map(canonical).join(',')}]`;
  if (isObject(x)) return `{${Object.keys(x).sort().map((k) => `${JSON.stringify(k)}:${canonical(x[k])}`).join(',')}}`;
  return JSON.stringify(x) ?? 'null';
}

/** A comparison key: scalars by type and value, compounds by canonical JSON, `undefined` for "key not set". */
function identity(x: Json): string {
  if (x === undefined) return 'u';
  if (x === null) return 'null';
  if (typeof x === 'object') return `j:${canonical(x)}`;
  return `${typeof x}:${String(x)}`;
}

/** Indexes of the second appearance of every value that appears more than once. */
export function duplicateIndexes(values: readonly Json[]): number[] {
  const seen = new Map<string, number>();
  const out: number[] = [];
  values.forEach((v, i) => {
    const id = identity(v);
    const times = seen.get(id) ?? 0;
    if (times === 1) out.push(i);
    seen.set(id, times + 1);
  });
  return out;
}

function validateMapList(path: string, s: JSONSchemaProps, list: Json[]): FieldError[] {
  for (let i = 0; i < list.length; i++) {
    const x = list[i];
    if (x !== null && !isObject(x)) return [fieldError.invalid(index(path, i), x, 'must be an object for an array of list-type map')];
  }
  if (list.length <= 1) return [];
  const keyFields = s['x-kubernetes-list-map-keys'] ?? [];
  if (keyFields.length === 1) {
    const keyField = keyFields[0]!;
    const keys = list.map((x) => (isObject(x) && Object.hasOwn(x, keyField) ? x[keyField] : undefined));
    return duplicateIndexes(keys).map((i) => fieldError.duplicate(index(path, i), keys[i] === undefined ? {} : { [keyField]: keys[i] }));
  }
  const keys = list.map((x) => {
    const entry: JsonObject = {};
    if (isObject(x)) for (const f of keyFields) if (Object.hasOwn(x, f)) entry[f] = x[f];
    return entry;
  });
  return duplicateIndexes(keys).map((i) => fieldError.duplicate(index(path, i), keys[i]));
}

function validateValue(path: string, s: JSONSchemaProps | undefined, x: Json, errs: FieldError[]): void {
  if (!s) return;
  if (Array.isArray(x)) {
    const listType = s['x-kubernetes-list-type'];
    if (listType === 'set') for (const i of duplicateIndexes(x)) errs.push(fieldError.duplicate(index(path, i), x[i]));
    else if (listType === 'map') errs.push(...validateMapList(path, s, x));
    if (s.items) x.forEach((item, i) => validateValue(index(path, i), s.items, item, errs));
    return;
  }
  if (!isObject(x)) return;
  const ap = typeof s.additionalProperties === 'object' ? s.additionalProperties : undefined;
  for (const [k, v] of Object.entries(x)) {
    const prop = s.properties && Object.hasOwn(s.properties, k) ? s.properties[k] : undefined;
    // Kubernetes names map entries `path[key]` here (field.Path.Key), unlike the OpenAPI validator's `path.key`.
    if (prop) validateValue(child(path, k), prop, v, errs);
    else if (ap) validateValue(key(path, k), ap, v, errs);
  }
}

/** Duplicate items of `set` lists and duplicate keys of `map` lists anywhere in `value`. */
export function validateListTypes(value: Json, schema: JSONSchemaProps, basePath = ''): FieldError[] {
  const errs: FieldError[] = [];
  validateValue(basePath, schema, value, errs);
  return errs;
}
