/**
 * What every CEL library here needs to say about values: their CEL type names (for errors),
 * CEL's equality (numbers compare across int, uint and double, containers deeply) and CEL's
 * ordering, and the one way a library function fails at run time. cel-js represents ints as
 * BigInt, doubles as numbers, uints as UnsignedInt, durations as Duration, timestamps as Date
 * and bytes as Uint8Array.
 */
import { EvaluationError, Optional } from '@marcbachmann/cel-js';
import { Duration, UnsignedInt } from '@marcbachmann/cel-js/evaluator';

/** Fails the expression being evaluated, with Kubernetes' wording of the error. */
export function fail(message: string): never {
  throw new EvaluationError(message);
}

/** A value a library defines (IP, CIDR, URL, Quantity, Semver, Format) that knows its CEL equality. */
export interface CelObject {
  celEquals(other: unknown): boolean;
}

function isCelObject(x: unknown): x is CelObject {
  return typeof x === 'object' && x !== null && typeof (x as CelObject).celEquals === 'function';
}

export function isMap(x: unknown): x is Record<string, unknown> {
  return typeof x === 'object' && x !== null && !Array.isArray(x) && Object.getPrototypeOf(x) === Object.prototype;
}

export function celTypeName(x: unknown): string {
  if (typeof x === 'bigint') return 'int';
  if (typeof x === 'number') return 'double';
  if (typeof x === 'string') return 'string';
  if (typeof x === 'boolean') return 'bool';
  if (x === null || x === undefined) return 'null_type';
  if (Array.isArray(x)) return 'list';
  if (x instanceof Date) return 'google.protobuf.Timestamp';
  if (x instanceof Duration) return 'google.protobuf.Duration';
  if (x instanceof UnsignedInt) return 'uint';
  if (x instanceof Uint8Array) return 'bytes';
  if (x instanceof Optional) return 'optional_type';
  if (isMap(x)) return 'map';
  return (x as object).constructor?.name ?? 'object';
}

function numeric(x: unknown): bigint | number | undefined {
  if (typeof x === 'bigint' || typeof x === 'number') return x;
  if (x instanceof UnsignedInt) return x.value;
  return undefined;
}

function compareNumbers(a: bigint | number, b: bigint | number): number {
  if (typeof a === 'number' && Number.isNaN(a)) return Number.NaN;
  if (typeof b === 'number' && Number.isNaN(b)) return Number.NaN;
  return a < b ? -1 : a > b ? 1 : 0;
}

function durationNanos(d: Duration): bigint {
  return d.seconds * 1_000_000_000n + BigInt(d.nanos);
}

function compareBytes(a: Uint8Array, b: Uint8Array): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return a[i]! < b[i]! ? -1 : 1;
  return a.length - b.length;
}

/** CEL's `==`: numbers equal across types, lists and maps deeply, library values by their own rule. */
export function celEquals(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  const na = numeric(a);
  const nb = numeric(b);
  if (na !== undefined && nb !== undefined) return compareNumbers(na, nb) === 0;
  if (a instanceof Date && b instanceof Date) return a.getTime() === b.getTime();
  if (a instanceof Duration && b instanceof Duration) return durationNanos(a) === durationNanos(b);
  if (a instanceof Uint8Array && b instanceof Uint8Array) return compareBytes(a, b) === 0;
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((x, i) => celEquals(x, b[i]));
  if (isMap(a) && isMap(b)) {
    const keys = Object.keys(a);
    return keys.length === Object.keys(b).length && keys.every((k) => Object.hasOwn(b, k) && celEquals(a[k], b[k]));
  }
  if (a instanceof Optional && b instanceof Optional) return a.hasValue() === b.hasValue() && (!a.hasValue() || celEquals(a.value(), b.value()));
  if (isCelObject(a)) return a.celEquals(b);
  return false;
}

/** CEL's ordering of two comparable values (-1, 0, 1); fails on values that do not compare. */
export function celCompare(a: unknown, b: unknown): number {
  const na = numeric(a);
  const nb = numeric(b);
  if (na !== undefined && nb !== undefined) return compareNumbers(na, nb);
  if (typeof a === 'string' && typeof b === 'string') return a < b ? -1 : a > b ? 1 : 0;
  if (typeof a === 'boolean' && typeof b === 'boolean') return Number(a) - Number(b);
  if (a instanceof Date && b instanceof Date) return Math.sign(a.getTime() - b.getTime());
  if (a instanceof Duration && b instanceof Duration) return compareNumbers(durationNanos(a), durationNanos(b));
  if (a instanceof Uint8Array && b instanceof Uint8Array) return Math.sign(compareBytes(a, b));
  return fail(`no such overload: ${celTypeName(a)}.compare(${celTypeName(b)})`);
}

/** A CEL int from a JavaScript count, as every function returning an index or a length gives it. */
export const int = (n: number): bigint => BigInt(n);
