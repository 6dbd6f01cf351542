/**
 * Component schemas for a custom resource version, named as kube-apiserver names them: the
 * group reversed, then the version and kind (`example.com`, `v1`, `Widget` →
 * `com.example.v1.Widget`), with the kind's `apiVersion`, `kind` and `metadata` (a reference
 * to ObjectMeta) filled in at the root, its `x-kubernetes-group-version-kind`, and the List kind.
 */
import { commonFieldDescriptions } from '../../api/builtin/descriptions.ts';
import { listComponentName, listKindSchema } from '../../api/builtin/list-kind.ts';
import { componentRef, names } from '../../api/builtin/special-types.ts';
import type { JSONSchemaProps } from '../../api/schema.ts';

export interface CrdVersionSchema {
  readonly group: string;
  readonly version: string;
  readonly kind: string;
  /** Defaults to `<kind>List`. */
  readonly listKind?: string;
  /** The version's `schema.openAPIV3Schema`; a free-form object when absent. */
  readonly schema?: JSONSchemaProps;
}

export function crdComponentName(group: string, version: string, kind: string): string {
  return `${group.split('.').reverse().join('.')}.${version}.${kind}`;
}

/** The kind's component and its List's, by name. */
export function crdComponents(crd: CrdVersionSchema): Record<string, JSONSchemaProps> {
  const name = crdComponentName(crd.group, crd.version, crd.kind);
  const given: JSONSchemaProps = crd.schema ? structuredClone(crd.schema) : { type: 'object', 'x-kubernetes-preserve-unknown-fields': true };
  const kindSchema: JSONSchemaProps = {
    ...given,
    type: 'object',
    properties: {
      ...given.properties,
      apiVersion: { type: 'string', description: commonFieldDescriptions['apiVersion'] },
      kind: { type: 'string', description: commonFieldDescriptions['kind'] },
      metadata: { ...componentRef(names.objectMeta), description: commonFieldDescriptions['metadata'] },
    },
    'x-kubernetes-group-version-kind': [{ group: crd.group, version: crd.version, kind: crd.kind }],
  };
  return {
    [name]: kindSchema,
    [listComponentName(name, crd.listKind)]: listKindSchema({ itemComponent: name, group: crd.group, version: crd.version, kind: crd.kind, listKind: crd.listKind }),
  };
}
