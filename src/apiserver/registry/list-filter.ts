/**
 * Turns `labelSelector` and `fieldSelector` query strings into one object matcher for a
 * resource. Every resource supports `metadata.name` and `metadata.namespace`; others add
 * their own fields (pods: `spec.nodeName`, `status.phase`, ...).
 */
import { compileFieldSelector, commonFieldAccessors } from '../selectors/field-selector.ts';
import { parseLabelSelector } from '../selectors/label-selector.ts';
import type { KubeObject, ResourceDefinition } from './resource.ts';

export type ObjectMatcher = (obj: KubeObject) => boolean;
export type LabelMatcher = (labels: Record<string, string> | undefined) => boolean;

export interface Selectors {
  readonly matcher?: ObjectMatcher;
  /** The name a `metadata.name=` field selector pins the request to, for single-key watches. */
  readonly name?: string;
}

export function compileSelectors(def: ResourceDefinition, labelSelector: string | null, fieldSelector: string | null): Selectors {
  const parts: ObjectMatcher[] = [];
  let name: string | undefined;
  if (labelSelector && labelSelector.trim()) {
    const labels = parseLabelSelector(labelSelector);
    parts.push((o) => labels(o.metadata?.labels));
  }
  if (fieldSelector && fieldSelector.trim()) {
    const fields = compileFieldSelector(fieldSelector, { ...commonFieldAccessors, ...def.fieldAccessors });
    parts.push(fields);
    const m = /^(?:metadata\.name)==?([^,]+)$/.exec(fieldSelector.trim());
    if (m) name = m[1];
  }
  if (parts.length === 0) return {};
  if (parts.length === 1) return { matcher: parts[0], name };
  return { matcher: (o) => parts.every((p) => p(o)), name };
}
