/**
 * What the OpenAPI documents are built from: one entry per served resource, the same shape
 * for built-ins (whose schema is a component name) and custom resources (whose schema is the
 * CRD version's `openAPIV3Schema`), plus the naming rules the documents share: group-version
 * paths (`api/v1`, `apis/apps/v1`), URL prefixes and operation-id prefixes.
 */
import type { JSONSchemaProps } from '../../api/schema.ts';

export const patchMediaTypes = {
  json: 'application/json-patch+json',
  merge: 'application/merge-patch+json',
  strategic: 'application/strategic-merge-patch+json',
  apply: 'application/apply-patch+yaml',
} as const;

export type PatchMediaType = (typeof patchMediaTypes)[keyof typeof patchMediaTypes];

/** Built-ins accept every patch type; custom resources all but strategic merge patch. */
export const builtinPatchTypes: readonly PatchMediaType[] = [patchMediaTypes.json, patchMediaTypes.merge, patchMediaTypes.strategic, patchMediaTypes.apply];
export const customResourcePatchTypes: readonly PatchMediaType[] = [patchMediaTypes.json, patchMediaTypes.merge, patchMediaTypes.apply];

export interface OpenApiResource {
  readonly group: string;
  readonly version: string;
  readonly kind: string;
  /** Defaults to `<kind>List`. */
  readonly listKind?: string;
  /** The plural resource name used in URLs, e.g. `deployments`. */
  readonly resource: string;
  readonly namespaced: boolean;
  readonly subresources?: { readonly status?: boolean; readonly scale?: boolean; readonly approval?: boolean };
  /**
   * A component name (built-ins: `io.k8s.api.apps.v1.Deployment`), or a CRD version's
   * `openAPIV3Schema`, which the document wraps into a named component with its List.
   */
  readonly schema: string | JSONSchemaProps;
  readonly patchTypes: readonly PatchMediaType[];
}

export interface GroupVersion {
  readonly group: string;
  readonly version: string;
}

/** The key of a group-version in the v3 root and its URL: `api/v1` or `apis/<group>/<version>`. */
export function groupVersionPath(gv: GroupVersion): string {
  return gv.group ? `apis/${gv.group}/${gv.version}` : `api/${gv.version}`;
}

/** The inverse of `groupVersionPath`, or undefined for anything else. */
export function parseGroupVersionPath(path: string): GroupVersion | undefined {
  const core = /^api\/([^/]+)$/.exec(path);
  if (core) return { group: '', version: core[1]! };
  const named = /^apis\/([^/]+)\/([^/]+)$/.exec(path);
  return named ? { group: named[1]!, version: named[2]! } : undefined;
}

const capitalise = (s: string): string => s.charAt(0).toUpperCase() + s.slice(1);

/** `Core`, `Apps`, `Coordination` (a `.k8s.io` suffix dropped), `StableExampleCom`, as in kube's operation ids. */
export function groupIdentifier(group: string): string {
  if (!group) return 'Core';
  return group.replace(/\.k8s\.io$/, '').split(/[.-]/).map(capitalise).join('');
}

/** `CoreV1`, `AppsV1`, `StableExampleComV1beta1`. */
export function operationPrefix(gv: GroupVersion): string {
  return `${groupIdentifier(gv.group)}${capitalise(gv.version)}`;
}

/** The operation tag kube uses: `core_v1`, `apps_v1`, `stableExampleCom_v1`. */
export function operationTag(gv: GroupVersion): string {
  const id = groupIdentifier(gv.group);
  return `${id.charAt(0).toLowerCase()}${id.slice(1)}_${gv.version}`;
}
