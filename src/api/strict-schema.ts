/**
 * Checks a config document against the schema it is declared with (a `JSONSchemaProps` tree
 * built with `api/crd/schema-builder.ts`) the way a strict decoder would: a field the schema
 * does not declare is an error, not dropped; so is a value of the wrong type or outside its
 * enum or bounds. The API server's CRD validation (apiserver/crd/) prunes unknown fields
 * instead, as Kubernetes must for stored objects; an operand's config is different, since a
 * dropped field is a setting someone expected to take effect (issue 17, item 3).
 *
 * A null is taken as "unset" anywhere (Go's decoder gives the zero value), and anything below a
 * node that preserves unknown fields is the operand's own business.
 */
import type { JSONSchemaProps } from './schema.ts';

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** A field name, a list index, or a key of a map (printed `[key]`, as Kubernetes prints map keys). */
export type PathSegment = string | number | { readonly key: string };

export interface SchemaProblem {
  readonly path: readonly PathSegment[];
  /** A Kubernetes field error without its path: `unknown field`, `Invalid value: "x": must be of type integer`. */
  readonly message: string;
}

/** `a.b[0][openshift.io/Plugin].c`, as Kubernetes' field.Path prints a path. */
export function formatPath(path: readonly PathSegment[]): string {
  let out = '';
  for (const seg of path) {
    if (typeof seg === 'number') out += `[${seg}]`;
    else if (typeof seg === 'object') out += `[${seg.key}]`;
    else out += out ? `.${seg}` : seg;
  }
  return out;
}

/** The plain keys and indexes of a path, for reading the value it names. */
export function plainPath(path: readonly PathSegment[]): (string | number)[] {
  return path.map((seg) => (typeof seg === 'object' ? seg.key : seg));
}

function render(value: unknown): string {
  return JSON.stringify(value) ?? 'null';
}

function typeName(v: unknown): string {
  if (Array.isArray(v)) return 'array';
  if (v === null) return 'null';
  return typeof v === 'number' && Number.isInteger(v) ? 'integer' : typeof v;
}

function typeMatches(type: NonNullable<JSONSchemaProps['type']>, v: unknown): boolean {
  switch (type) {
    case 'object':
      return isPlainObject(v);
    case 'array':
      return Array.isArray(v);
    case 'integer':
      return typeof v === 'number' && Number.isInteger(v);
    case 'number':
      return typeof v === 'number' && Number.isFinite(v);
    default:
      return typeof v === type;
  }
}

function checkNode(value: unknown, schema: JSONSchemaProps, path: PathSegment[], out: SchemaProblem[]): void {
  if (value === null || value === undefined) return;
  if (schema['x-kubernetes-int-or-string']) {
    if (typeof value !== 'string' && !(typeof value === 'number' && Number.isInteger(value))) out.push({ path, message: `Invalid value: ${render(value)}: must be an integer or a string` });
    return;
  }
  if (schema.type && !typeMatches(schema.type, value)) {
    out.push({ path, message: `Invalid value: ${render(value)}: must be of type ${schema.type}, not ${typeName(value)}` });
    return;
  }
  if (schema.enum && !schema.enum.includes(value)) {
    out.push({ path, message: `Unsupported value: ${render(value)}: supported values: ${schema.enum.map(render).join(', ')}` });
    return;
  }
  if (typeof value === 'number') {
    if (schema.minimum !== undefined && value < schema.minimum) out.push({ path, message: `Invalid value: ${value}: must be greater than or equal to ${schema.minimum}` });
    if (schema.maximum !== undefined && value > schema.maximum) out.push({ path, message: `Invalid value: ${value}: must be less than or equal to ${schema.maximum}` });
  }
  if (typeof value === 'string') {
    if (schema.minLength !== undefined && value.length < schema.minLength) out.push({ path, message: `Invalid value: ${render(value)}: must be at least ${schema.minLength} characters long` });
    if (schema.maxLength !== undefined && value.length > schema.maxLength) out.push({ path, message: `Too long: may not be more than ${schema.maxLength} bytes` });
    if (schema.pattern !== undefined && !new RegExp(schema.pattern, 'u').test(value)) out.push({ path, message: `Invalid value: ${render(value)}: must match '${schema.pattern}'` });
  }
  if (Array.isArray(value)) {
    if (schema.minItems !== undefined && value.length < schema.minItems) out.push({ path, message: `Invalid value: ${value.length}: must have at least ${schema.minItems} items` });
    if (schema.maxItems !== undefined && value.length > schema.maxItems) out.push({ path, message: `Too many: ${value.length}: must have at most ${schema.maxItems} items` });
    if (schema.items) value.forEach((item, i) => checkNode(item, schema.items!, [...path, i], out));
    return;
  }
  if (isPlainObject(value)) checkObject(value, schema, path, out);
}

function checkObject(value: Record<string, unknown>, schema: JSONSchemaProps, path: PathSegment[], out: SchemaProblem[]): void {
  const props = schema.properties;
  const additional = typeof schema.additionalProperties === 'object' ? schema.additionalProperties : undefined;
  const preserve = schema['x-kubernetes-preserve-unknown-fields'] === true || schema.additionalProperties === true;
  for (const name of schema.required ?? []) {
    if (value[name] === undefined || value[name] === null) out.push({ path: [...path, name], message: 'Required value' });
  }
  for (const [name, v] of Object.entries(value)) {
    if (props && Object.hasOwn(props, name)) checkNode(v, props[name]!, [...path, name], out);
    else if (additional) checkNode(v, additional, [...path, { key: name }], out);
    else if (!preserve) out.push({ path: [...path, name], message: 'unknown field' });
  }
}

/** Every problem of `value` against `schema`, in document order. */
export function checkAgainstSchema(value: unknown, schema: JSONSchemaProps): SchemaProblem[] {
  const out: SchemaProblem[] = [];
  checkNode(value, schema, [], out);
  return out;
}

/**
 * A copy of `value` without its nulls (and the fields holding them), except below nodes that
 * preserve unknown fields, whose content is passed on as written: after validation a null only
 * ever meant "unset", and the reader's type says so.
 */
export function dropNulls(value: unknown, schema: JSONSchemaProps | undefined): unknown {
  if (schema?.['x-kubernetes-preserve-unknown-fields'] && !schema.properties) return structuredClone(value);
  if (Array.isArray(value)) return value.filter((v) => v !== null).map((v) => dropNulls(v, schema?.items));
  if (!isPlainObject(value)) return value;
  const additional = typeof schema?.additionalProperties === 'object' ? schema.additionalProperties : undefined;
  const out: Record<string, unknown> = {};
  for (const [name, v] of Object.entries(value)) {
    if (v === null || v === undefined) continue;
    out[name] = dropNulls(v, schema?.properties?.[name] ?? additional);
  }
  return out;
}
