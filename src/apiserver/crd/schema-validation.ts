/**
 * Validation of one CRD version's `schema.openAPIV3Schema`, as kube-apiserver validates it:
 * the structural rules (structural.ts); then, when those hold, every `default` must survive
 * pruning unchanged and validate against its own schema; then the OpenAPI-level rules
 * (unsupported keywords, `uniqueItems`, `properties` with `additionalProperties`, defaults in
 * metadata, list/map types and their keys, the shape of `x-kubernetes-validations`), and the
 * root restrictions that a status subresource brings. CEL rules and messageExpressions must
 * compile, transition rules (those reading `oldSelf`) must sit where an old value can be
 * found, not below the items of a list that is not `x-kubernetes-list-type: map`, and the
 * rules' estimated costs must stay within Kubernetes' limits (cel-cost.ts).
 */
import { isDeepStrictEqual } from 'node:util';
import { fieldError, type FieldError } from '../../api/field-errors.ts';
import type { JSONSchemaProps } from '../../api/schema.ts';
import { compileExpression } from './cel/compile.ts';
import { childCardinality, costErrorMessage, messageExpressionCost, ruleCost, staticEstimatedCostLimit, TotalCost } from './cel-cost.ts';
import { validateEmbeddedResources } from './embedded.ts';
import { child, index, key } from './field-path.ts';
import { pruneValue } from './prune.ts';
import { type RawSchema, validateStructuralSchema } from './structural.ts';
import { validateOpenAPIValue } from './validate-object.ts';

const openapiTypes = ['array', 'boolean', 'integer', 'number', 'object', 'string'];
const metaFields = new Set(['metadata', 'kind', 'apiVersion']);
const validationReasons = ['FieldValueDuplicate', 'FieldValueForbidden', 'FieldValueInvalid', 'FieldValueRequired'];

/** The root fields allowed with a status subresource, by their Go names (which the message lists). */
const rootFieldsWithStatus: ReadonlyArray<[string, string]> = [
  ['description', 'Description'], ['type', 'Type'], ['format', 'Format'], ['title', 'Title'], ['maximum', 'Maximum'],
  ['exclusiveMaximum', 'ExclusiveMaximum'], ['minimum', 'Minimum'], ['exclusiveMinimum', 'ExclusiveMinimum'], ['maxLength', 'MaxLength'],
  ['minLength', 'MinLength'], ['pattern', 'Pattern'], ['maxItems', 'MaxItems'], ['minItems', 'MinItems'], ['uniqueItems', 'UniqueItems'],
  ['multipleOf', 'MultipleOf'], ['required', 'Required'], ['items', 'Items'], ['properties', 'Properties'], ['externalDocs', 'ExternalDocs'],
  ['example', 'Example'], ['x-kubernetes-preserve-unknown-fields', 'XPreserveUnknownFields'], ['x-kubernetes-validations', 'XValidations'],
];

interface SchemaContext {
  readonly allowDefaults: boolean;
  readonly disallowDefaultsReason?: string;
  readonly insideResourceMeta: boolean;
  /** Set below the items of a list that is not a map list: where CEL's `oldSelf` cannot be followed. */
  readonly uncorrelatable?: string;
  /** How many times the node can occur in one object; undefined when unbounded. */
  readonly cardinality: number | undefined;
  /** The estimated cost of the version's rules so far. */
  readonly costs: TotalCost;
}

function asSchema(v: unknown): RawSchema | undefined {
  return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as RawSchema) : undefined;
}

function isZero(v: unknown): boolean {
  if (v === undefined || v === null || v === false || v === '') return true;
  if (Array.isArray(v)) return v.length === 0;
  if (typeof v === 'object') return Object.keys(v).length === 0;
  return false;
}

const hasNewlines = (s: string): boolean => /[\n\r]/.test(s);

