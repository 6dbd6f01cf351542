/**
 * The leaf checks of one schema node (type, nullable, int-or-string, enum, pattern, bounds,
 * lengths, item and property counts, required, multipleOf, formats), compiled with ajv and
 * worded as kube-openapi words their failures (`spec.replicas in body must be of type
 * integer: "string"`), typed as apiextensions-apiserver maps them (enum → NotSupported,
 * maxLength → TooLong, maxItems → TooMany, required → Required).
 *
 * Only a node's own keywords are compiled, never its subtree: compiling a whole large CRD
 * schema with ajv takes seconds and megabytes of generated code, while a node's keywords
 * compile in well under a millisecond, are shared between nodes that say the same thing
 * (most say just `type: string`), and are compiled only when an object first reaches them.
 * Walking properties, items and allOf/anyOf/oneOf/not is validate-object.ts's job.
 */
import AjvModule, { type ErrorObject, type ValidateFunction } from 'ajv';
import { fieldError, type FieldError } from '../../api/field-errors.ts';
import type { JSONSchemaProps } from '../../api/schema.ts';
import { kubeFormatName, kubeFormats } from './formats.ts';
import { compileGoRegExp } from './go-regexp.ts';

const jsonTypes = new Set(['array', 'boolean', 'integer', 'number', 'object', 'string']);

const goRegExpEngine = Object.assign((pattern: string) => compileGoRegExp(pattern), { code: 'goRegExp' });

const Ajv = AjvModule.default;
const ajv = new Ajv({
  strict: false,
  allErrors: true,
  verbose: true,
  validateSchema: false,
  addUsedSchema: false,
  messages: false,
  // kube-openapi accepts a quotient within 1e-9 of an integer, so 0.3 is a multiple of 0.1.
  multipleOfPrecision: 9,
  code: { regExp: goRegExpEngine },
});
for (const [name, validate] of Object.entries(kubeFormats)) ajv.addFormat(name, { type: 'string', validate });

/** The kube types of a node, as its messages list them (`integer,string` for int-or-string). */
export function kubeTypes(s: JSONSchemaProps): string[] {
  if (s['x-kubernetes-int-or-string']) return ['integer', 'string'];
  return s.type && jsonTypes.has(s.type) ? [s.type] : [];
}

/** The node's own keywords as an ajv schema; undefined when it has none. */
function localSchema(s: JSONSchemaProps): Record<string, unknown> | undefined {
  const out: Record<string, unknown> = {};
  const types = kubeTypes(s);
  if (types.length > 0) {
    const allowed = s.nullable ? [...types, 'null'] : types;
    out.type = allowed.length === 1 ? allowed[0] : allowed;
  }
  // Kubernetes keeps string formats only on string (or untyped, or int-or-string) nodes.
  if (s.format && (types.length !== 1 || types[0] === 'string')) {
    const name = kubeFormatName(s.format);
    if (name) out.format = name;
  }
  if (s.enum !== undefined) out.enum = s.enum;
  if (typeof s.pattern === 'string' && s.pattern !== '') out.pattern = s.pattern;
  if (typeof s.minimum === 'number') out[s.exclusiveMinimum ? 'exclusiveMinimum' : 'minimum'] = s.minimum;
  if (typeof s.maximum === 'number') out[s.exclusiveMaximum ? 'exclusiveMaximum' : 'maximum'] = s.maximum;
  for (const k of ['multipleOf', 'minLength', 'maxLength', 'minItems', 'maxItems', 'minProperties', 'maxProperties'] as const) {
    if (typeof s[k] === 'number') out[k] = s[k];
  }
  if (Array.isArray(s.required) && s.required.length > 0) out.required = s.required;
  if (s.uniqueItems) out.uniqueItems = true;
  // `additionalProperties: false` only comes without `properties` (CRD validation forbids both): no key is allowed.
  if (s.additionalProperties === false) out.additionalProperties = false;
  return Object.keys(out).length > 0 ? out : undefined;
}

/** A compiled leaf check, or the reason it could not be compiled. */
export type LeafCheck = { readonly validate: ValidateFunction } | { readonly compileError: string };

const noChecks: LeafCheck = { validate: Object.assign(() => true, { errors: null }) as unknown as ValidateFunction };
const byNode = new WeakMap<JSONSchemaProps, LeafCheck>();
/** Nodes saying the same thing share one compiled function. */
const byKeywords = new Map<string, LeafCheck>();
const maxShared = 10_000;

