/**
 * Which component schemas a document carries: each resource's kind and List component
 * (wrapping a CRD's inline schema, or synthesising a missing List), then every schema those
 * and the operations reference, transitively, so a document is self-contained.
 */
import { listComponentName, listKindSchema } from '../../api/builtin/list-kind.ts';
import { componentsPrefix } from '../../api/builtin/special-types.ts';
import type { JSONSchemaProps } from '../../api/schema.ts';
import { crdComponentName, crdComponents } from './crd-components.ts';
import type { ResourceComponents } from './operations.ts';
import type { OpenApiResource } from './resources.ts';
import { compareStrings } from '../../api/compare.ts';

export interface PreparedResources {
  readonly components: readonly ResourceComponents[];
  /** Components made here (CRD kinds and Lists, missing built-in Lists), by name. */
  readonly extra: Readonly<Record<string, JSONSchemaProps>>;
}

export function prepareResources(resources: readonly OpenApiResource[], components: Readonly<Record<string, JSONSchemaProps>>): PreparedResources {
  const extra: Record<string, JSONSchemaProps> = {};
  const named = resources.map((r): ResourceComponents => {
    if (typeof r.schema === 'string') {
      const list = listComponentName(r.schema, r.listKind);
      if (!components[list]) extra[list] = listKindSchema({ itemComponent: r.schema, group: r.group, version: r.version, kind: r.kind, listKind: r.listKind });
      return { kind: r.schema, list };
    }
    Object.assign(extra, crdComponents({ group: r.group, version: r.version, kind: r.kind, listKind: r.listKind, schema: r.schema }));
    const kind = crdComponentName(r.group, r.version, r.kind);
    return { kind, list: listComponentName(kind, r.listKind) };
  });
  return { components: named, extra };
}

/** Adds the component names of every `#/components/schemas/…` reference found in a JSON value. */
export function collectRefs(value: unknown, into: Set<string>): Set<string> {
  if (Array.isArray(value)) {
    for (const v of value) collectRefs(v, into);
  } else if (typeof value === 'object' && value !== null) {
    for (const [k, v] of Object.entries(value)) {
      if (k === '$ref' && typeof v === 'string' && v.startsWith(componentsPrefix)) into.add(v.slice(componentsPrefix.length));
      else collectRefs(v, into);
    }
  }
  return into;
}

/** The named schemas and everything they reference, sorted by name. Throws on a dangling reference. */
export function referencedClosure(roots: Iterable<string>, lookup: (name: string) => JSONSchemaProps | undefined): Record<string, JSONSchemaProps> {
  const found = new Map<string, JSONSchemaProps>();
  const queue = [...roots];
  while (queue.length) {
    const name = queue.pop()!;
    if (found.has(name)) continue;
    const schema = lookup(name);
    if (!schema) throw new Error(`OpenAPI schema ${name} is referenced but not defined`);
    found.set(name, schema);
    for (const ref of collectRefs(schema, new Set())) if (!found.has(ref)) queue.push(ref);
  }
  return Object.fromEntries([...found.entries()].sort(([a], [b]) => compareStrings(a, b)));
}