/** The keyword-level checks of one node (specStandardValidatorV3). */
function standard(s: RawSchema, path: string, ctx: SchemaContext, errs: FieldError[]): void {
  if (typeof s.type === 'string' && (s.type as string) !== '' && !openapiTypes.includes(s.type)) errs.push(fieldError.notSupported(child(path, 'type'), s.type, openapiTypes));
  if (s.default !== undefined && s.default !== null && !ctx.allowDefaults) {
    errs.push(fieldError.forbidden(child(path, 'default'), `must not be set${ctx.disallowDefaultsReason ? ` ${ctx.disallowDefaultsReason}` : ''}`));
  }
  if (s.id) errs.push(fieldError.forbidden(child(path, 'id'), 'id is not supported'));
  if (s.additionalItems !== undefined) errs.push(fieldError.forbidden(child(path, 'additionalItems'), 'additionalItems is not supported'));
  if (!isZero(s.patternProperties)) errs.push(fieldError.forbidden(child(path, 'patternProperties'), 'patternProperties is not supported'));
  if (!isZero(s.definitions)) errs.push(fieldError.forbidden(child(path, 'definitions'), 'definitions is not supported'));
  if (s.dependencies !== undefined) errs.push(fieldError.forbidden(child(path, 'dependencies'), 'dependencies is not supported'));
  if (s.$ref !== undefined) errs.push(fieldError.forbidden(child(path, '$ref'), '$ref is not supported'));
  if ((s.type as string) === 'null') errs.push(fieldError.forbidden(child(path, 'type'), 'type cannot be set to null, use nullable as an alternative'));
  if (Array.isArray(s.items)) errs.push(fieldError.forbidden(child(path, 'items'), 'items must be a schema object and not an array'));
  if (ctx.insideResourceMeta && s['x-kubernetes-embedded-resource']) {
    errs.push(fieldError.forbidden(child(path, 'x-kubernetes-embedded-resource'), 'must not be used inside of resource meta'));
  }
}

function listAndMapTypes(s: RawSchema, path: string, errs: FieldError[]): void {
  const listType = s['x-kubernetes-list-type'] as string | undefined;
  const mapType = s['x-kubernetes-map-type'] as string | undefined;
  const mapKeys = s['x-kubernetes-list-map-keys'] ?? [];
  const items = asSchema(s.items);
  if (mapType !== undefined && s.type !== 'object') {
    if (!s.type) errs.push(fieldError.required(child(path, 'type'), 'must be object if x-kubernetes-map-type is specified'));
    else errs.push(fieldError.invalid(child(path, 'type'), s.type, 'must be object if x-kubernetes-map-type is specified'));
  }
  if (mapType !== undefined && mapType !== 'atomic' && mapType !== 'granular') errs.push(fieldError.notSupported(child(path, 'x-kubernetes-map-type'), mapType, ['atomic', 'granular']));
  if (listType !== undefined && s.type !== 'array') {
    if (!s.type) errs.push(fieldError.required(child(path, 'type'), 'must be array if x-kubernetes-list-type is specified'));
    else errs.push(fieldError.invalid(child(path, 'type'), s.type, 'must be array if x-kubernetes-list-type is specified'));
  } else if (listType === 'set' && items) {
    const itemListType = items['x-kubernetes-list-type'];
    if (items.type === 'array' && itemListType !== undefined && itemListType !== 'atomic') {
      errs.push(fieldError.invalid(child(path, 'items', 'x-kubernetes-list-type'), itemListType, 'must be atomic as item of a list with x-kubernetes-list-type=set'));
    } else if (items.type === 'object' && items['x-kubernetes-map-type'] !== 'atomic') {
      errs.push(fieldError.invalid(child(path, 'items', 'x-kubernetes-map-type'), itemListType, 'must be atomic as item of a list with x-kubernetes-list-type=set'));
    }
  }
  if (listType !== undefined && listType !== 'atomic' && listType !== 'set' && listType !== 'map') {
    errs.push(fieldError.notSupported(child(path, 'x-kubernetes-list-type'), listType, ['atomic', 'set', 'map']));
  }
  if (mapKeys.length > 0) {
    if (listType === undefined) errs.push(fieldError.required(child(path, 'x-kubernetes-list-type'), 'must be map if x-kubernetes-list-map-keys is non-empty'));
    else if (listType !== 'map') errs.push(fieldError.invalid(child(path, 'x-kubernetes-list-type'), listType, 'must be map if x-kubernetes-list-map-keys is non-empty'));
  }
  if (listType === 'map') {
    if (mapKeys.length === 0) errs.push(fieldError.required(child(path, 'x-kubernetes-list-map-keys'), 'must not be empty if x-kubernetes-list-type is map'));
    if (s.items === undefined) errs.push(fieldError.required(child(path, 'items'), 'must have a schema if x-kubernetes-list-type is map'));
    else if (!items) errs.push(fieldError.invalid(child(path, 'items'), s.items, 'must only have a single schema if x-kubernetes-list-type is map'));
    else if (items.type !== 'object') errs.push(fieldError.invalid(child(path, 'items', 'type'), items.type ?? '', "must be object if parent array's x-kubernetes-list-type is map"));
    else {
      const seen = new Set<string>();
      for (const k of mapKeys) {
        const prop = items.properties && Object.hasOwn(items.properties, k) ? items.properties[k] : undefined;
        if (!prop) errs.push(fieldError.invalid(child(path, 'x-kubernetes-list-map-keys'), mapKeys, 'entries must all be names of item properties'));
        else if (prop.type === 'array' || prop.type === 'object') {
          errs.push(fieldError.invalid(child(key(child(path, 'items', 'properties'), k), 'type'), items.type, "must be a scalar type if parent array's x-kubernetes-list-type is map"));
        }
        if (seen.has(k)) errs.push(fieldError.invalid(child(path, 'x-kubernetes-list-map-keys'), mapKeys, 'must not contain duplicate entries'));
        seen.add(k);
      }
    }
  }
  // Items of set and map lists must not be null, and map keys must always have a value.
  if ((listType === 'set' || listType === 'map') && items) {
    if (items.nullable) errs.push(fieldError.forbidden(child(path, 'items', 'nullable'), `cannot be nullable when x-kubernetes-list-type is ${listType}`));
    if (listType === 'map') {
      const required = new Set(items.required ?? []);
      for (const k of mapKeys) {
        const prop = items.properties && Object.hasOwn(items.properties, k) ? items.properties[k] : undefined;
        if (!prop) continue;
        const keyPath = key(child(path, 'items', 'properties'), k);
        if (!required.has(k) && prop.default === undefined) {
          errs.push(fieldError.required(child(keyPath, 'default'), 'this property is in x-kubernetes-list-map-keys, so it must have a default or be a required property'));
        }
        if (prop.nullable) errs.push(fieldError.forbidden(child(keyPath, 'nullable'), 'this property is in x-kubernetes-list-map-keys, so it cannot be nullable'));
      }
    }
  }
}

