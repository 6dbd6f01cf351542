/**
 * Upgrading an object from client-side to server-side apply, as kube-apiserver's field manager
 * does for the manager `kubectl` (what `kubectl apply --server-side` sends): fields that
 * `kubectl apply` (client-side) recorded in the `kubectl.kubernetes.io/last-applied-configuration`
 * annotation, and that still hold the recorded value, may be taken over from their owner
 * (`kubectl-client-side-apply`) without a conflict (kube's lastAppliedManager); and after such an
 * apply the annotation is rewritten to the configuration just applied, so a later client-side
 * apply computes its three-way merge from it (kube's lastAppliedUpdater). Any other manager opts
 * out of both, as in kube.
 */
import type { SchemaResolver } from '../../api/schema.ts';
import type { KubeObject } from '../registry/resource.ts';
import { goJson } from '../../api/go-json.ts';
import type { FieldSet } from './field-set.ts';
import { isObject } from './json-value.ts';
import { withoutManagedFields } from './managed-fields.ts';
import { compareObjects, fieldSetOf } from './object-fields.ts';
import type { Schema } from './schema-nav.ts';

export const lastAppliedAnnotation = 'kubectl.kubernetes.io/last-applied-configuration';
/** The only manager whose applies take over client-side-applied fields and keep the annotation current. */
export const lastAppliedUpgradeManager = 'kubectl';
/** kube's total size limit of an object's annotations; a last-applied annotation that would break it is dropped. */
const maxAnnotationsBytes = 256 * 1024;

function lastAppliedOf(obj: unknown): string | undefined {
  const value = isObject(obj) && isObject(obj.metadata) && isObject(obj.metadata.annotations) ? obj.metadata.annotations[lastAppliedAnnotation] : undefined;
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/**
 * The fields an apply by `kubectl` may take from other managers without a conflict: those of the
 * live object's last-applied configuration whose value the live object still has. Undefined when
 * there is no usable annotation (absent, not JSON, or of another apiVersion than the request).
 */
export function fieldsFromLastApplied(live: KubeObject, apiVersion: string, schema: Schema, resolve: SchemaResolver): FieldSet | undefined {
  const text = lastAppliedOf(live);
  if (text === undefined) return undefined;
  let lastApplied: unknown;
  try {
    lastApplied = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!isObject(lastApplied) || lastApplied.apiVersion !== apiVersion) return undefined;
  const cmp = compareObjects(lastApplied, withoutManagedFields(live), schema, resolve);
  return fieldSetOf(lastApplied, schema, resolve).difference(cmp.modified).difference(cmp.added).difference(cmp.removed);
}

/**
 * Rewrites the annotation of `result` (the object an apply by `kubectl` produced) to `applied`,
 * the configuration just applied, when the object carries one: encoded as kube encodes it (Go's
 * JSON of the configuration without the annotation itself, and a newline).
 */
export function keepLastAppliedCurrent(result: KubeObject, applied: KubeObject): void {
  if (lastAppliedOf(result) === undefined) return;
  const config = structuredClone(applied);
  if (isObject(config.metadata) && isObject(config.metadata.annotations)) delete config.metadata.annotations[lastAppliedAnnotation];
  const annotations = result.metadata.annotations as Record<string, string>;
  annotations[lastAppliedAnnotation] = `${goJson(config)}\n`;
  const size = Object.entries(annotations).reduce((n, [k, v]) => n + Buffer.byteLength(k) + Buffer.byteLength(String(v)), 0);
  if (size > maxAnnotationsBytes) delete annotations[lastAppliedAnnotation];
}
