/**
 * The schema-aware views of an object that managedFields are computed from: which fields an
 * object sets (what an applier comes to own), what changed between two versions of an object
 * (what an update takes over), and how items of associative lists are named. Lists follow
 * their list semantics (map items by key fields, set items by value, atomic lists as one
 * field), `x-kubernetes-map-type: atomic` maps are one field, and parts the schema does not
 * describe are granular maps with atomic lists, as structured-merge-diff deduces them.
 */
import type { SchemaResolver } from '../../api/schema.ts';
import { compareElements, fieldElement, FieldSet, formatPath, indexElement, keyElement, valueElement, type FieldNode, type FieldPath, type PathElement } from './field-set.ts';
import { deepEqual, getKey, isObject, type JsonObject } from './json-value.ts';
import { isAtomicMap, isNamedField, itemSchema, listSemantics, propertySchema, type ListSemantics, type Schema } from './schema-nav.ts';

/** The key fields of a map-list item (a missing key falls back to its schema default); undefined when one is missing. */
export function itemKey(item: unknown, keys: readonly string[], schema: Schema): JsonObject | undefined {
  if (!isObject(item)) return undefined;
  const fields: JsonObject = {};
  for (const key of keys) {
    const value = Object.hasOwn(item, key) ? item[key] : schema?.properties?.[key]?.default;
    if (value === undefined || value === null) return undefined;
    fields[key] = value;
  }
  return fields;
}

/**
 * The path element of a list item. Items of a map-list without their keys (only possible in
 * stored objects; applied configurations are checked first) are named by index.
 */
export function itemElement(item: unknown, index: number, list: ListSemantics, schema: Schema): PathElement {
  if (list.type === 'set') return valueElement(item);
  if (list.type === 'map') {
    const key = itemKey(item, list.keys, schema);
    if (key) return keyElement(key);
  }
  return indexElement(index);
}

/**
 * What an applied configuration owns (structured-merge-diff's `ToFieldSet`): every scalar, atomic
 * list and atomic map; every list item; and a map entry itself when it is null, an empty map, or
 * not a declared property.
 */
export function fieldSetOf(value: unknown, schema: Schema, resolve: SchemaResolver): FieldSet {
  const set = FieldSet.empty();
  const visit = (v: unknown, s: Schema, path: PathElement[]): void => {
    if (Array.isArray(v)) {
      const list = listSemantics(s, resolve);
      if (list.type === 'atomic') {
        set.insert(path);
        return;
      }
      const items = itemSchema(s, resolve);
      v.forEach((item, i) => {
        const itemPath = [...path, itemElement(item, i, list, items)];
        visit(item, items, itemPath);
        set.insert(itemPath);
      });
    } else if (isObject(v)) {
      if (isAtomicMap(s)) {
        set.insert(path);
        return;
      }
      for (const [key, child] of Object.entries(v)) {
        if (child === undefined) continue;
        const childPath = [...path, fieldElement(key)];
        visit(child, propertySchema(s, key, resolve), childPath);
        if (child === null || (isObject(child) && !Object.keys(child).length) || !isNamedField(s, key)) set.insert(childPath);
      }
    } else {
      set.insert(path);
    }
  };
  visit(value, schema, []);
  return set;
}

export interface Comparison {
  /** Fields (and the maps and items holding them) present only after. */
  readonly added: FieldSet;
  /** Leaf fields (scalars, atomic lists and maps) present in both with different values. */
  readonly modified: FieldSet;
  /** Fields present only before. */
  readonly removed: FieldSet;
}

type Shape = 'object' | 'list' | 'scalar';

function shapeOf(value: unknown): Shape {
  return Array.isArray(value) ? 'list' : isObject(value) ? 'object' : 'scalar';
}

function isEmptyContainer(value: unknown): boolean {
  return Array.isArray(value) ? value.length === 0 : isObject(value) ? Object.keys(value).length === 0 : false;
}

/** Indexes list items by path element; the first of duplicated items wins. */
function indexItems(list: unknown[], semantics: ListSemantics, schema: Schema): Map<PathElement, unknown> {
  const out = new Map<PathElement, unknown>();
  list.forEach((item, i) => {
    const element = itemElement(item, i, semantics, schema);
    if (!out.has(element)) out.set(element, item);
  });
  return out;
}