/** Whether `fieldPath` (`.spec.foo`, `.spec['a.b']`) names a field the schema specifies. */
function fieldPathValid(s: RawSchema, fieldPath: string): boolean {
  const segs: string[] = [];
  const re = /\.([A-Za-z_][A-Za-z0-9_-]*)|\['((?:[^'\\]|\\.)*)'\]/y;
  let pos = 0;
  while (pos < fieldPath.length) {
    re.lastIndex = pos;
    const m = re.exec(fieldPath);
    if (!m) return false;
    segs.push(m[1] ?? m[2]!);
    pos = re.lastIndex;
  }
  let cur: RawSchema | undefined = s;
  for (const seg of segs) {
    if (!cur) return false;
    if (cur.properties && Object.hasOwn(cur.properties, seg)) cur = asSchema(cur.properties[seg]);
    else cur = asSchema(cur.additionalProperties);
  }
  return cur !== undefined && segs.length > 0;
}

function celRules(s: RawSchema, path: string, ctx: SchemaContext, isResourceRoot: boolean, errs: FieldError[]): void {
  const rules = s['x-kubernetes-validations'];
  if (!Array.isArray(rules)) return;
  rules.forEach((r, i) => {
    const p = index(child(path, 'x-kubernetes-validations'), i);
    const rule = String(r?.rule ?? '').trim();
    const message = String(r?.message ?? '');
    const trimmedMsg = message.trim();
    if (rule === '') errs.push(fieldError.required(child(p, 'rule'), 'rule is not specified'));
    else if (message.length > 0 && trimmedMsg === '') errs.push(fieldError.invalid(child(p, 'message'), message, 'must be non-empty if specified'));
    else if (hasNewlines(trimmedMsg)) errs.push(fieldError.invalid(child(p, 'message'), message, 'must not contain line breaks'));
    else if (hasNewlines(rule) && trimmedMsg === '') errs.push(fieldError.required(child(p, 'message'), 'message must be specified if rule contains line breaks'));
    const msgExpr = String(r?.messageExpression ?? '');
    if (msgExpr.length > 0 && msgExpr.trim() === '') errs.push(fieldError.required(child(p, 'messageExpression'), 'messageExpression must be non-empty if specified'));
    if (r?.reason !== undefined && !validationReasons.includes(r.reason)) errs.push(fieldError.notSupported(child(p, 'reason'), r.reason, validationReasons));
    const fieldPath = String(r?.fieldPath ?? '');
    if (fieldPath.length > 0 && fieldPath.trim() === '') errs.push(fieldError.invalid(child(p, 'fieldPath'), fieldPath, 'must be non-empty if specified'));
    if (hasNewlines(fieldPath)) errs.push(fieldError.invalid(child(p, 'fieldPath'), fieldPath, 'must not contain line breaks'));
    if (fieldPath.length > 0 && !fieldPathValid(s, fieldPath)) errs.push(fieldError.invalid(child(p, 'fieldPath'), fieldPath, 'must be a valid path'));
    if (rule !== '') {
      const compiled = compileExpression(rule, 'rule');
      if (!compiled.ok) errs.push(fieldError.invalid(child(p, 'rule'), r, compiled.error));
      else {
        const cost = ruleCost(compiled.expression, s, isResourceRoot, ctx.cardinality);
        if (cost > staticEstimatedCostLimit) errs.push(fieldError.forbidden(child(p, 'rule'), costErrorMessage('estimated rule cost', cost, staticEstimatedCostLimit)));
        ctx.costs.observe(child(p, 'rule'), cost);
        if (compiled.expression.usesOldSelf && ctx.uncorrelatable) {
          errs.push(fieldError.invalid(child(p, 'rule'), rule, `oldSelf cannot be used on the uncorrelatable portion of the schema within ${ctx.uncorrelatable}`));
        } else if (!compiled.expression.usesOldSelf && r?.optionalOldSelf !== undefined) {
          errs.push(fieldError.invalid(child(p, 'optionalOldSelf'), r.optionalOldSelf, 'may not be set if oldSelf is not used in rule'));
        }
      }
    }
    if (msgExpr.trim() !== '') {
      const compiled = compileExpression(msgExpr, 'message');
      if (!compiled.ok) errs.push(fieldError.invalid(child(p, 'messageExpression'), r, compiled.error));
      else {
        const cost = messageExpressionCost(compiled.expression, s, isResourceRoot);
        if (cost > staticEstimatedCostLimit) errs.push(fieldError.forbidden(child(p, 'messageExpression'), costErrorMessage('estimated messageExpression cost', cost, staticEstimatedCostLimit)));
        ctx.costs.observe(child(p, 'messageExpression'), cost);
      }
    }
  });
}

