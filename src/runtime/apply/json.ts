/**
 * JSON-level helpers for the typed merges: objects arrive as plain JSON (the API server's
 * response, a parsed manifest), so every merge reads and writes `Record<string, unknown>`.
 *
 * `same` is the comparison every merge uses. It mirrors what Go's semantic equality sees after
 * a round trip through the API server's types: an omitted field, `null`, `""`, `[]` and `{}`
 * all decode to the same Go zero value and are written back as nothing, so a manifest that
 * spells one and a server that returns another must not look like drift (the hot loops of
 * cluster-version-operator#722, #855, #862 came from exactly such differences).
 */
import { isDeepStrictEqual } from 'node:util';
import { parseQuantity, type Quantity } from '../../api/quantity.ts';

export type Obj = Record<string, unknown>;

export function isObj(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** The object at `v`, or undefined when it is missing or not an object. */
export function asObj(v: unknown): Obj | undefined {
  return isObj(v) ? v : undefined;
}

/** The list at `v` as objects (non-objects dropped), empty when missing. */
export function objList(v: unknown): Obj[] {
  return Array.isArray(v) ? v.filter(isObj) : [];
}

/** `holder[key]` as an object, created when missing, so a merge can write below it. */
export function child(holder: Obj, key: string): Obj {
  const v = holder[key];
  if (isObj(v)) return v;
  const created: Obj = {};
  holder[key] = created;
  return created;
}

/** Sets `holder[key]`, deleting the key for `undefined` so that it is omitted from the JSON. */
export function put(holder: Obj, key: string, value: unknown): void {
  if (value === undefined) delete holder[key];
  else holder[key] = structuredClone(value);
}

/**
 * Fields whose `false`/`0` means the same as leaving them out: they are plain (non-pointer)
 * fields in the Kubernetes Go types, so a real API server drops them on the way back, or
 * pointer fields whose unset value means false/0 anyway (a CSI volume's `readOnly`).
 */
const ZERO_IS_ABSENT = new Set([
  // pod templates and workloads
  'readOnly',
  'hostNetwork',
  'hostPID',
  'hostIPC',
  'paused',
  'minReadySeconds',
  'stdin',
  'stdinOnce',
  'tty',
  'hostPort',
  'initialDelaySeconds',
  // CustomResourceDefinition specs and their JSON schemas
  'preserveUnknownFields',
  'served',
  'storage',
  'deprecated',
  'nullable',
  'uniqueItems',
  'exclusiveMaximum',
  'exclusiveMinimum',
]);

/** Values the schema treats as data, where an empty string or list is a meaningful value. */
const OPAQUE = new Set(['default', 'example']);

function isEmpty(v: unknown): boolean {
  if (v === undefined || v === null || v === '') return true;
  if (Array.isArray(v)) return v.length === 0;
  return isObj(v) && Object.keys(v).length === 0;
}

/** The value as the Go types would round-trip it: empty values and zero-is-absent fields removed. */
export function normalize(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(normalize);
  if (!isObj(v)) return v;
  const out: Obj = {};
  for (const [k, raw] of Object.entries(v)) {
    const n = OPAQUE.has(k) ? raw : normalize(raw);
    if (!OPAQUE.has(k) && isEmpty(n)) continue;
    if (OPAQUE.has(k) && n === undefined) continue;
    if (ZERO_IS_ABSENT.has(k) && (n === false || n === 0)) continue;
    out[k] = n;
  }
  return out;
}

/** Normalized, with an empty value at the top meaning "unset" too. */
function normalizeTop(v: unknown): unknown {
  const n = normalize(v);
  return isEmpty(n) ? undefined : n;
}

/** Semantic equality of two values of the field `key`, so that its zero-is-absent rule applies. */
export function sameField(key: string, a: unknown, b: unknown): boolean {
  return same({ [key]: a }, { [key]: b });
}

/** Semantic equality: equal once both sides are normalized. */
export function same(a: unknown, b: unknown): boolean {
  return isDeepStrictEqual(normalizeTop(a), normalizeTop(b));
}

/**
 * Whether `existing` holds every value `required` sets: objects may carry extra keys (server
 * defaults, other writers), lists must match in length and element by element.
 */
export function covers(existing: unknown, required: unknown): boolean {
  return coversNormalized(normalizeTop(existing), normalizeTop(required));
}

function coversNormalized(e: unknown, r: unknown): boolean {
  if (r === undefined) return true;
  if (Array.isArray(r)) return Array.isArray(e) && e.length === r.length && r.every((x, i) => coversNormalized(e[i], x));
  if (isObj(r)) return isObj(e) && Object.entries(r).every(([k, x]) => coversNormalized(e[k], x));
  return isDeepStrictEqual(e, r);
}

/** A Quantity's exact value as a rational, so `0.5`, `500m` and `0.5e0` compare equal. */
function rational(q: Quantity): { num: bigint; den: bigint } {
  let num = q.digits * 2n ** BigInt(q.exp2);
  let den = 1n;
  if (q.exp10 >= 0) num *= 10n ** BigInt(q.exp10);
  else den = 10n ** BigInt(-q.exp10);
  return { num: q.negative ? -num : num, den };
}

/** Resource quantities compare by value: the API server rewrites `1000m` as `1`. */
export function sameQuantity(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if ((typeof a !== 'string' && typeof a !== 'number') || (typeof b !== 'string' && typeof b !== 'number')) return false;
  try {
    const x = rational(parseQuantity(a));
    const y = rational(parseQuantity(b));
    return x.num * y.den === y.num * x.den;
  } catch {
    return false;
  }
}

/** Two resource lists (`limits`, `requests`) hold the same names at the same quantities. */
export function sameResourceList(a: unknown, b: unknown): boolean {
  const x = asObj(a) ?? {};
  const y = asObj(b) ?? {};
  const keys = new Set([...Object.keys(x), ...Object.keys(y)]);
  for (const k of keys) if (!sameQuantity(x[k], y[k])) return false;
  return true;
}
