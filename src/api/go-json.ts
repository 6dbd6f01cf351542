/**
 * JSON as Go's encoding/json (`json.Marshal` of a decoded document) writes it: compact, object
 * keys in byte order, and `<`, `>`, `&`, U+2028 and U+2029 escaped. Where Go's bytes are
 * compared or shown: the CVO's manifest hash (its decoder turns each YAML document into JSON
 * before keeping it, so a payload hashes the same here as there), kubectl's last-applied
 * annotation, JSONPath and table cells.
 */

const goEscapes = /[<>&\u2028\u2029]/g;

function goString(s: string): string {
  return JSON.stringify(s).replace(goEscapes, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

function byteOrder(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
}

export function goJson(value: unknown): string {
  if (value === null || value === undefined) return 'null';
  if (typeof value === 'string') return goString(value);
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : 'null';
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (Array.isArray(value)) return `[${value.map(goJson).join(',')}]`;
  if (typeof value !== 'object') return 'null';
  // An absent field (undefined in JavaScript) is not in Go's map at all.
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => byteOrder(a, b));
  return `{${entries.map(([k, v]) => `${goString(k)}:${goJson(v)}`).join(',')}}`;
}