/** ValidateCustomResourceDefinitionOpenAPISchema: the recursive keyword checks. */
function openapi(s: RawSchema | undefined, path: string, ctx: SchemaContext, isRoot: boolean, errs: FieldError[]): void {
  if (!s) return;
  standard(s, path, ctx, errs);
  if (s.uniqueItems === true) errs.push(fieldError.forbidden(child(path, 'uniqueItems'), 'uniqueItems cannot be set to true since the runtime complexity becomes quadratic'));
  const hasProps = !isZero(s.properties);
  if (s.additionalProperties !== undefined && s.additionalProperties !== null) {
    if (hasProps && s.additionalProperties !== true) {
      errs.push(fieldError.forbidden(child(path, 'additionalProperties'), 'additionalProperties and properties are mutual exclusive'));
    }
    // Pruning cannot tell what a default inside metadata's additionalProperties applies to.
    const meta = ctx.insideResourceMeta ? { allowDefaults: false, disallowDefaultsReason: 'inside additionalProperties applying to object metadata' } : {};
    openapi(asSchema(s.additionalProperties), child(path, 'additionalProperties'), { ...ctx, ...meta, cardinality: childCardinality(ctx.cardinality, s) }, false, errs);
  }
  for (const [k, p] of Object.entries(s.properties ?? {})) {
    let sub: SchemaContext = { ...ctx, cardinality: childCardinality(ctx.cardinality, s) };
    if ((isRoot || s['x-kubernetes-embedded-resource']) && metaFields.has(k)) {
      sub = { ...sub, insideResourceMeta: true };
      if (isRoot) sub = { ...sub, allowDefaults: false, disallowDefaultsReason: `in top-level ${k}` };
    }
    openapi(asSchema(p), key(child(path, 'properties'), k), sub, false, errs);
  }
  openapi(asSchema(s.not), child(path, 'not'), ctx, false, errs);
  for (const j of ['allOf', 'oneOf', 'anyOf'] as const) {
    const list = s[j];
    if (Array.isArray(list)) list.forEach((b, i) => openapi(asSchema(b), index(child(path, j), i), ctx, false, errs));
  }
  const itemsCtx = { ...ctx, cardinality: childCardinality(ctx.cardinality, s), ...(s['x-kubernetes-list-type'] === 'map' || ctx.uncorrelatable ? {} : { uncorrelatable: child(path, 'items') }) };
  openapi(asSchema(s.items), child(path, 'items'), itemsCtx, false, errs);
  if (s['x-kubernetes-preserve-unknown-fields'] === false) {
    errs.push(fieldError.invalid(child(path, 'x-kubernetes-preserve-unknown-fields'), false, 'must be true or undefined'));
  }
  listAndMapTypes(s, path, errs);
  celRules(s, path, ctx, isRoot || s['x-kubernetes-embedded-resource'] === true, errs);
}