/** The compiled leaf check of `node`, compiled on first use. */
export function leafCheck(node: JSONSchemaProps): LeafCheck {
  const hit = byNode.get(node);
  if (hit) return hit;
  const local = localSchema(node);
  let check = noChecks;
  if (local) {
    const id = JSON.stringify(local);
    const shared = byKeywords.get(id);
    if (shared) check = shared;
    else {
      try {
        check = { validate: ajv.compile(local) };
      } catch (err) {
        check = { compileError: (err as Error).message };
      } finally {
        // ajv caches every compiled schema itself; ours are the only caches wanted.
        ajv.removeSchema(local);
      }
      if (byKeywords.size >= maxShared) byKeywords.clear();
      byKeywords.set(id, check);
    }
  }
  byNode.set(node, check);
  return check;
}

function jsonType(x: unknown): string {
  if (x === null) return 'null';
  if (Array.isArray(x)) return 'array';
  if (typeof x === 'number') return Number.isInteger(x) ? 'integer' : 'number';
  return typeof x;
}

function tooMany(field: string, actual: number, max: number): FieldError {
  return { type: 'FieldValueTooMany', field, message: `${field}: Too many: ${actual}: must have at most ${max} ${max === 1 ? 'item' : 'items'}` };
}

/** Where a failure is reported: the field path, and the path kube-openapi names in its message. */
export interface LeafPlace {
  /** Field path of the value (`spec.replicas`, or `...default.replicas` for a CRD default). */
  readonly field: string;
  /** Path of the value inside the validated document, which the message names (`replicas`). */
  readonly rel: string;
}

/** `parent.child`, or `child` at the root. */
export function join(parent: string, name: string): string {
  return parent ? `${parent}.${name}` : name;
}

function translate(error: ErrorObject, node: JSONSchemaProps, value: unknown, place: LeafPlace): FieldError {
  const { field } = place;
  const params = error.params as Record<string, unknown>;
  const inBody = place.rel ? `${place.rel} in body` : 'in body';
  switch (error.keyword) {
    case 'type': {
      const got = jsonType(value);
      return fieldError.typeInvalid(field, got, `${inBody} must be of type ${kubeTypes(node).join(',')}: "${got}"`);
    }
    case 'enum':
      return fieldError.notSupported(field, value, (node.enum ?? []).map((v) => (typeof v === 'string' ? v : JSON.stringify(v))));
    case 'pattern':
      return fieldError.invalid(field, value, `${inBody} should match '${node.pattern}'`);
    case 'maximum':
      return fieldError.invalid(field, value, `${inBody} should be less than or equal to ${String(params.limit)}`);
    case 'exclusiveMaximum':
      return fieldError.invalid(field, value, `${inBody} should be less than ${String(params.limit)}`);
    case 'minimum':
      return fieldError.invalid(field, value, `${inBody} should be greater than or equal to ${String(params.limit)}`);
    case 'exclusiveMinimum':
      return fieldError.invalid(field, value, `${inBody} should be greater than ${String(params.limit)}`);
    case 'multipleOf':
      return fieldError.invalid(field, value, `${inBody} should be a multiple of ${String(params.multipleOf)}`);
    case 'minLength':
      return fieldError.invalid(field, value, `${inBody} should be at least ${String(params.limit)} chars long`);
    case 'maxLength':
      return fieldError.tooLong(field, Number(params.limit));
    case 'minItems':
      return fieldError.invalid(field, (value as unknown[]).length, `${inBody} should have at least ${String(params.limit)} items`);
    case 'maxItems':
      return tooMany(field, (value as unknown[]).length, Number(params.limit));
    case 'uniqueItems':
      return fieldError.invalid(field, '', `${inBody} shouldn't contain duplicates`);
    case 'required':
      return fieldError.required(join(field, String(params.missingProperty)));
    case 'minProperties':
      return fieldError.invalid(field, Object.keys(value as object).length, `${inBody} should have at least ${String(params.limit)} properties`);
    case 'maxProperties':
      return tooMany(field, Object.keys(value as object).length, Number(params.limit));
    case 'format':
      return fieldError.typeInvalid(field, value, `${inBody} must be of type ${node.format}: ${JSON.stringify(value)}`);
    case 'additionalProperties': {
      const extra = String(params.additionalProperty);
      return fieldError.invalid(field, extra, `${join(place.rel, extra)} in body is a forbidden property`);
    }
    default:
      return fieldError.invalid(field, '', `${inBody} failed ${error.keyword}`);
  }
}

/** Runs `node`'s leaf checks on `value`; the FieldErrors of what failed. */
export function runLeafCheck(node: JSONSchemaProps, value: unknown, place: LeafPlace): FieldError[] {
  const check = leafCheck(node);
  if ('compileError' in check) return [fieldError.invalid(place.field || '<nil>', '', `error building validator: ${check.compileError}`)];
  if (check.validate(value)) return [];
  return (check.validate.errors ?? []).map((e) => translate(e, node, value, place));
}
