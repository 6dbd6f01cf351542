/**
 * Layering sparse configs into an operand's config, as library-go's generic config merger
 * does for OpenShift's operators (`resourcemerge.MergeProcessConfig`): the operator's default
 * config, then observedConfig, then unsupportedConfigOverrides, each a YAML or JSON document.
 * - An empty layer is skipped.
 * - Objects merge key by key, recursively; lists and scalars replace what is below them; an
 *   object over a non-object replaces it. There is no delete marker (a null sets null).
 * - Some lists are sets instead: the admission plugins to enable or disable are unioned and
 *   sorted across layers, so an override cannot drop a default plugin.
 * - A layer whose non-empty apiVersion or kind differs from the layers below fails with
 *   library-go's message, `<v>/<k> does not equal <v>/<k>`.
 *
 * Beyond upstream (issue 17, item 3), which decodes the result leniently (unknown fields
 * dropped) and never checks flag values, `mergeAndValidate` checks the result against the
 * operand's schema and value rules, and names the layer each bad value came from:
 * `unsupportedConfigOverrides: servingInfo.bindAddres: unknown field`. A config that fails is
 * never handed on, so no revision is cut from it.
 *
 * Also the paths an unsupportedConfigOverrides document sets, for the
 * `UnsupportedConfigOverridesUpgradeable` condition (library-go's
 * unsupportedconfigoverridescontroller).
 */
import { isDeepStrictEqual } from 'node:util';
import { parse as parseYaml } from 'yaml';
import type { JSONSchemaProps } from '../api/schema.ts';
import { getPath, isPlainObject, type SparseConfig } from './sparse-config.ts';
import { checkAgainstSchema, dropNulls, formatPath, plainPath, type PathSegment } from '../api/strict-schema.ts';

export interface ConfigLayer {
  /** How errors name it: `defaultConfig`, `observedConfig`, `unsupportedConfigOverrides`. */
  readonly name: string;
  /** A YAML or JSON document, or the object itself; empty, null and undefined are skipped. */
  readonly content: string | SparseConfig | null | undefined;
}

export interface ConfigLayerError {
  readonly layer: string;
  /** `servingInfo.bindAddress`, `apiServerArguments.api-audiences[1]`; empty for the layer as a whole. */
  readonly path: string;
  /** A Kubernetes field error without its path: `unknown field`, `Invalid value: "x": must be an integer`. */
  readonly message: string;
}

export type ConfigMergeResult = { readonly ok: true; readonly config: SparseConfig } | { readonly ok: false; readonly errors: readonly ConfigLayerError[] };

/** A value problem found by the operand's own rules (`api/kubecontrolplane/validate.ts` returns these). */
export interface ConfigValueProblem {
  readonly path: readonly PathSegment[];
  readonly message: string;
}

/** The lists that are sets across layers: the kube-apiserver operator's special merge rules, and Shipyard's admission lists. */
export const admissionPluginListPaths: readonly (readonly string[])[] = [
  ['apiServerArguments', 'enable-admission-plugins'],
  ['apiServerArguments', 'disable-admission-plugins'],
  ['admission', 'enabledPlugins'],
  ['admission', 'disabledPlugins'],
];

export interface MergeOptions {
  /** Lists unioned and sorted instead of replaced; default `admissionPluginListPaths`. */
  readonly unionPaths?: readonly (readonly string[])[];
}

/** `unsupportedConfigOverrides: servingInfo.bindAddres: unknown field`, one line per error. */
export function formatConfigError(e: ConfigLayerError): string {
  return e.path ? `${e.layer}: ${e.path}: ${e.message}` : `${e.layer}: ${e.message}`;
}

type Parsed = { ok: true; config: SparseConfig | undefined } | { ok: false; error: ConfigLayerError };

