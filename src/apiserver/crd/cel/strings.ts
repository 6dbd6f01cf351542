/**
 * CEL's string extension library at the version Kubernetes 1.32 enables (cel-go ext.Strings,
 * version 2): `charAt`, `indexOf`, `lastIndexOf`, `lowerAscii`, `upperAscii`, `replace`,
 * `split`, `substring`, `trim`, `join`, `format` and `strings.quote`. Indexes count Unicode
 * code points, as Go's runes do, not UTF-16 units; case mapping touches ASCII only; errors
 * are worded as cel-go's. (`reverse` came with version 3, after 1.32, and is not here.)
 */
import type { Environment } from '@marcbachmann/cel-js';
import { Duration, UnsignedInt } from '@marcbachmann/cel-js/evaluator';
import { registeredName } from './overrides.ts';
import { celTypeName, fail, int, isMap } from './values.ts';
import { compareStrings } from '../../../api/compare.ts';

const runes = (s: string): string[] => [...s];

function outOfRange(i: bigint | number): never {
  return fail(`index out of range: ${i}`);
}

export function charAt(s: string, i: bigint): string {
  const r = runes(s);
  if (i < 0n || i > BigInt(r.length)) outOfRange(i);
  return r[Number(i)] ?? '';
}

function findRunes(hay: string[], needle: string[], at: number): boolean {
  for (let j = 0; j < needle.length; j++) if (hay[at + j] !== needle[j]) return false;
  return true;
}

export function indexOf(s: string, sub: string, offset = 0n): bigint {
  if (sub === '') return offset;
  const r = runes(s);
  const n = runes(sub);
  if (offset < 0n || offset >= BigInt(r.length)) outOfRange(offset);
  for (let i = Number(offset); i <= r.length - n.length; i++) if (findRunes(r, n, i)) return int(i);
  return -1n;
}

export function lastIndexOf(s: string, sub: string, offset?: bigint): bigint {
  const r = runes(s);
  if (offset === undefined) {
    if (sub === '') return int(r.length);
    offset = int(r.length - 1);
  }
  if (sub === '') return offset;
  const n = runes(sub);
  if (offset < 0n || offset >= BigInt(r.length)) outOfRange(offset);
  for (let i = Math.min(Number(offset), r.length - n.length); i >= 0; i--) if (findRunes(r, n, i)) return int(i);
  return -1n;
}

export function substring(s: string, start: bigint, end?: bigint): string {
  const r = runes(s);
  const len = BigInt(r.length);
  if (end !== undefined && start > end) fail(`invalid substring range. start: ${start}, end: ${end}`);
  if (start < 0n || start > len) outOfRange(start);
  if (end !== undefined && (end < 0n || end > len)) outOfRange(end);
  return r.slice(Number(start), end === undefined ? undefined : Number(end)).join('');
}

/** Go's strings.Replace: an empty `from` matches before every rune and at the end. */
export function replace(s: string, from: string, to: string, n = -1n): string {
  if (n === 0n) return s;
  if (from === '') {
    const r = runes(s);
    let out = '';
    let done = 0n;
    for (let i = 0; i <= r.length; i++) {
      if (n < 0n || done < n) {
        out += to;
        done++;
      }
      out += r[i] ?? '';
    }
    return out;
  }
  if (n < 0n) return s.split(from).join(to);
  let out = '';
  let rest = s;
  for (let done = 0n; done < n; done++) {
    const at = rest.indexOf(from);
    if (at < 0) break;
    out += rest.slice(0, at) + to;
    rest = rest.slice(at + from.length);
  }
  return out + rest;
}

/** Go's strings.SplitN: an empty separator splits into runes; n > 0 caps the count, the last part keeping the rest. */
export function split(s: string, sep: string, n = -1n): string[] {
  if (n === 0n) return [];
  const parts = sep === '' ? runes(s) : s.split(sep);
  if (n < 0n || BigInt(parts.length) <= n) return parts;
  const keep = Number(n) - 1;
  return [...parts.slice(0, keep), parts.slice(keep).join(sep)];
}

/** Go's unicode.IsSpace, which strings.TrimSpace trims. */
const goSpace = '\\t\\n\\v\\f\\r \\u0085\\u00A0\\u1680\\u2000-\\u200A\\u2028\\u2029\\u202F\\u205F\\u3000';
const trimmed = new RegExp(`^[${goSpace}]+|[${goSpace}]+$`, 'g');

