/**
 * Strategic merge patch, the `application/strategic-merge-patch+json` PATCH body that kubectl
 * sends for built-in kinds (`apply`, `edit`, `patch`, `cordon`). It is a JSON merge patch whose
 * lists follow the schema: a list with `x-kubernetes-patch-strategy: merge` merges its items by
 * `x-kubernetes-patch-merge-key` (or, for scalars, as a set); every other list is replaced.
 * Maps merge recursively and `null` deletes. The patch may carry directives:
 *
 * - `$patch: replace` (a map is replaced by the rest of the patch map; in a list, an element
 *   `{"$patch": "replace"}` replaces the whole list by the other elements), `$patch: delete`
 *   (a map is removed; a list element removes the items with its merge key), `$patch: merge`
 *   (the default, accepted and ignored);
 * - `$retainKeys: [...]` drops every key of the map not listed;
 * - `$deleteFromPrimitiveList/<field>: [...]` removes those values from a scalar list;
 * - `$setElementOrder/<field>: [...]` gives the order of the resulting list.
 *
 * Items keep kube's order: patched items in patch order (or `$setElementOrder`), interleaved
 * with the items only the server had, in their server order. Malformed directives are 400
 * BadRequest; a `$retainKeys` list that omits a key the patch sets is 422 Invalid.
 */
import type { JSONSchemaProps, SchemaResolver } from '../../api/schema.ts';
import { ApiError, errors } from '../errors.ts';
import { canonicalJson, deepEqual, describeType, getKey, isObject, setKey, type JsonObject } from './json-value.ts';
import { itemSchema, patchMeta, propertySchema, rootSchema, type Schema } from './schema-nav.ts';

const directiveMarker = '$patch';
const retainKeysDirective = '$retainKeys';
const setElementOrderPrefix = '$setElementOrder/';
const deleteFromPrimitiveListPrefix = '$deleteFromPrimitiveList/';

/** Marks a map removed by `$patch: delete`. */
const DELETED = Symbol('deleted');
type Merged = JsonObject | typeof DELETED;

interface Walk {
  readonly resolve: SchemaResolver;
}

/** What the patch says about one list field: its new items and its directives. */
interface ListPatch {
  items?: unknown[];
  deletions?: unknown[];
  order?: unknown[];
}

/**
 * Applies `patch` to `original` following `schema` (resolved through `resolve`) and returns
 * the result; neither input is modified, and the result shares nothing with them.
 */
export function applyStrategicMergePatch(original: unknown, patch: unknown, schema: JSONSchemaProps, resolve: SchemaResolver): JsonObject {
  if (!isObject(patch)) throw errors.badRequest(`a strategic merge patch must be a JSON object, got ${describeType(patch)}`);
  const walk: Walk = { resolve };
  const base = isObject(original) ? structuredClone(original) : {};
  const result = mergeMap(base, structuredClone(patch), rootSchema(schema, resolve), walk, '');
  return result === DELETED ? {} : result;
}

function at(path: string): string {
  return path ? ` at ${path}` : '';
}

function join(path: string, key: string): string {
  return path ? `${path}.${key}` : key;
}

function unknownDirective(value: unknown, where: string): ApiError {
  return errors.badRequest(`unknown patch type: ${JSON.stringify(value)}${at(where)}; $patch must be "replace", "merge" or "delete"`);
}

function requireList(value: unknown, key: string, path: string): unknown[] {
  if (!Array.isArray(value)) throw errors.badRequest(`invalid patch format: ${key}${at(path)} must be a list, got ${describeType(value)}`);
  return value;
}

function without(map: JsonObject, key: string): JsonObject {
  const { [key]: _dropped, ...rest } = map;
  return rest;
}

function isDirectiveKey(key: string): boolean {
  return key === directiveMarker || key === retainKeysDirective || key.startsWith(setElementOrderPrefix) || key.startsWith(deleteFromPrimitiveListPrefix);
}