/** The layer as an object, undefined when it is empty. */
function parseLayer(layer: ConfigLayer): Parsed {
  const { content } = layer;
  if (content === null || content === undefined) return { ok: true, config: undefined };
  if (typeof content !== 'string') return { ok: true, config: structuredClone(content) };
  if (content.trim() === '') return { ok: true, config: undefined };
  let doc: unknown;
  try {
    // YAML 1.2 reads JSON too, as kyaml.ToJSON does upstream.
    doc = parseYaml(content);
  } catch (err) {
    const detail = err instanceof Error ? err.message.split('\n')[0] : String(err);
    return { ok: false, error: { layer: layer.name, path: '', message: `not a YAML or JSON document: ${detail}` } };
  }
  if (doc === null || doc === undefined) return { ok: true, config: undefined };
  if (!isPlainObject(doc)) return { ok: false, error: { layer: layer.name, path: '', message: `must be an object, not ${Array.isArray(doc) ? 'a list' : typeof doc}` } };
  return { ok: true, config: doc };
}

function pathKey(path: readonly (string | number)[]): string {
  return path.join('\u0000');
}

/** A set-list merged: both sides' strings, once each, sorted; anything else is replaced, for validation to report. */
function unionStrings(below: unknown, above: unknown): unknown {
  const strings = (v: unknown) => Array.isArray(v) && v.every((x) => typeof x === 'string');
  if (!strings(above) || !(below === undefined || below === null || strings(below))) return above;
  return [...new Set([...((below as string[] | null) ?? []), ...(above as string[])])].sort();
}

/**
 * library-go's mergeConfig: `above` over `curr`, in place. An object where `curr` has none is
 * merged into an empty one rather than taken as is, so the set-lists inside it are unioned too.
 */
function mergeInto(curr: SparseConfig, above: SparseConfig, path: string[], unions: ReadonlySet<string>): void {
  for (const [key, value] of Object.entries(above)) {
    const here = [...path, key];
    if (unions.has(pathKey(here))) {
      curr[key] = unionStrings(curr[key], value);
      continue;
    }
    if (isPlainObject(value)) {
      let below = curr[key];
      if (!isPlainObject(below)) below = curr[key] = {};
      mergeInto(below as SparseConfig, value, here, unions);
      continue;
    }
    curr[key] = value;
  }
}

/** The set-lists of the bottom layer get the same form (unique, sorted) as a merged one. */
function normalizeUnions(config: SparseConfig, unionPaths: readonly (readonly string[])[]): void {
  for (const path of unionPaths) {
    const parent = getPath(config, path.slice(0, -1));
    const key = path[path.length - 1]!;
    if (isPlainObject(parent) && Object.hasOwn(parent, key)) parent[key] = unionStrings(undefined, parent[key]);
  }
}

const typeMetaOf = (c: SparseConfig): { apiVersion: string; kind: string } => ({
  apiVersion: typeof c.apiVersion === 'string' ? c.apiVersion : '',
  kind: typeof c.kind === 'string' ? c.kind : '',
});

interface ParsedLayer {
  readonly name: string;
  readonly config: SparseConfig;
}

type Layered = { ok: true; config: SparseConfig; layers: ParsedLayer[] } | { ok: false; errors: ConfigLayerError[] };

function layer(layers: readonly ConfigLayer[], opts: MergeOptions): Layered {
  const unionPaths = opts.unionPaths ?? admissionPluginListPaths;
  const unions = new Set(unionPaths.map(pathKey));
  const parsed: ParsedLayer[] = [];
  const errors: ConfigLayerError[] = [];
  for (const l of layers) {
    const p = parseLayer(l);
    if (!p.ok) errors.push(p.error);
    else if (p.config) parsed.push({ name: l.name, config: p.config });
  }
  if (errors.length) return { ok: false, errors };
  if (parsed.length === 0) return { ok: true, config: {}, layers: parsed };
  const merged = structuredClone(parsed[0]!.config);
  normalizeUnions(merged, unionPaths);
  for (const l of parsed.slice(1)) {
    const below = typeMetaOf(merged);
    const here = typeMetaOf(l.config);
    if ((here.apiVersion || here.kind) && (here.apiVersion !== below.apiVersion || here.kind !== below.kind)) {
      return { ok: false, errors: [{ layer: l.name, path: '', message: `${here.apiVersion}/${here.kind} does not equal ${below.apiVersion}/${below.kind}` }] };
    }
    mergeInto(merged, structuredClone(l.config), [], unions);
  }
  return { ok: true, config: merged, layers: parsed };
}

