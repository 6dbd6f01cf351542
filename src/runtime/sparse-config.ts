/**
 * Sparse configs: partial JSON documents that an operator layers into an operand's config
 * (OpenShift's observedConfig and unsupportedConfigOverrides are such documents). Reading and
 * writing a value at a path, and copying some paths out of a config, which is how a config
 * observer keeps its previous sub-tree when its input is broken (library-go's observers use
 * unstructured.NestedField and SetNestedField for the same).
 */

/** A decoded JSON object; values are JSON values. */
export type SparseConfig = Record<string, unknown>;

export function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** The value at `path` (field names and list indexes), or undefined where the path breaks off. */
export function getPath(config: unknown, path: readonly (string | number)[]): unknown {
  let v = config;
  for (const seg of path) {
    if (typeof seg === 'number') v = Array.isArray(v) ? v[seg] : undefined;
    else v = isPlainObject(v) && Object.hasOwn(v, seg) ? v[seg] : undefined;
    if (v === undefined) return undefined;
  }
  return v;
}

/** Sets `value` at `path` of field names, making (or replacing with) objects on the way. */
export function setPath(config: SparseConfig, path: readonly string[], value: unknown): void {
  if (path.length === 0) throw new Error('setPath: empty path');
  let node = config;
  for (const seg of path.slice(0, -1)) {
    const next = node[seg];
    if (isPlainObject(next)) node = next;
    else node = node[seg] = {};
  }
  node[path[path.length - 1]!] = value;
}

/**
 * A new config holding a copy of each of `paths` that `config` has, and nothing else: what an
 * observer returns when it cannot observe, so the values it owns stay as they were.
 */
export function pickPaths(config: unknown, paths: readonly (readonly string[])[]): SparseConfig {
  const out: SparseConfig = {};
  for (const path of paths) {
    const v = getPath(config, path);
    if (v !== undefined) setPath(out, path, structuredClone(v));
  }
  return out;
}