/** Merges `patch` into `original` (a private copy, changed in place; undefined when the map is new). */
function mergeMap(original: JsonObject | undefined, patch: JsonObject, schema: Schema, walk: Walk, path: string): Merged {
  if (Object.hasOwn(patch, directiveMarker)) {
    const directive = patch[directiveMarker];
    if (directive === 'delete') return DELETED;
    if (directive === 'replace') return mergeMap(undefined, without(patch, directiveMarker), schema, walk, path);
    if (directive !== 'merge') throw unknownDirective(directive, path);
    patch = without(patch, directiveMarker);
  }
  const out: JsonObject = original ?? {};
  if (Object.hasOwn(patch, retainKeysDirective)) applyRetainKeys(out, patch, path);

  const lists = new Map<string, ListPatch>();
  const listPatch = (field: string): ListPatch => {
    let entry = lists.get(field);
    if (!entry) lists.set(field, (entry = {}));
    return entry;
  };
  for (const [key, value] of Object.entries(patch)) {
    if (value === undefined || key === retainKeysDirective) continue;
    if (key.startsWith(setElementOrderPrefix)) {
      listPatch(key.slice(setElementOrderPrefix.length)).order = requireList(value, key, path);
      continue;
    }
    if (key.startsWith(deleteFromPrimitiveListPrefix)) {
      listPatch(key.slice(deleteFromPrimitiveListPrefix.length)).deletions = requireList(value, key, path);
      continue;
    }
    if (value === null) {
      delete out[key];
      continue;
    }
    if (Array.isArray(value)) {
      listPatch(key).items = value;
      continue;
    }
    if (isObject(value)) {
      const fieldSchema = propertySchema(schema, key, walk.resolve);
      const current = getKey(out, key);
      const replace = patchMeta(fieldSchema).replace;
      const merged = mergeMap(!replace && isObject(current) ? current : undefined, value, fieldSchema, walk, join(path, key));
      if (merged === DELETED) delete out[key];
      else setKey(out, key, merged);
      continue;
    }
    setKey(out, key, value);
  }

  for (const [field, change] of lists) {
    const current = getKey(out, field);
    if (change.items === undefined && !Array.isArray(current)) continue;
    const fieldPath = join(path, field);
    const merged = mergeList(Array.isArray(current) ? current : undefined, change, propertySchema(schema, field, walk.resolve), walk, fieldPath);
    setKey(out, field, merged);
  }
  return out;
}

function applyRetainKeys(out: JsonObject, patch: JsonObject, path: string): void {
  const listed = patch[retainKeysDirective];
  if (!Array.isArray(listed) || !listed.every((k) => typeof k === 'string')) {
    throw errors.badRequest(`invalid patch format: ${retainKeysDirective}${at(path)} must be a list of strings, got ${JSON.stringify(listed)}`);
  }
  const retained = new Set<string>(listed);
  for (const [key, value] of Object.entries(patch)) {
    if (value === null || isDirectiveKey(key)) continue;
    if (!retained.has(key)) {
      const message = `the patch sets ${JSON.stringify(key)}${at(path)}, which is not in its ${retainKeysDirective} list ${JSON.stringify(listed)}`;
      throw new ApiError(422, 'Invalid', message, { causes: [{ reason: 'FieldValueInvalid', message, field: join(path, key) }] });
    }
  }
  for (const key of Object.keys(out)) if (!retained.has(key)) delete out[key];
}

/** A value that enters the result without anything to merge with: directives are applied, nulls dropped. */
function fresh(value: unknown, schema: Schema, walk: Walk, path: string): unknown {
  if (isObject(value)) return mergeMap(undefined, value, schema, walk, path);
  return value;
}

