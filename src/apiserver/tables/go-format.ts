/**
 * Prints JSON values the way Go prints them where kubectl users see the result: `fmt.Print`
 * for scalars (JSONPath text output, CRD string columns) and `encoding/json` for maps and
 * lists (sorted keys, HTML-safe escapes). JavaScript's own `String()` and `JSON.stringify`
 * differ in small ways (`1e-05` vs `0.00001`, key order), which would show in table cells.
 */

import { goJson } from '../../api/go-json.ts';

/** `fmt.Print` of a float64: shortest digits, exponent form below 1e-4 or from 1e21. */
export function goFormatFloat(n: number): string {
  if (Number.isNaN(n)) return 'NaN';
  if (n === Infinity) return '+Inf';
  if (n === -Infinity) return '-Inf';
  if (n === 0) return Object.is(n, -0) ? '-0' : '0';
  const [mantissa, exp] = n.toExponential().split('e') as [string, string];
  const e = Number(exp);
  if (e < -4 || e >= 21) return `${mantissa}e${e < 0 ? '-' : '+'}${String(Math.abs(e)).padStart(2, '0')}`;
  return String(n);
}

/**
 * One JSONPath result as kubectl's JSONPath printer writes it: strings raw, maps and lists as
 * JSON, numbers and booleans as Go prints them, and a JSON `null` as `<no value>`.
 */
export function goPrintValue(value: unknown): string {
  if (value === null || value === undefined) return '<no value>';
  if (typeof value === 'string') return value;
  if (typeof value === 'number') return Number.isInteger(value) && Math.abs(value) < 1e21 ? String(value) : goFormatFloat(value);
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  return goJson(value);
}
