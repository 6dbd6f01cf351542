/**
 * The structural-schema rules a CRD version's `openAPIV3Schema` must follow before
 * kube-apiserver will prune, default and validate with it: every node has a `type` (unless
 * int-or-string or preserve-unknown-fields), the root is an object without
 * `additionalProperties`, root `metadata` restricts only name/generateName, embedded resources
 * are objects, and `allOf`/`anyOf`/`oneOf`/`not` hold only value validations about fields the
 * structural part already specifies. Errors are sorted by message, as Kubernetes sorts them.
 */
import { fieldError, type FieldError } from '../../api/field-errors.ts';
import type { JSONSchemaProps } from '../../api/schema.ts';
import { child, index, key } from './field-path.ts';
import { goRegExpError } from './go-regexp.ts';

/** A schema node as received: JSONSchemaProps plus whatever else a client sent. */
export type RawSchema = JSONSchemaProps & Record<string, unknown>;

type Level = 'root' | 'item' | 'field';

function isZero(v: unknown): boolean {
  if (v === undefined || v === null || v === false || v === '') return true;
  if (Array.isArray(v)) return v.length === 0;
  if (typeof v === 'object') return Object.keys(v).length === 0;
  return false;
}

function asSchema(v: unknown): RawSchema | undefined {
  return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as RawSchema) : undefined;
}

function branchIsOnlyType(b: unknown, type: string): boolean {
  const s = asSchema(b);
  if (!s) return false;
  const keys = Object.keys(s).filter((k) => !isZero(s[k]));
  return keys.length === 1 && keys[0] === 'type' && s.type === type;
}

/** `anyOf: [{type: integer}, {type: string}]`, the int-or-string pattern. */
function isIntOrStringAnyOf(anyOf: unknown): boolean {
  return Array.isArray(anyOf) && anyOf.length === 2 && branchIsOnlyType(anyOf[0], 'integer') && branchIsOnlyType(anyOf[1], 'string');
}

/** Checks of a node inside allOf/anyOf/oneOf/not: only value validations may appear there. */
function nested(v: RawSchema | undefined, skipAnyOf: boolean, skipAllOfAnyOf: boolean, lvl: Level, path: string, errs: FieldError[]): void {
  if (!v) return;
  valueValidation(v, skipAnyOf, skipAllOfAnyOf, lvl, path, errs);
  nested(asSchema(v.items), false, false, lvl, child(path, 'items'), errs);
  for (const [k, p] of Object.entries(v.properties ?? {})) nested(asSchema(p), false, false, 'field', key(child(path, 'properties'), k), errs);
  if (v.type) errs.push(fieldError.forbidden(child(path, 'type'), 'must be empty to be structural'));
  if (typeof v.additionalProperties === 'object' || v.additionalProperties === true) {
    errs.push(fieldError.forbidden(child(path, 'additionalProperties'), 'must be undefined to be structural'));
  }
  if (v.default !== undefined && v.default !== null) errs.push(fieldError.forbidden(child(path, 'default'), 'must be undefined to be structural'));
  if (v.title) errs.push(fieldError.forbidden(child(path, 'title'), 'must be empty to be structural'));
  if (v.description) errs.push(fieldError.forbidden(child(path, 'description'), 'must be empty to be structural'));
  if (v.nullable) errs.push(fieldError.forbidden(child(path, 'nullable'), 'must be false to be structural'));
  for (const ext of ['x-kubernetes-preserve-unknown-fields', 'x-kubernetes-embedded-resource', 'x-kubernetes-int-or-string'] as const) {
    if (v[ext]) errs.push(fieldError.forbidden(child(path, ext), 'must be false to be structural'));
  }
  if (!isZero(v['x-kubernetes-list-map-keys'])) errs.push(fieldError.forbidden(child(path, 'x-kubernetes-list-map-keys'), 'must be empty to be structural'));
  if (v['x-kubernetes-list-type'] !== undefined) errs.push(fieldError.forbidden(child(path, 'x-kubernetes-list-type'), 'must be undefined to be structural'));
  if (v['x-kubernetes-map-type'] !== undefined) errs.push(fieldError.forbidden(child(path, 'x-kubernetes-map-type'), 'must be undefined to be structural'));
  if (!isZero(v['x-kubernetes-validations'])) errs.push(fieldError.forbidden(child(path, 'x-kubernetes-validations'), 'must be empty to be structural'));
  if (v.properties && Object.hasOwn(v.properties, 'metadata')) {
    errs.push(fieldError.forbidden(key(child(path, 'properties'), 'metadata'), 'must not be specified in a nested context'));
  }
}

