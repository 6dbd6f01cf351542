/**
 * The two object transformations of server-side apply: merging an applied configuration into
 * the live object, and removing what an applier stopped applying. Merging follows the schema
 * as structured-merge-diff does: maps merge key by key, map-lists merge items by their key
 * fields, set-lists unite their values, atomic lists and maps are replaced, scalars are
 * overwritten; `null` in the configuration removes the field. Items keep the live order, with
 * the applied items in applied order. Removal takes out each field the applier owned before
 * and no manager (the applier's new configuration included) owns now.
 */
import type { SchemaResolver } from '../../api/schema.ts';
import type { FieldNode, FieldPath, FieldSet, PathElement } from './field-set.ts';
import { getKey, isObject, setKey, type JsonObject } from './json-value.ts';
import { itemElement } from './object-fields.ts';
import { isAtomicMap, itemSchema, listSemantics, propertySchema, type ListSemantics, type Schema } from './schema-nav.ts';

/**
 * `live` merged with `applied`. Both must be private copies: the result is built from their parts
 * and may share them.
 */
export function mergeApplied(live: unknown, applied: unknown, schema: Schema, resolve: SchemaResolver): unknown {
  if (applied === undefined) return live;
  if (isObject(applied)) {
    if (isAtomicMap(schema)) return applied;
    const out: JsonObject = isObject(live) ? live : {};
    for (const [key, value] of Object.entries(applied)) {
      if (value === undefined) continue;
      if (value === null) delete out[key];
      else setKey(out, key, mergeApplied(getKey(out, key), value, propertySchema(schema, key, resolve), resolve));
    }
    return out;
  }
  if (Array.isArray(applied)) {
    const list = listSemantics(schema, resolve);
    if (list.type === 'atomic') return applied;
    return mergeList(Array.isArray(live) ? live : [], applied, list, itemSchema(schema, resolve), resolve);
  }
  return applied;
}

/**
 * Orders items as structured-merge-diff does: walking both lists, a live item the configuration
 * does not mention is kept where the walk meets it; the configuration's items come in its order,
 * a shared item merged with its live counterpart, and a live item that the configuration moves
 * later is skipped until the configuration reaches it.
 */
function mergeList(live: unknown[], applied: unknown[], list: ListSemantics, schema: Schema, resolve: SchemaResolver): unknown[] {
  const liveIds = live.map((item, i) => itemElement(item, i, list, schema));
  const appliedIds = applied.map((item, i) => itemElement(item, i, list, schema));
  const liveById = new Map<PathElement, unknown>();
  liveIds.forEach((id, i) => {
    if (!liveById.has(id)) liveById.set(id, live[i]);
  });
  const inApplied = new Set(appliedIds);
  // The shared items, in the configuration's order; `shared[next]` is the one the walk waits for.
  const shared = appliedIds.filter((id) => liveById.has(id));
  let next = 0;
  const done = new Set<PathElement>();
  const out: unknown[] = [];
  const emitApplied = (j: number): void => {
    const id = appliedIds[j]!;
    if (done.has(id)) return;
    done.add(id);
    if (shared[next] === id) next++;
    const item = applied[j];
    out.push(list.type === 'set' ? item : mergeApplied(liveById.get(id), item, schema, resolve));
  };

  let i = 0;
  let j = 0;
  while (i < live.length || j < applied.length) {
    const liveId = liveIds[i];
    if (i < live.length && j < applied.length) {
      if (liveId === appliedIds[j]) {
        emitApplied(j++);
        i++;
        continue;
      }
      if (inApplied.has(liveId!) && next < shared.length && shared[next] !== liveId) {
        i++;
        continue;
      }
    }
    if (i < live.length) {
      if (!inApplied.has(liveId!)) {
        out.push(live[i++]);
        continue;
      }
      if (done.has(liveId!)) {
        i++;
        continue;
      }
    }
    if (j < applied.length) emitApplied(j++);
    else i++;
  }
  return out;
}

/**
 * Removes from `obj` (a private copy, changed in place) every field of `last` that `owned`
 * does not have; both sets must already have their named fields made members.
 */
export function pruneUnowned(obj: unknown, last: FieldSet, owned: FieldSet, schema: Schema, resolve: SchemaResolver): void {
  prune(obj, last.node, [], owned, schema, resolve);
}

function prune(value: unknown, node: FieldNode, path: FieldPath, owned: FieldSet, schema: Schema, resolve: SchemaResolver): void {
  if (!node.children.size) return;
  if (isObject(value)) {
    for (const [element, child] of node.children) {
      if (!element.startsWith('f:')) continue;
      const key = element.slice(2);
      if (!Object.hasOwn(value, key)) continue;
      const childPath = [...path, element];
      if (child.member && !owned.has(childPath)) delete value[key];
      else prune(value[key], child, childPath, owned, propertySchema(schema, key, resolve), resolve);
    }
    return;
  }
  if (Array.isArray(value)) {
    const list = listSemantics(schema, resolve);
    if (list.type === 'atomic') return;
    const items = itemSchema(schema, resolve);
    const remove = new Set<number>();
    value.forEach((item, i) => {
      const element = itemElement(item, i, list, items);
      const child = node.children.get(element);
      if (!child) return;
      const childPath = [...path, element];
      if (child.member && !owned.has(childPath)) remove.add(i);
      else prune(item, child, childPath, owned, items, resolve);
    });
    if (remove.size) {
      const kept = value.filter((_, i) => !remove.has(i));
      value.splice(0, value.length, ...kept);
    }
  }
}