/** Structured-merge-diff's `Compare` between two versions of an object. */
export function compareObjects(before: unknown, after: unknown, schema: Schema, resolve: SchemaResolver): Comparison {
  const added = FieldSet.empty();
  const modified = FieldSet.empty();
  const removed = FieldSet.empty();

  // Marks `value` and everything under it as `into` (all added, or all removed).
  const all = (value: unknown, s: Schema, path: PathElement[], into: FieldSet): void => {
    into.insert(path);
    if (isEmptyContainer(value)) return;
    if (Array.isArray(value)) {
      const list = listSemantics(s, resolve);
      if (list.type === 'atomic') return;
      const items = itemSchema(s, resolve);
      for (const [element, item] of indexItems(value, list, items)) all(item, items, [...path, element], into);
    } else if (isObject(value) && !isAtomicMap(s)) {
      for (const [key, child] of Object.entries(value)) {
        if (child !== undefined) all(child, propertySchema(s, key, resolve), [...path, fieldElement(key)], into);
      }
    }
  };

  const visit = (l: unknown, r: unknown, s: Schema, path: PathElement[]): void => {
    if (l === undefined && r === undefined) return;
    if (l === undefined) return all(r, s, path, added);
    if (r === undefined) return all(l, s, path, removed);
    const shape = shapeOf(r);
    if (shape !== shapeOf(l)) {
      modified.insert(path);
      for (const [side, into] of [[l, removed], [r, added]] as const) {
        if (shapeOf(side) === 'scalar') continue;
        // The children of each side appear or disappear; the node itself was modified.
        const inner = FieldSet.empty();
        all(side, s, path, inner);
        for (const p of inner.paths()) if (p.length > path.length) into.insert(p);
      }
      return;
    }
    const leaf =
      shape === 'scalar' ||
      (isEmptyContainer(l) && isEmptyContainer(r)) ||
      (shape === 'object' && isAtomicMap(s)) ||
      (shape === 'list' && listSemantics(s, resolve).type === 'atomic');
    if (leaf) {
      if (!deepEqual(l, r)) modified.insert(path);
      return;
    }
    if (shape === 'object') {
      const lo = l as JsonObject;
      const ro = r as JsonObject;
      for (const key of new Set([...Object.keys(lo), ...Object.keys(ro)])) {
        visit(getKey(lo, key), getKey(ro, key), propertySchema(s, key, resolve), [...path, fieldElement(key)]);
      }
      return;
    }
    const list = listSemantics(s, resolve);
    const items = itemSchema(s, resolve);
    const left = indexItems(l as unknown[], list, items);
    const right = indexItems(r as unknown[], list, items);
    for (const element of new Set([...left.keys(), ...right.keys()])) {
      visit(left.get(element), right.get(element), items, [...path, element]);
    }
  };

  visit(before, after, schema, []);
  return { added, modified, removed };
}

/**
 * The `fieldsV1` of everything `value` sets, as a member node: what `compareObjects`' `added`
 * holds under a value that is new (every node a member: maps, list items and leaves; empty
 * containers, atomic lists and atomic maps as leaves), encoded as `FieldSet.toFieldsV1` encodes
 * it, without building the set.
 */
function addedFieldsV1(value: unknown, s: Schema, resolve: SchemaResolver): JsonObject {
  const out: JsonObject = {};
  if (isEmptyContainer(value)) return out;
  const children: Array<[PathElement, JsonObject]> = [];
  if (Array.isArray(value)) {
    const list = listSemantics(s, resolve);
    if (list.type === 'atomic') return out;
    const items = itemSchema(s, resolve);
    const seen = new Set<PathElement>();
    for (let i = 0; i < value.length; i++) {
      const element = itemElement(value[i], i, list, items);
      // The first of duplicated items wins, as in indexItems.
      if (seen.has(element)) continue;
      seen.add(element);
      children.push([element, addedFieldsV1(value[i], items, resolve)]);
    }
    children.sort(([a], [b]) => compareElements(a, b));
  } else if (isObject(value) && !isAtomicMap(s)) {
    // Field elements share their `f:` prefix: their order is their names' order.
    for (const key of Object.keys(value).sort()) {
      const child = value[key];
      if (child !== undefined) children.push([fieldElement(key), addedFieldsV1(child, propertySchema(s, key, resolve), resolve)]);
    }
  } else {
    return out;
  }
  if (children.length) out['.'] = {};
  for (const [element, child] of children) out[element] = child;
  return out;
}

/** Whether a value, were it new, would put paths below its own node (a non-empty container). */
function hasChildren(value: unknown): boolean {
  return (Array.isArray(value) || isObject(value)) && !isEmptyContainer(value);
}

