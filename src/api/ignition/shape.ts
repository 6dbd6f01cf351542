/**
 * A small structural decoder: checks each field's JSON type against a declared shape, drops
 * unknown keys and fields newer than the config's version with a warning (as Ignition reports
 * "unused key"), and returns a copy holding only what was understood. Semantics — paths,
 * URLs, duplicates — are `validate.ts`'s job.
 */
import { join, type Report } from './problems.ts';

export type Shape =
  | 'string'
  | 'integer'
  | 'boolean'
  /** Any JSON object, copied as is (disks, RAID, filesystems: nothing here reads them). */
  | 'opaque'
  | { readonly object: Readonly<Record<string, Field>> }
  | { readonly array: Shape };

export interface Field {
  readonly shape: Shape;
  /** Minor version of spec 3 that introduced the field. */
  readonly since?: number;
  /** Keep an explicit `null` (an HTTP header's value: null removes the header on merge). */
  readonly nullable?: boolean;
  /**
   * A value that means the same as leaving the field out (`shouldExist: true`), so a
   * translation down to a spec without the field may drop it (`convert.ts`).
   */
  readonly unset?: string | number | boolean;
}

export interface DecodeContext {
  /** Minor version of the config being decoded; fields with a later `since` are dropped. */
  readonly minor: number;
  readonly report: Report;
}

export function decode(value: unknown, shape: Shape, path: string, ctx: DecodeContext): unknown {
  if (shape === 'string') return typeof value === 'string' ? value : fail(ctx, path, 'must be a string');
  if (shape === 'boolean') return typeof value === 'boolean' ? value : fail(ctx, path, 'must be a boolean');
  if (shape === 'integer') {
    return typeof value === 'number' && Number.isSafeInteger(value) ? value : fail(ctx, path, 'must be an integer');
  }
  if (shape === 'opaque') return isObject(value) ? structuredClone(value) : fail(ctx, path, 'must be an object');
  if ('array' in shape) {
    if (!Array.isArray(value)) return fail(ctx, path, 'must be a list');
    const out: unknown[] = [];
    value.forEach((item, i) => {
      const decoded = decode(item, shape.array, join(path, i), ctx);
      if (decoded !== undefined) out.push(decoded);
    });
    return out;
  }
  if (!isObject(value)) return fail(ctx, path, 'must be an object');
  const out: Record<string, unknown> = {};
  for (const [key, raw] of Object.entries(value)) {
    const field = shape.object[key];
    const at = join(path, key);
    if (!field || !Object.hasOwn(shape.object, key)) {
      ctx.report.warn(at, 'unknown key (ignored)');
      continue;
    }
    if (field.since !== undefined && field.since > ctx.minor) {
      ctx.report.warn(at, `requires spec version 3.${field.since}.0 or later (ignored)`);
      continue;
    }
    if (raw === null) {
      if (field.nullable) out[key] = null;
      continue;
    }
    const decoded = decode(raw, field.shape, at, ctx);
    if (decoded !== undefined) out[key] = decoded;
  }
  return out;
}

function fail(ctx: DecodeContext, path: string, message: string): undefined {
  ctx.report.error(path, message);
  return undefined;
}

export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Shorthand for declaring shapes: `f('string')`, `f(obj, 2)` for a field added in 3.2. */
export function f(shape: Shape, since?: number): Field {
  return since === undefined ? { shape } : { shape, since };
}

export function obj(fields: Record<string, Field>): Shape {
  return { object: fields };
}

export function list(items: Shape): Shape {
  return { array: items };
}
