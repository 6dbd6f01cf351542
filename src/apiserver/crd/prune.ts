/**
 * Structural pruning of custom resources: every field the schema does not specify is
 * dropped, as kube-apiserver does on every write and every read, unless a node says
 * `x-kubernetes-preserve-unknown-fields: true`. The root's `apiVersion`, `kind` and
 * `metadata` are always kept (metadata is the generic ObjectMeta code's business), and so are
 * those of `x-kubernetes-embedded-resource` nodes, whose metadata loses the fields ObjectMeta
 * does not have. The dropped paths are returned, sorted, for `fieldValidation=Strict`
 * (`strict decoding error: unknown field "spec.foo"`) and `Warn`.
 */
import type { JSONSchemaProps } from '../../api/schema.ts';

type Json = unknown;
type JsonObject = Record<string, Json>;

const metaFields = new Set(['apiVersion', 'kind', 'metadata']);

/** The fields of ObjectMeta; anything else in an embedded resource's metadata is unknown. */
export const objectMetaFields: ReadonlySet<string> = new Set([
  'name', 'generateName', 'namespace', 'selfLink', 'uid', 'resourceVersion', 'generation', 'creationTimestamp',
  'deletionTimestamp', 'deletionGracePeriodSeconds', 'labels', 'annotations', 'ownerReferences', 'finalizers', 'managedFields',
]);

function isObject(x: Json): x is JsonObject {
  return typeof x === 'object' && x !== null && !Array.isArray(x);
}

/**
 * The schema of values under `additionalProperties`: a schema, or `null` when the keyword is a
 * boolean (keys are kept, but nested objects are emptied, as Kubernetes does), or undefined when absent.
 */
function additionalSchema(s: JSONSchemaProps): JSONSchemaProps | null | undefined {
  const ap = s.additionalProperties;
  if (ap === undefined) return undefined;
  return typeof ap === 'object' ? ap : null;
}

class Pruner {
  readonly paths: string[] = [];

  private join(parent: string, k: string): string {
    return parent ? `${parent}.${k}` : k;
  }

  prune(x: Json, s: JSONSchemaProps | null | undefined, path: string): void {
    if (s && s['x-kubernetes-preserve-unknown-fields']) return this.walk(x, s, path, false);
    this.walk(x, s, path, true);
  }

  /**
   * Prunes the known children of `x`; unknown ones are dropped when `dropUnknown` (and kept
   * under `x-kubernetes-preserve-unknown-fields`, whose known children are still pruned).
   */
  private walk(x: Json, s: JSONSchemaProps | null | undefined, path: string, dropUnknown: boolean): void {
    if (Array.isArray(x)) {
      for (let i = 0; i < x.length; i++) {
        if (dropUnknown) this.prune(x[i], s ? s.items : null, `${path}[${i}]`);
        else if (s?.items) this.walk(x[i], s.items, `${path}[${i}]`, false);
      }
      return;
    }
    if (!isObject(x)) return;
    if (!s) {
      for (const k of Object.keys(x)) {
        this.paths.push(this.join(path, k));
        delete x[k];
      }
      return;
    }
    const embedded = s['x-kubernetes-embedded-resource'] === true;
    const ap = additionalSchema(s);
    for (const k of Object.keys(x)) {
      if (embedded && metaFields.has(k)) {
        if (k === 'metadata' && path !== '') this.pruneObjectMeta(x[k], this.join(path, k));
        continue;
      }
      const prop = s.properties && Object.hasOwn(s.properties, k) ? s.properties[k] : undefined;
      if (prop) this.prune(x[k], prop, this.join(path, k));
      else if (ap !== undefined) this.prune(x[k], ap, this.join(path, k));
      else if (dropUnknown) {
        if (!metaFields.has(k) || path !== '') this.paths.push(this.join(path, k));
        delete x[k];
      }
    }
  }

  /** Embedded ObjectMeta: drops fields ObjectMeta does not have (Kubernetes decodes into the Go struct). */
  pruneObjectMeta(meta: Json, path: string): void {
    if (!isObject(meta)) return;
    for (const k of Object.keys(meta)) {
      if (objectMetaFields.has(k)) continue;
      this.paths.push(this.join(path, k));
      delete meta[k];
    }
  }
}

/**
 * Drops, in place, every field of the custom resource `obj` that `schema` does not specify,
 * and returns the dropped paths, sorted (`spec.foo`, `spec.items[0].bar`).
 */
export function pruneObject(obj: JsonObject, schema: JSONSchemaProps | undefined): string[] {
  const pruner = new Pruner();
  // The root is a resource: its apiVersion, kind and metadata are never pruned here.
  pruner.prune(obj, { ...(schema ?? {}), 'x-kubernetes-embedded-resource': true }, '');
  return pruner.paths.sort();
}

/**
 * Prunes a value that is not a resource root (a schema default, a nested value), treating
 * `schema` as the value's own schema; `isResourceRoot` keeps apiVersion/kind/metadata.
 */
export function pruneValue(value: Json, schema: JSONSchemaProps | undefined, isResourceRoot = false): string[] {
  const pruner = new Pruner();
  const s = isResourceRoot ? { ...(schema ?? {}), 'x-kubernetes-embedded-resource': true } : schema;
  pruner.prune(value, s, '');
  return pruner.paths.sort();
}

/** Drops, in place, the fields of an ObjectMeta that ObjectMeta does not have; returns their paths under `path`. */
export function pruneObjectMeta(meta: JsonObject, path = 'metadata'): string[] {
  const pruner = new Pruner();
  pruner.pruneObjectMeta(meta, path);
  return pruner.paths.sort();
}

/** The message of the 400 kube-apiserver answers under `fieldValidation=Strict`. */
export function strictDecodingMessage(unknownPaths: readonly string[]): string {
  return `strict decoding error: ${unknownFieldWarnings(unknownPaths).join(', ')}`;
}

/** The `Warning` texts kube-apiserver sends under `fieldValidation=Warn`. */
export function unknownFieldWarnings(unknownPaths: readonly string[]): string[] {
  return unknownPaths.map((p) => `unknown field "${p}"`);
}