/**
 * The `fieldsV1` a create's single manager owns (the create fast path of managed-fields.ts),
 * computed straight from the object: `compareObjects({}, obj).added` without the fields nobody
 * owns (`apiVersion`, `kind`, `metadata` itself and its identity fields, given as
 * `unownedMetadata`) and without `metadata.managedFields`, encoded. Undefined for an object
 * this does not cover (an unowned field holding a map or list, `metadata` not a map), which the
 * general path handles.
 */
export function createdFieldsV1(obj: JsonObject, schema: Schema, resolve: SchemaResolver, unownedMetadata: ReadonlySet<string>): JsonObject | undefined {
  const out: JsonObject = {};
  for (const key of Object.keys(obj).sort()) {
    const value = obj[key];
    if (value === undefined) continue;
    if (key === 'apiVersion' || key === 'kind') {
      if (hasChildren(value)) return undefined;
      continue;
    }
    const s = propertySchema(schema, key, resolve);
    if (key !== 'metadata') {
      out[fieldElement(key)] = addedFieldsV1(value, s, resolve);
      continue;
    }
    if (!hasChildren(value)) continue;
    if (!isObject(value) || isAtomicMap(s)) return undefined;
    // metadata is no member: no "." of its own, only what is under it.
    const meta: JsonObject = {};
    for (const field of Object.keys(value).sort()) {
      const child = value[field];
      if (child === undefined || field === 'managedFields') continue;
      if (unownedMetadata.has(field)) {
        if (hasChildren(child)) return undefined;
        continue;
      }
      meta[fieldElement(field)] = addedFieldsV1(child, propertySchema(s, field, resolve), resolve);
    }
    if (Object.keys(meta).length) out[fieldElement('metadata')] = meta;
  }
  return out;
}

/**
 * The set with every declared property on its paths made a member too (structured-merge-diff's
 * `EnsureNamedFieldsAreMembers`), so that owning `spec.replicas` also counts as owning `spec`
 * when deciding what an applier's omission removes, while map keys and list items stay as they are.
 */
export function ensureNamedFieldsAreMembers(set: FieldSet, schema: Schema, resolve: SchemaResolver): FieldSet {
  const out = FieldSet.empty();
  const visit = (node: FieldNode, s: Schema, path: PathElement[]): void => {
    for (const [element, child] of node.children) {
      const childPath = [...path, element];
      const isField = element.startsWith('f:');
      const name = element.slice(2);
      if (child.member || (isField && isNamedField(s, name))) out.insert(childPath);
      visit(child, isField ? propertySchema(s, name, resolve) : itemSchema(s, resolve), childPath);
    }
  };
  visit(set.node, schema, []);
  return out;
}

/**
 * Checks the lists of an applied configuration the way apply's typed conversion does: every
 * map-list item carries its keys, and no two items (or set values) share an identity. Returns
 * the problem, or undefined.
 */
export function checkAppliedLists(value: unknown, schema: Schema, resolve: SchemaResolver): string | undefined {
  const visit = (v: unknown, s: Schema, path: FieldPath): string | undefined => {
    if (Array.isArray(v)) {
      const list = listSemantics(s, resolve);
      if (list.type === 'atomic') return undefined;
      const items = itemSchema(s, resolve);
      const seen = new Set<string>();
      for (let i = 0; i < v.length; i++) {
        const item = v[i];
        if (list.type === 'map' && !itemKey(item, list.keys, items)) {
          const missing = list.keys.find((k) => !isObject(item) || item[k] === undefined || item[k] === null) ?? list.keys[0];
          return `${printPath(path)}: element ${i}: associative list with keys has an element that omits key field ${JSON.stringify(missing)} (and doesn't have default value)`;
        }
        const element = itemElement(item, i, list, items);
        if (seen.has(element)) return `${printPath(path)}: duplicate entries for key ${element.slice(2)}`;
        seen.add(element);
        const problem = visit(item, items, [...path, element]);
        if (problem) return problem;
      }
      return undefined;
    }
    if (isObject(v) && !isAtomicMap(s)) {
      for (const [key, child] of Object.entries(v)) {
        const problem = visit(child, propertySchema(s, key, resolve), [...path, fieldElement(key)]);
        if (problem) return problem;
      }
    }
    return undefined;
  };
  return visit(value, schema, []);
}

function printPath(path: FieldPath): string {
  return formatPath(path) || '.';
}
