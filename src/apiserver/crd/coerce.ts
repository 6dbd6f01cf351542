/**
 * What kube-apiserver does to a custom resource between the bytes and validation, in its
 * order: its schema-coercing decoder prunes unknown fields and drops nulls the schema cannot
 * take, then its defaulter fills in defaults. The same runs on reads from storage (with the
 * storage version's schema), so a default added to a CRD shows up in existing objects.
 */
import type { JSONSchemaProps } from '../../api/schema.ts';
import { applyDefaults, dropNonNullableNulls } from './defaulting.ts';
import { pruneObject } from './prune.ts';

export interface CoerceResult {
  /** Paths of the fields pruned, sorted (for `fieldValidation=Strict` and `Warn`). */
  readonly unknownFields: string[];
}

/** Prunes, drops non-nullable nulls and defaults `obj` in place, against its version's schema. */
export function coerceCustomResource(obj: Record<string, unknown>, schema: JSONSchemaProps): CoerceResult {
  const unknownFields = pruneObject(obj, schema);
  dropNonNullableNulls(obj, schema);
  applyDefaults(obj, schema);
  return { unknownFields };
}