export const trim = (s: string): string => s.replace(trimmed, '');
export const lowerAscii = (s: string): string => s.replace(/[A-Z]+/g, (m) => m.toLowerCase());
export const upperAscii = (s: string): string => s.replace(/[a-z]+/g, (m) => m.toUpperCase());

/** Go replaces invalid UTF-8 with U+FFFD; a lone surrogate is JavaScript's equivalent. */
const loneSurrogate = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/** strings.quote: a double-quoted string with CEL's escapes. */
export function quote(s: string): string {
  const escapes: Record<string, string> = { '\x07': '\\a', '\b': '\\b', '\f': '\\f', '\n': '\\n', '\r': '\\r', '\t': '\\t', '\v': '\\v', '\\': '\\\\', '"': '\\"' };
  return `"${s.replace(loneSurrogate, '\uFFFD').replace(/[\x07\b\f\n\r\t\v\\"]/g, (c) => escapes[c]!)}"`;
}

// ---------------------------------------------------------------------------------------------
// format

/** Go's strconv.FormatFloat(x, 'g', -1, 64), which CEL's string(double) uses. */
function goFloat(x: number): string {
  if (Number.isNaN(x)) return 'NaN';
  if (!Number.isFinite(x)) return x > 0 ? '+Inf' : '-Inf';
  if (x === 0) return Object.is(x, -0) ? '-0' : '0';
  const [mantissa, expText] = x.toExponential().split('e') as [string, string];
  const exp = Number(expText);
  // Shortest formatting switches to an exponent from 10^6 on, as Go's 'g' does.
  if (exp < -4 || exp >= 6) return `${mantissa}e${exp < 0 ? '-' : '+'}${String(Math.abs(exp)).padStart(2, '0')}`;
  return String(x);
}

function goFixed(x: number, precision: number): string {
  if (Number.isNaN(x)) return 'NaN';
  if (!Number.isFinite(x)) return x > 0 ? '+Inf' : '-Inf';
  return x.toFixed(precision);
}

function goScientific(x: number, precision: number): string {
  if (Number.isNaN(x)) return 'NaN';
  if (!Number.isFinite(x)) return x > 0 ? '+Inf' : '-Inf';
  const [mantissa, expText] = x.toExponential(precision).split('e') as [string, string];
  const exp = Number(expText);
  return `${mantissa}e${exp < 0 ? '-' : '+'}${String(Math.abs(exp)).padStart(2, '0')}`;
}

function integer(x: unknown): bigint | undefined {
  if (typeof x === 'bigint') return x;
  if (x instanceof UnsignedInt) return x.value;
  return undefined;
}

function durationText(d: Duration): string {
  const nanos = d.seconds * 1_000_000_000n + BigInt(d.nanos);
  const sign = nanos < 0n ? '-' : '';
  const abs = nanos < 0n ? -nanos : nanos;
  const frac = abs % 1_000_000_000n;
  return `${sign}${abs / 1_000_000_000n}${frac ? `.${String(frac).padStart(9, '0').replace(/0+$/, '')}` : ''}s`;
}

/** `%s`: any value as CEL prints it; strings inside lists and maps are quoted. */
function asString(x: unknown, nested = false): string {
  if (typeof x === 'string') return nested ? JSON.stringify(x) : x;
  if (typeof x === 'number') return nested && !Number.isFinite(x) ? `"${goFloat(x)}"` : goFloat(x);
  if (typeof x === 'bigint' || typeof x === 'boolean' || x instanceof UnsignedInt) return String(x);
  if (x === null) return 'null';
  if (x instanceof Uint8Array) return nested ? `b${JSON.stringify(Buffer.from(x).toString('utf8'))}` : Buffer.from(x).toString('utf8');
  if (x instanceof Date) return nested ? `timestamp(${JSON.stringify(x.toISOString())})` : x.toISOString().replace('.000Z', 'Z');
  if (x instanceof Duration) return nested ? `duration(${JSON.stringify(durationText(x))})` : durationText(x);
  if (Array.isArray(x)) return `[${x.map((v) => asString(v, true)).join(', ')}]`;
  if (isMap(x)) {
    const entries = Object.entries(x).map(([k, v]) => [JSON.stringify(k), asString(v, true)] as const);
    entries.sort(([a], [b]) => compareStrings(a, b));
    return `{${entries.map(([k, v]) => `${k}:${v}`).join(', ')}}`;
  }
  return fail(`string clause can only be used on strings, bools, bytes, ints, doubles, maps, lists, types, durations, and timestamps, was given ${celTypeName(x)}`);
}