function mergeList(original: unknown[] | undefined, change: ListPatch, schema: Schema, walk: Walk, path: string): unknown[] {
  const meta = patchMeta(schema);
  const items = itemSchema(schema, walk.resolve);
  const base = original ?? [];
  let merged = base;
  let identity: (item: unknown) => string = canonicalJson;

  if (change.items !== undefined) {
    if (!meta.merge) {
      merged = change.items.map((item, i) => fresh(item, items, walk, `${path}[${i}]`)).filter((item) => item !== DELETED);
    } else {
      const result = meta.mergeKey
        ? mergeKeyedList(original, change.items, meta.mergeKey, items, walk, path)
        : mergeScalarList(base, change.items, path);
      if (meta.mergeKey) identity = keyIdentity(meta.mergeKey);
      // The server's order is that of the list after deletions: what the patch touched follows the patch.
      merged = normalizeOrder(result.merged, result.patchOrder, result.serverOrder, identity);
    }
  } else if (meta.mergeKey) {
    identity = keyIdentity(meta.mergeKey);
  }

  if (change.order !== undefined) {
    if (meta.mergeKey) checkOrderList(change.order, meta.mergeKey, path);
    checkPatchFollowsOrder(change.items ?? [], change.order, identity, path);
    merged = normalizeOrder(merged, change.order, base, identity);
  }
  if (change.deletions !== undefined) {
    const deletions = change.deletions;
    merged = merged.filter((item) => !deletions.some((d) => deepEqual(d, item)));
  }
  return merged;
}

function keyIdentity(mergeKey: string): (item: unknown) => string {
  return (item) => (isObject(item) ? `k${canonicalJson(item[mergeKey])}` : `v${canonicalJson(item)}`);
}

interface ListMerge {
  merged: unknown[];
  /** The patch's own items, in patch order. */
  patchOrder: unknown[];
  /** The server's items after `$patch` deletions. */
  serverOrder: unknown[];
}

function noMergeKey(item: JsonObject, mergeKey: string, path: string): ApiError {
  return errors.badRequest(`map: ${JSON.stringify(item)}${at(path)} does not contain declared merge key: ${mergeKey}`);
}

function mergeKeyedList(original: unknown[] | undefined, patch: unknown[], mergeKey: string, schema: Schema, walk: Walk, path: string): ListMerge {
  let server = [...(original ?? [])];
  let replace = false;
  const regular: JsonObject[] = [];
  patch.forEach((element, i) => {
    if (!isObject(element)) throw errors.badRequest(`${path}[${i}]: a list merged by ${JSON.stringify(mergeKey)} must hold objects, got ${describeType(element)}`);
    if (!Object.hasOwn(element, directiveMarker)) {
      regular.push(element);
      return;
    }
    const directive = element[directiveMarker];
    if (directive === 'delete') {
      if (!Object.hasOwn(element, mergeKey)) throw noMergeKey(element, mergeKey, path);
      server = server.filter((item) => !(isObject(item) && deepEqual(item[mergeKey], element[mergeKey])));
    } else if (directive === 'replace') {
      replace = true;
    } else if (directive === 'merge') {
      const rest = without(element, directiveMarker);
      if (Object.keys(rest).length) regular.push(rest);
    } else {
      throw unknownDirective(directive, `${path}[${i}]`);
    }
  });
  if (replace) server = [];
  const serverOrder = [...server];
  const merged = [...server];
  for (const element of regular) {
    if (!Object.hasOwn(element, mergeKey)) {
      // A new list (nothing to match against) takes such items as they are; validation judges them.
      if (original === undefined || replace) {
        const item = fresh(element, schema, walk, path);
        if (item !== DELETED) merged.push(item);
        continue;
      }
      throw noMergeKey(element, mergeKey, path);
    }
    const index = merged.findIndex((item) => isObject(item) && deepEqual(item[mergeKey], element[mergeKey]));
    const item = mergeMap(index >= 0 ? (merged[index] as JsonObject) : undefined, element, schema, walk, `${path}[${mergeKey}=${canonicalJson(element[mergeKey])}]`);
    if (index >= 0) {
      if (item === DELETED) merged.splice(index, 1);
      else merged[index] = item;
    } else if (item !== DELETED) {
      merged.push(item);
    }
  }
  return { merged, patchOrder: regular, serverOrder };
}

