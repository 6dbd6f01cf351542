/**
 * The schema of a List kind (`PodList`, `WidgetList`): apiVersion, kind, ListMeta and the
 * items. Built-in and custom resources share it, so every served kind has a list schema of
 * the same shape for the `list` operations of the OpenAPI documents.
 */
import type { JSONSchemaProps } from '../schema.ts';
import { commonFieldDescriptions } from './descriptions.ts';
import { componentRef, names } from './special-types.ts';

export interface ListKindOptions {
  /** Component name of the item kind, e.g. `io.k8s.api.core.v1.Pod`. */
  readonly itemComponent: string;
  readonly group: string;
  readonly version: string;
  /** The item kind, e.g. `Pod`. */
  readonly kind: string;
  /** Defaults to `<kind>List`. */
  readonly listKind?: string;
}

/** The component name of a kind's list: the item's package and the list kind (`io.k8s.api.core.v1.PodList`). */
export function listComponentName(itemComponent: string, listKind?: string): string {
  return listKind ? `${itemComponent.slice(0, itemComponent.lastIndexOf('.') + 1)}${listKind}` : `${itemComponent}List`;
}

export function listKindSchema(o: ListKindOptions): JSONSchemaProps {
  const listKind = o.listKind ?? `${o.kind}List`;
  return {
    description: `${listKind} is a list of ${o.kind} objects.`,
    type: 'object',
    required: ['items'],
    properties: {
      apiVersion: { type: 'string', description: commonFieldDescriptions['apiVersion'] },
      kind: { type: 'string', description: commonFieldDescriptions['kind'] },
      metadata: { ...componentRef(names.listMeta), description: 'Standard list metadata: the resourceVersion of the read and the continue token.' },
      items: { type: 'array', description: `The ${o.kind} objects.`, items: componentRef(o.itemComponent) },
    },
    'x-kubernetes-group-version-kind': [{ group: o.group, version: o.version, kind: listKind }],
  };
}