/** The logic junctors of a node, and its pattern. */
function valueValidation(s: RawSchema, skipAnyOf: boolean, skipFirstAllOfAnyOf: boolean, lvl: Level, path: string, errs: FieldError[]): void {
  if (!skipAnyOf && Array.isArray(s.anyOf)) s.anyOf.forEach((b, i) => nested(asSchema(b), false, false, lvl, index(child(path, 'anyOf'), i), errs));
  if (Array.isArray(s.allOf)) s.allOf.forEach((b, i) => nested(asSchema(b), skipFirstAllOfAnyOf && i === 0, false, lvl, index(child(path, 'allOf'), i), errs));
  if (Array.isArray(s.oneOf)) s.oneOf.forEach((b, i) => nested(asSchema(b), false, false, lvl, index(child(path, 'oneOf'), i), errs));
  nested(asSchema(s.not), false, false, lvl, child(path, 'not'), errs);
  if (typeof s.pattern === 'string' && s.pattern.length > 0) {
    const err = goRegExpError(s.pattern);
    if (err) errs.push(fieldError.invalid(child(path, 'pattern'), s.pattern, `must be a valid regular expression, but isn't: ${err}`));
  }
}

/** Root metadata may only restrict name and generateName; elsewhere (embedded) it must be an object. */
function metadataInvariants(s: RawSchema, checkMetadata: boolean, lvl: Level, path: string, errs: FieldError[]): void {
  if (checkMetadata && s.type !== 'object') errs.push(fieldError.invalid(child(path, 'type'), s.type ?? '', 'must be object'));
  if (lvl !== 'root') return;
  const props = Object.keys(s.properties ?? {});
  const onlyNames = props.length > 0 && props.every((p) => p === 'name' || p === 'generateName');
  const rest = Object.keys(s).filter((k) => k !== 'type' && k !== 'default' && !(k === 'properties' && (onlyNames || props.length === 0)) && !isZero(s[k]));
  if (rest.length > 0) {
    errs.push(fieldError.forbidden(path, 'must not specify anything other than name and generateName, but metadata is implicitly specified'));
  }
}

