/**
 * Plain-JSON helpers shared by the patch engines: type guards, structural equality, a
 * canonical encoding (object keys sorted) that identifies list items by value, and a key
 * setter that treats `__proto__` as the ordinary key JSON.parse makes it, never as the
 * prototype (a patch must not be able to reach `Object.prototype`).
 */
import { isDeepStrictEqual } from 'node:util';

export type JsonObject = Record<string, unknown>;

export function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function deepEqual(a: unknown, b: unknown): boolean {
  return isDeepStrictEqual(a, b);
}

/** JSON with object keys sorted at every level, so equal values encode equally. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (isObject(value)) {
    const keys = Object.keys(value).filter((k) => value[k] !== undefined).sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson(value[k])}`).join(',')}}`;
  }
  return JSON.stringify(value ?? null);
}

/** Reads an own property only: `obj['__proto__']` must not hand out the prototype to be patched. */
export function getKey(obj: JsonObject, key: string): unknown {
  return Object.hasOwn(obj, key) ? obj[key] : undefined;
}

/** Sets an own property, including one named `__proto__`. */
export function setKey(obj: JsonObject, key: string, value: unknown): void {
  if (key === '__proto__') Object.defineProperty(obj, key, { value, enumerable: true, writable: true, configurable: true });
  else obj[key] = value;
}

/** `an array`, `null`, `a string`...: how error messages name a value that has the wrong shape. */
export function describeType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object') return 'an object';
  return typeof value === 'undefined' ? 'nothing' : `a ${typeof value}`;
}