function mergeScalarList(base: unknown[], patch: unknown[], path: string): ListMerge {
  let replace = false;
  const regular: unknown[] = [];
  patch.forEach((element, i) => {
    if (isObject(element) && Object.hasOwn(element, directiveMarker)) {
      const directive = element[directiveMarker];
      if (directive === 'replace') replace = true;
      else if (directive === 'delete') throw errors.badRequest(`${path}[${i}]: $patch: delete needs a merge key, and this list has none; use ${deleteFromPrimitiveListPrefix}<field>`);
      else if (directive !== 'merge') throw unknownDirective(directive, `${path}[${i}]`);
      return;
    }
    if (isObject(element) || Array.isArray(element)) {
      throw errors.badRequest(`${path}[${i}]: cannot merge lists without merge key (got ${describeType(element)})`);
    }
    regular.push(element);
  });
  const server = replace ? [] : base;
  const merged: unknown[] = [];
  const seen = new Set<string>();
  for (const item of [...server, ...regular]) {
    const id = canonicalJson(item);
    if (seen.has(id)) continue;
    seen.add(id);
    merged.push(item);
  }
  return { merged, patchOrder: regular, serverOrder: server };
}

function checkOrderList(order: unknown[], mergeKey: string, path: string): void {
  for (const item of order) {
    if (!isObject(item)) throw errors.badRequest(`invalid patch format: ${setElementOrderPrefix}${path} must hold objects with ${JSON.stringify(mergeKey)}, got ${describeType(item)}`);
    if (!Object.hasOwn(item, mergeKey)) throw noMergeKey(item, mergeKey, path);
  }
}

/** The patch's items must appear in the `$setElementOrder` list, in the same relative order. */
function checkPatchFollowsOrder(items: unknown[], order: unknown[], identity: (item: unknown) => string, path: string): void {
  const listed = items.filter((item) => !(isObject(item) && Object.hasOwn(item, directiveMarker)));
  let o = 0;
  for (const item of listed) {
    const id = identity(item);
    while (o < order.length && identity(order[o]) !== id) o++;
    if (o === order.length) {
      throw errors.badRequest(`the order of the patch list ${JSON.stringify(items)}${at(path)} does not match its ${setElementOrderPrefix} list ${JSON.stringify(order)}`);
    }
    o++;
  }
}

/**
 * Orders `merged` as kube does: the items named in `order` sorted by it, the other (server-only)
 * items sorted by `serverOrder`, then the two interleaved, a server-only item going first only
 * when the server also had the next patched item and had it later.
 */
function normalizeOrder(merged: unknown[], order: unknown[], serverOrder: unknown[], identity: (item: unknown) => string): unknown[] {
  const indexIn = (list: unknown[]): Map<string, number> => {
    const index = new Map<string, number>();
    list.forEach((item, i) => {
      const id = identity(item);
      if (!index.has(id)) index.set(id, i);
    });
    return index;
  };
  const orderIndex = indexIn(order);
  const serverIndex = indexIn(serverOrder);
  const byIndex = (index: Map<string, number>) => (a: unknown, b: unknown) => (index.get(identity(a)) ?? Infinity) - (index.get(identity(b)) ?? Infinity);
  const patched = merged.filter((item) => orderIndex.has(identity(item))).sort(byIndex(orderIndex));
  const serverOnly = merged.filter((item) => !orderIndex.has(identity(item))).sort(byIndex(serverIndex));

  const out: unknown[] = [];
  let i = 0;
  let j = 0;
  while (i < serverOnly.length || j < patched.length) {
    if (j >= patched.length) out.push(serverOnly[i++]);
    else if (i >= serverOnly.length) out.push(patched[j++]);
    else {
      const left = serverIndex.get(identity(serverOnly[i]));
      const right = serverIndex.get(identity(patched[j]));
      if (left !== undefined && right !== undefined && left < right) out.push(serverOnly[i++]);
      else out.push(patched[j++]);
    }
  }
  return out;
}