function invariants(s: RawSchema | undefined, lvl: Level, path: string, errs: FieldError[]): void {
  if (!s) return;
  if (s.type === 'array' && s.items === undefined) errs.push(fieldError.required(child(path, 'items'), 'must be specified'));
  invariants(asSchema(s.items), 'item', child(path, 'items'), errs);
  for (const [k, p] of Object.entries(s.properties ?? {})) invariants(asSchema(p), 'field', key(child(path, 'properties'), k), errs);
  if (s.additionalProperties !== undefined && s.additionalProperties !== null) {
    if (lvl === 'root') errs.push(fieldError.forbidden(child(path, 'additionalProperties'), 'must not be used at the root'));
    invariants(asSchema(s.additionalProperties), 'field', child(path, 'additionalProperties'), errs);
  }

  const intOrString = s['x-kubernetes-int-or-string'] === true;
  const preserve = s['x-kubernetes-preserve-unknown-fields'] === true;
  const embedded = s['x-kubernetes-embedded-resource'] === true;
  if (intOrString && preserve) errs.push(fieldError.invalid(child(path, 'x-kubernetes-preserve-unknown-fields'), true, 'must be false if x-kubernetes-int-or-string is true'));
  if (intOrString && embedded) errs.push(fieldError.invalid(child(path, 'x-kubernetes-embedded-resource'), true, 'must be false if x-kubernetes-int-or-string is true'));

  const skipAnyOf = isIntOrStringAnyOf(s.anyOf);
  const skipFirstAllOfAnyOf = Array.isArray(s.allOf) && s.allOf.length >= 1 && isIntOrStringAnyOf(asSchema(s.allOf[0])?.anyOf);
  valueValidation(s, skipAnyOf, skipFirstAllOfAnyOf, lvl, path, errs);

  const checkMetadata = lvl === 'root' || embedded;
  if (embedded && s.type !== 'object') {
    if (!s.type) errs.push(fieldError.required(child(path, 'type'), 'must be object if x-kubernetes-embedded-resource is true'));
    else errs.push(fieldError.invalid(child(path, 'type'), s.type, 'must be object if x-kubernetes-embedded-resource is true'));
  } else if (!s.type && !intOrString && !preserve) {
    const where = { root: 'at the root', item: 'for specified array items', field: 'for specified object fields' }[lvl];
    errs.push(fieldError.required(child(path, 'type'), `must not be empty ${where}`));
  }
  if (embedded && s.additionalProperties !== undefined && s.additionalProperties !== null) {
    errs.push(fieldError.forbidden(child(path, 'additionalProperties'), 'must not be used if x-kubernetes-embedded-resource is set'));
  }
  if (lvl === 'root' && s.type && s.type !== 'object') errs.push(fieldError.invalid(child(path, 'type'), s.type, 'must be object at the root'));

  const props = s.properties ?? {};
  for (const meta of ['kind', 'apiVersion']) {
    const p = Object.hasOwn(props, meta) ? asSchema(props[meta]) : undefined;
    if (p && checkMetadata && p.type !== 'string') errs.push(fieldError.invalid(child(key(child(path, 'properties'), meta), 'type'), p.type ?? '', 'must be string'));
  }
  const metadata = Object.hasOwn(props, 'metadata') ? asSchema(props.metadata) : undefined;
  if (metadata) metadataInvariants(metadata, checkMetadata, lvl, key(child(path, 'properties'), 'metadata'), errs);

  if (embedded && !preserve && Object.keys(props).length === 0) {
    errs.push(fieldError.required(child(path, 'properties'), 'must not be empty if x-kubernetes-embedded-resource is true without x-kubernetes-preserve-unknown-fields'));
  }
}

/** Every property or items a value validation names must exist in the structural part at the same place. */
function completeness(v: RawSchema | undefined, s: RawSchema | undefined, sPath: string, vPath: string, errs: FieldError[]): void {
  if (!v) return;
  if (!s) {
    errs.push(fieldError.required(sPath, `because it is defined in ${vPath}`));
    return;
  }
  junctorCompleteness(v, s, sPath, vPath, errs);
  completeness(asSchema(v.items), asSchema(s.items), child(sPath, 'items'), child(vPath, 'items'), errs);
  for (const [k, vp] of Object.entries(v.properties ?? {})) {
    const sp = s.properties && Object.hasOwn(s.properties, k) ? asSchema(s.properties[k]) : undefined;
    if (!sp) errs.push(fieldError.required(key(child(sPath, 'properties'), k), `because it is defined in ${key(child(vPath, 'properties'), k)}`));
    else completeness(asSchema(vp), sp, key(child(sPath, 'properties'), k), key(child(vPath, 'properties'), k), errs);
  }
}

function junctorCompleteness(v: RawSchema, s: RawSchema, sPath: string, vPath: string, errs: FieldError[]): void {
  completeness(asSchema(v.not), s, sPath, child(vPath, 'not'), errs);
  for (const j of ['allOf', 'anyOf', 'oneOf'] as const) {
    const list = v[j];
    if (Array.isArray(list)) list.forEach((b, i) => completeness(asSchema(b), s, sPath, index(child(vPath, j), i), errs));
  }
}

/**
 * The structural-schema errors of `schema` (a version's `openAPIV3Schema`) at `path`, sorted
 * by message; empty when the schema is structural.
 */
export function validateStructuralSchema(schema: JSONSchemaProps, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const s = schema as RawSchema;
  invariants(s, 'root', path, errs);
  // Kubernetes checks completeness for the root node's junctors only.
  junctorCompleteness(s, s, path, path, errs);
  return errs.sort((a, b) => (a.message < b.message ? -1 : a.message > b.message ? 1 : 0));
}