/** The layers merged, bottom first, as library-go merges them; no validation. */
export function mergeConfigLayers(layers: readonly ConfigLayer[], opts: MergeOptions = {}): ConfigMergeResult {
  const r = layer(layers, opts);
  return r.ok ? { ok: true, config: r.config } : r;
}

/**
 * The layer a bad value came from: the topmost that holds that very value there (for an item of
 * a list, the topmost whose list holds the item, since set-lists are reordered); else the
 * topmost that sets the nearest enclosing field.
 */
function blame(layers: readonly ParsedLayer[], merged: SparseConfig, path: readonly PathSegment[]): string {
  const plain = plainPath(path);
  const value = getPath(merged, plain);
  const top = [...layers].reverse();
  if (value !== undefined) {
    const hit = top.find((l) => isDeepStrictEqual(getPath(l.config, plain), value));
    if (hit) return hit.name;
    if (typeof plain[plain.length - 1] === 'number') {
      const listPath = plain.slice(0, -1);
      const holder = top.find((l) => {
        const list = getPath(l.config, listPath);
        return Array.isArray(list) && list.some((item) => isDeepStrictEqual(item, value));
      });
      if (holder) return holder.name;
    }
  }
  for (let n = plain.length - 1; n > 0; n--) {
    const hit = top.find((l) => getPath(l.config, plain.slice(0, n)) !== undefined);
    if (hit) return hit.name;
  }
  return top[0]?.name ?? '';
}

export interface ValidateOptions extends MergeOptions {
  /** The operand's config schema (`kubeAPIServerConfig.json`). */
  readonly schema: JSONSchemaProps;
  /** The operand's value rules, run on the merged config beside the schema check. */
  readonly check?: (config: SparseConfig) => readonly ConfigValueProblem[];
}

/**
 * The layers merged and checked. On success the config has its nulls dropped (a null only
 * ever meant "unset"); on failure every error names its layer and path, sorted by layer
 * order, then path.
 */
export function mergeAndValidate(layers: readonly ConfigLayer[], opts: ValidateOptions): ConfigMergeResult {
  const r = layer(layers, opts);
  if (!r.ok) return r;
  const problems = [...checkAgainstSchema(r.config, opts.schema), ...(opts.check?.(r.config) ?? [])];
  if (problems.length === 0) return { ok: true, config: dropNulls(r.config, opts.schema) as SparseConfig };
  const order = new Map(layers.map((l, i) => [l.name, i]));
  const seen = new Set<string>();
  const errors: ConfigLayerError[] = [];
  for (const p of problems) {
    const e = { layer: blame(r.layers, r.config, p.path), path: formatPath(p.path), message: p.message };
    const id = formatConfigError(e);
    if (seen.has(id)) continue;
    seen.add(id);
    errors.push(e);
  }
  errors.sort((a, b) => (order.get(a.layer) ?? 0) - (order.get(b.layer) ?? 0) || (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  return { ok: false, errors };
}

/**
 * Every leaf path an overrides document sets, dotted, list indexes as numbers, sorted
 * (`apiServerArguments.v.0`): what `UnsupportedConfigOverridesUpgradeable` lists. Empty for an
 * empty or unreadable document.
 */
export function unsupportedOverridesPaths(overrides: string | SparseConfig | null | undefined): string[] {
  const p = parseLayer({ name: 'unsupportedConfigOverrides', content: overrides });
  if (!p.ok || !p.config) return [];
  const out = new Set<string>();
  const walk = (v: unknown, path: string[]): void => {
    if (isPlainObject(v)) for (const [k, x] of Object.entries(v)) walk(x, [...path, k]);
    else if (Array.isArray(v)) v.forEach((x, i) => walk(x, [...path, String(i)]));
    else out.add(path.join('.'));
  };
  walk(p.config, []);
  return [...out].sort();
}

/** The condition message upstream writes, `setting: [a.b c.0]` (Go's %v of a string list). */
export function unsupportedOverridesMessage(overrides: string | SparseConfig | null | undefined): string {
  return `setting: [${unsupportedOverridesPaths(overrides).join(' ')}]`;
}
