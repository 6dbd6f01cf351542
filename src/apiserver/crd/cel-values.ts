/**
 * A custom resource's JSON as CEL validation rules see it, typed by the schema the way
 * kube-apiserver types it: `integer` nodes are CEL ints (BigInt, or `self.replicas + 1` fails
 * against a double), `number` nodes doubles, `date`/`date-time` strings timestamps,
 * `duration` strings durations, `byte` strings bytes. Property names that are not CEL
 * identifiers are reached through Kubernetes' escapes (`foo-bar` is `self.foo__dash__bar`);
 * keys of `additionalProperties` maps stay as they are (`self.labels['a.b/c']`). At a resource
 * root (the object, or an embedded resource) `metadata` shows only `name` and `generateName`.
 */
import { Duration } from '@marcbachmann/cel-js/evaluator';
import type { JSONSchemaProps } from '../../api/schema.ts';

const reservedWords = new Set(['true', 'false', 'null', 'in', 'as', 'break', 'const', 'continue', 'else', 'for', 'function', 'if', 'import', 'let', 'loop', 'package', 'namespace', 'return', 'var', 'void', 'while']);
const escapable = /^[a-zA-Z_.\-/][a-zA-Z0-9_.\-/]*$/;
const escapes: Record<string, string> = { __: '__underscores__', '.': '__dot__', '-': '__dash__', '/': '__slash__' };

/** The CEL name of a schema property, or undefined when CEL cannot name it. */
export function escapeCelName(name: string): string | undefined {
  if (reservedWords.has(name)) return `__${name}__`;
  if (!escapable.test(name)) return undefined;
  return name.replace(/__|[./-]/g, (m) => escapes[m]!);
}

const durationPart = /([0-9]*(?:\.[0-9]*)?)(ns|us|µs|μs|ms|s|m|h)/y;
const nanosPerUnit: Record<string, bigint> = { ns: 1n, us: 1_000n, µs: 1_000n, μs: 1_000n, ms: 1_000_000n, s: 1_000_000_000n, m: 60_000_000_000n, h: 3_600_000_000_000n };

/** A Go duration (`1h30m`, `-1.5s`, `0`) in nanoseconds; undefined when it is not one. */
export function parseGoDuration(text: string): bigint | undefined {
  let rest = text;
  let sign = 1n;
  if (rest.startsWith('-') || rest.startsWith('+')) {
    if (rest[0] === '-') sign = -1n;
    rest = rest.slice(1);
  }
  if (rest === '0') return 0n;
  if (rest === '') return undefined;
  let total = 0n;
  durationPart.lastIndex = 0;
  while (durationPart.lastIndex < rest.length) {
    const at = durationPart.lastIndex;
    const m = durationPart.exec(rest);
    if (!m || m.index !== at || m[1] === '' || m[1] === '.') return undefined;
    const [whole = '0', fraction = ''] = m[1]!.split('.');
    const unit = nanosPerUnit[m[2]!]!;
    total += BigInt(whole || '0') * unit + (fraction ? (BigInt(fraction) * unit) / 10n ** BigInt(fraction.length) : 0n);
  }
  return sign * total;
}

function toDuration(text: string): unknown {
  const nanos = parseGoDuration(text);
  if (nanos === undefined) return text;
  return new Duration(nanos / 1_000_000_000n, Number(nanos % 1_000_000_000n));
}

function toTimestamp(text: string, dateOnly: boolean): unknown {
  const ok = dateOnly ? /^\d{4}-\d{2}-\d{2}$/.test(text) : /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/.test(text);
  const at = ok ? new Date(dateOnly ? `${text}T00:00:00Z` : text) : undefined;
  return at && !Number.isNaN(at.getTime()) ? at : text;
}

function toBytes(text: string): unknown {
  return /^[A-Za-z0-9+/]*={0,2}$/.test(text) && text.length % 4 === 0 ? new Uint8Array(Buffer.from(text, 'base64')) : text;
}

function isObject(x: unknown): x is Record<string, unknown> {
  return typeof x === 'object' && x !== null && !Array.isArray(x);
}

/** A number without a schema type: JSON's integers are ints (as Kubernetes decodes them), the rest doubles. */
function untypedNumber(n: number): unknown {
  return Number.isSafeInteger(n) ? BigInt(n) : n;
}

/**
 * Converts JSON values to CEL values. One converter serves one validation pass: objects and
 * lists are converted once, however many rules above them look at them.
 */
export class CelValueConverter {
  private readonly done = new WeakMap<object, unknown>();

  /** `value` as CEL sees it at schema node `s` (undefined `s`: no schema, everything dynamic). */
  convert(value: unknown, s: JSONSchemaProps | undefined, resourceRoot = false): unknown {
    if (value === null || value === undefined) return null;
    switch (typeof value) {
      case 'number':
        if (s?.type === 'number') return value;
        if (s?.type === 'integer' || s?.['x-kubernetes-int-or-string']) return Number.isSafeInteger(value) ? BigInt(value) : value;
        return untypedNumber(value);
      case 'string':
        if (s?.type !== 'string') return value;
        switch (s.format) {
          case 'date-time':
            return toTimestamp(value, false);
          case 'date':
            return toTimestamp(value, true);
          case 'duration':
            return toDuration(value);
          case 'byte':
            return toBytes(value);
          default:
            return value;
        }
      case 'boolean':
        return value;
      case 'object':
        break;
      default:
        return null;
    }
    const cached = this.done.get(value as object);
    if (cached !== undefined) return cached;
    let out: unknown;
    if (Array.isArray(value)) out = value.map((item) => this.convert(item, s?.items, s?.items?.['x-kubernetes-embedded-resource'] === true));
    else out = this.convertObject(value as Record<string, unknown>, s, resourceRoot);
    this.done.set(value as object, out);
    return out;
  }

  private convertObject(obj: Record<string, unknown>, s: JSONSchemaProps | undefined, resourceRoot: boolean): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    const props = s?.properties;
    const ap = typeof s?.additionalProperties === 'object' ? s.additionalProperties : undefined;
    if (!props && ap) {
      for (const [k, v] of Object.entries(obj)) out[k] = this.convert(v, ap, ap['x-kubernetes-embedded-resource'] === true);
      return out;
    }
    for (const [k, v] of Object.entries(obj)) {
      if (resourceRoot && k === 'metadata') {
        if (isObject(v)) out.metadata = this.rootMetadata(v);
        continue;
      }
      const sub = props && Object.hasOwn(props, k) ? props[k] : undefined;
      const name = props ? escapeCelName(k) : k;
      if (name === undefined) continue;
      if (resourceRoot && (k === 'apiVersion' || k === 'kind')) out[name] = v;
      else out[name] = this.convert(v, sub, sub?.['x-kubernetes-embedded-resource'] === true);
    }
    return out;
  }

  private rootMetadata(meta: Record<string, unknown>): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    if (typeof meta.name === 'string') out.name = meta.name;
    if (typeof meta.generateName === 'string') out.generateName = meta.generateName;
    return out;
  }
}