function floatArg(x: unknown, clause: string): number {
  if (typeof x === 'number') return x;
  if (x === 'NaN') return Number.NaN;
  if (x === 'Infinity') return Number.POSITIVE_INFINITY;
  if (x === '-Infinity') return Number.NEGATIVE_INFINITY;
  return fail(`${clause} clause can only be used on doubles, was given ${celTypeName(x)}`);
}

function clause(verb: string, precision: number | undefined, x: unknown): string {
  switch (verb) {
    case 's':
      return asString(x);
    case 'd': {
      const n = integer(x);
      return n !== undefined ? String(n) : fail(`decimal clause can only be used on integers, was given ${celTypeName(x)}`);
    }
    case 'f':
      return goFixed(floatArg(x, 'fixed-point'), precision ?? 6);
    case 'e':
      return goScientific(floatArg(x, 'scientific'), precision ?? 6);
    case 'b': {
      if (typeof x === 'boolean') return x ? '1' : '0';
      const n = integer(x);
      return n !== undefined ? n.toString(2) : fail(`only integers and bools can be formatted as binary, was given ${celTypeName(x)}`);
    }
    case 'o': {
      const n = integer(x);
      return n !== undefined ? n.toString(8) : fail(`octal clause can only be used on integers, was given ${celTypeName(x)}`);
    }
    case 'x':
    case 'X': {
      const n = integer(x);
      let hex: string;
      if (n !== undefined) hex = n.toString(16);
      else if (typeof x === 'string') hex = Buffer.from(x, 'utf8').toString('hex');
      else if (x instanceof Uint8Array) hex = Buffer.from(x).toString('hex');
      else return fail(`only integers, byte buffers, and strings can be formatted as hex, was given ${celTypeName(x)}`);
      return verb === 'X' ? hex.toUpperCase() : hex;
    }
    default:
      return fail(`could not parse formatting clause: unrecognized formatting clause "${verb}"`);
  }
}

/** `"...%s...".format([args])`: printf-style clauses `%s %d %f %e %b %x %X %o`, with `%.Nf`/`%.Ne` precision. */
export function format(template: string, args: unknown[]): string {
  let out = '';
  let next = 0;
  for (let i = 0; i < template.length; i++) {
    const c = template[i]!;
    if (c !== '%') {
      out += c;
      continue;
    }
    if (template[i + 1] === '%') {
      out += '%';
      i++;
      continue;
    }
    let j = i + 1;
    let precision: number | undefined;
    if (template[j] === '.') {
      const m = /^\d+/.exec(template.slice(j + 1));
      if (!m) fail('could not parse formatting clause: unable to convert precision specifier to integer');
      precision = Number(m[0]);
      j += 1 + m[0].length;
    }
    const verb = template[j];
    if (verb === undefined) fail('could not parse formatting clause: unexpected end of string');
    if (next >= args.length) fail(`index ${next} out of range`);
    out += clause(verb, precision, args[next++]);
    i = j;
  }
  return out;
}

class StringsLibrary {}

export function registerStrings(env: Environment): void {
  const n = registeredName;
  env
    .registerFunction('string.charAt(int): string', charAt)
    .registerFunction(`string.${n('indexOf')}(string): int`, (s: string, sub: string) => indexOf(s, sub))
    .registerFunction(`string.${n('indexOf')}(string, int): int`, indexOf)
    .registerFunction(`string.${n('lastIndexOf')}(string): int`, (s: string, sub: string) => lastIndexOf(s, sub))
    .registerFunction(`string.${n('lastIndexOf')}(string, int): int`, lastIndexOf)
    .registerFunction(`string.${n('lowerAscii')}(): string`, lowerAscii)
    .registerFunction(`string.${n('upperAscii')}(): string`, upperAscii)
    .registerFunction('string.replace(string, string): string', (s: string, a: string, b: string) => replace(s, a, b))
    .registerFunction('string.replace(string, string, int): string', replace)
    .registerFunction(`string.${n('split')}(string): list<string>`, (s: string, sep: string) => split(s, sep))
    .registerFunction(`string.${n('split')}(string, int): list<string>`, split)
    .registerFunction(`string.${n('substring')}(int): string`, (s: string, start: bigint) => substring(s, start))
    .registerFunction(`string.${n('substring')}(int, int): string`, substring)
    .registerFunction(`string.${n('trim')}(): string`, trim)
    .registerFunction('string.format(list): string', format)
    .registerType('StringsLibrary', StringsLibrary)
    .registerConstant('strings', 'StringsLibrary', new StringsLibrary())
    .registerFunction('StringsLibrary.quote(string): string', (_: StringsLibrary, s: string) => quote(s));
}
