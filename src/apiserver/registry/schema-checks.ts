/**
 * Schema work on a write, before the strategy validates: for custom resources, defaulting,
 * pruning of unknown fields, structural-schema validation and then the CEL rules
 * (`x-kubernetes-validations`); for built-ins, dropping null fields and unknown fields.
 * Unknown fields are an error under `fieldValidation=Strict` (400, as kube's strict decoder
 * answers), a `Warning` header under `Warn`, and silently dropped under `Ignore`.
 */
import { fieldError, type FieldError, type FieldErrorType } from '../../api/field-errors.ts';
import { findUnknownFields } from '../../api/builtin/unknown-fields.ts';
import { hasCelRules, validateCelRules } from '../crd/cel-validation.ts';
import { coerceCustomResource } from '../crd/coerce.ts';
import { dropNonNullableNulls } from '../crd/defaulting.ts';
import { compositeField, validateCustomObject } from '../crd/validate-object.ts';
import { errors } from '../errors.ts';
import type { KubeObject, ResourceDefinition } from './resource.ts';
import type { WriteContext } from './store.ts';

function reportUnknown(paths: readonly string[], ctx: WriteContext): void {
  if (!paths.length) return;
  if (ctx.fieldValidation === 'Strict') {
    throw errors.badRequest(
      `strict decoding error: ${paths.map((p) => `unknown field "${p}"`).join(', ')}`,
      paths.map((p) => ({ reason: 'FieldValueInvalid', field: p, message: 'unknown field' })),
    );
  }
  if (ctx.fieldValidation !== 'Ignore') ctx.warnings?.push(...paths.map((p) => `unknown field "${p}"`));
}

/** Removes the field at a path such as `spec.template.spec.containers[0].imagee`. */
export function removePath(obj: KubeObject, path: string): void {
  const segments: Array<string | number> = [];
  for (const m of path.matchAll(/([^.[\]]+)|\[(\d+)\]/g)) segments.push(m[2] !== undefined ? Number(m[2]) : m[1]!);
  let cur: unknown = obj;
  for (const s of segments.slice(0, -1)) {
    if (typeof cur !== 'object' || cur === null) return;
    cur = (cur as Record<string | number, unknown>)[s];
  }
  const last = segments[segments.length - 1];
  if (typeof cur === 'object' && cur !== null && last !== undefined) delete (cur as Record<string | number, unknown>)[last];
}

/** Errors after which kube-apiserver does not run CEL rules: the rules would see values of the wrong shape. */
const blockingCelErrors: ReadonlySet<FieldErrorType> = new Set(['FieldValueNotSupported', 'FieldValueRequired', 'FieldValueTooLong', 'FieldValueTooMany', 'FieldValueTypeInvalid']);

/** `old` is the stored object on an update, for CEL transition rules and ratcheting. */
export function checkSchema(def: ResourceDefinition, obj: KubeObject, ctx: WriteContext, old?: KubeObject): FieldError[] {
  if (!def.schema) return [];
  if (def.crd) {
    const schema = def.schema.root;
    reportUnknown(coerceCustomResource(obj, schema).unknownFields, ctx);
    const errs = validateCustomObject(obj, schema);
    if (!hasCelRules(schema)) return errs;
    if (errs.some((e) => blockingCelErrors.has(e.type))) {
      errs.push(fieldError.invalid(compositeField, 'null', 'some validation rules were not checked because the object was invalid; correct the existing errors to complete validation'));
      return errs;
    }
    const cel = validateCelRules(obj, schema, { old });
    ctx.warnings?.push(...cel.warnings);
    return [...errs, ...cel.errors];
  }
  // A null field decodes to a Go zero value that is not written back: kube-apiserver drops it.
  dropNonNullableNulls(obj, def.schema.root, def.schema.resolve);
  const unknown = findUnknownFields(obj, def.schema.root, def.schema.resolve);
  reportUnknown(unknown, ctx);
  for (const p of unknown) removePath(obj, p);
  return [];
}
