/**
 * A canonical JSON form of an API value: keys sorted; null, empty objects and empty lists
 * dropped, since the API treats them as absent. Two values with the same form mean the same
 * thing to the server: the status writer compares with it, the pod template hash hashes it.
 */

/** Sorted keys, absent-equivalent values removed; undefined when the whole value is "absent". */
function canonical(value: unknown): unknown {
  if (value === null || value === undefined) return undefined;
  if (Array.isArray(value)) {
    const items = value.map((v) => canonical(v) ?? null);
    return items.length ? items : undefined;
  }
  if (typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(value as object).sort()) {
      const v = canonical((value as Record<string, unknown>)[key]);
      if (v !== undefined) out[key] = v;
    }
    return Object.keys(out).length ? out : undefined;
  }
  return value;
}

export function canonicalJson(value: unknown): string {
  return JSON.stringify(canonical(value) ?? null);
}
