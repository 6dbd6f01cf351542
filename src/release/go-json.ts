/**
 * JSON as Go's encoding/json writes a decoded YAML document: compact, object keys in byte
 * order, and `<`, `>`, `&`, U+2028 and U+2029 escaped. The CVO's manifest hash covers YAML
 * manifests in this form (its decoder turns each YAML document into JSON before keeping it),
 * so a payload hashes the same here as there.
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
  const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) => byteOrder(a, b));
  return `{${entries.map(([k, v]) => `${goString(k)}:${goJson(v)}`).join(',')}}`;
}