/**
 * Defaults must be pruned (no fields the schema drops), and valid against their own schema;
 * defaults inside `additionalProperties` are not followed, as in Kubernetes.
 */
function defaults(s: RawSchema | undefined, path: string, insideMeta: boolean, errs: FieldError[]): void {
  if (!s) return;
  const embedded = s['x-kubernetes-embedded-resource'] === true;
  if (embedded) insideMeta = false;
  if (s.default !== undefined && s.default !== null) {
    const at = child(path, 'default');
    if (insideMeta) {
      errs.push(...validateOpenAPIValue(s.default, s, at));
    } else {
      const pruned = structuredClone(s.default);
      pruneValue(pruned, s, embedded);
      if (!isDeepStrictEqual(pruned, s.default)) errs.push(fieldError.invalid(at, s.default, 'must not have unknown fields'));
      const metaErrs = validateEmbeddedResources(s.default, s, at, embedded);
      errs.push(...(metaErrs.length > 0 ? metaErrs : validateOpenAPIValue(s.default, s, at)));
    }
  }
  defaults(asSchema(s.items), child(path, 'items'), insideMeta, errs);
  for (const [k, p] of Object.entries(s.properties ?? {})) {
    defaults(asSchema(p), key(child(path, 'properties'), k), insideMeta || (embedded && metaFields.has(k)), errs);
  }
}

export interface VersionSchemaOptions {
  /** The version has a status subresource, which restricts what the root schema may say. */
  readonly statusEnabled: boolean;
}

/**
 * The errors of a version's `schema` (`{openAPIV3Schema}`) at `path` (`spec.versions[0].schema`).
 * A missing `openAPIV3Schema` is the caller's to report.
 */
export function validateVersionSchema(schema: JSONSchemaProps, path: string, options: VersionSchemaOptions): FieldError[] {
  const s = schema as RawSchema;
  const root = child(path, 'openAPIV3Schema');
  const errs: FieldError[] = [];
  if (options.statusEnabled) {
    for (const [k, v] of Object.entries(s)) {
      if (isZero(v)) continue;
      if (k === 'type') {
        if (v !== 'object') {
          errs.push(fieldError.invalid(child(root, 'type'), v, 'only "object" is allowed as the type at the root of the schema if the status subresource is enabled'));
          break;
        }
        continue;
      }
      if (!rootFieldsWithStatus.some(([json]) => json === k)) {
        errs.push(fieldError.invalid(root, s, `only [${rootFieldsWithStatus.map(([, go]) => go).join(' ')}] fields are allowed at the root of the schema if the status subresource is enabled`));
        break;
      }
    }
  }
  if (s.nullable) errs.push(fieldError.forbidden(child(root, 'nullable'), 'nullable cannot be true at the root'));
  const structural = validateStructuralSchema(s, root);
  if (structural.length > 0) errs.push(...structural);
  else {
    // The root is a resource: its apiVersion, kind and metadata survive pruning of a default.
    defaults({ ...s, 'x-kubernetes-embedded-resource': true }, root, false, errs);
  }
  const costs = new TotalCost();
  openapi(s, root, { allowDefaults: true, insideResourceMeta: false, cardinality: 1, costs }, true, errs);
  errs.push(...costs.errors(root));
  return errs;
}
