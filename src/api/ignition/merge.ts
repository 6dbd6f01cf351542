/**
 * Ignition's merge (coreos/ignition `config/merge`): how a pointer config combines with the
 * configs it names, and how the MCO layers MachineConfigs. Objects merge field by field; a
 * field the child leaves unset keeps the parent's value, a set one wins. Keyed lists merge
 * entry by entry — files, directories and links by `path` (one key space: a child directory at a
 * parent file's path replaces the file), units, drop-ins, users and groups by `name`, config
 * references and CAs by `source` — and entries only one side has are kept in order, parent's
 * first. Lists of plain values (ssh keys, kernel arguments) are unions; `append[]` lists
 * concatenate. An HTTP header whose child value is `null` removes the parent's header.
 */
import { isObject } from './shape.ts';
import type { IgnitionConfig } from './types.ts';

type Obj = Record<string, unknown>;

/** Lists whose entries are matched by a field. Paths are property names without indexes. */
const keyFields: Record<string, string> = {
  'ignition.config.merge': 'source',
  'ignition.security.tls.certificateAuthorities': 'source',
  'storage.files': 'path',
  'storage.directories': 'path',
  'storage.links': 'path',
  'storage.disks': 'device',
  'storage.filesystems': 'device',
  'storage.raid': 'name',
  'storage.luks': 'name',
  'systemd.units': 'name',
  'systemd.units.dropins': 'name',
  'passwd.users': 'name',
  'passwd.groups': 'name',
};

/** Lists that share one key space within their parent object. */
const sharedHandles: Record<string, string> = {
  'storage.files': 'storage.nodes',
  'storage.directories': 'storage.nodes',
  'storage.links': 'storage.nodes',
};

const concatenated = new Set(['storage.files.append']);

export function merge(parent: IgnitionConfig, child: IgnitionConfig): IgnitionConfig {
  return mergeObject(parent as unknown as Obj, child as unknown as Obj, '') as unknown as IgnitionConfig;
}

function fieldPath(at: string, key: string): string {
  return at ? `${at}.${key}` : key;
}

function keyOf(item: unknown, path: string): string {
  const field = keyFields[path] ?? (path.endsWith('.httpHeaders') ? 'name' : undefined);
  if (field && isObject(item)) return String(item[field] ?? '');
  return JSON.stringify(item);
}

function handleOf(path: string): string {
  return sharedHandles[path] ?? path;
}

interface ChildEntry {
  readonly list: string;
  readonly item: unknown;
}

/** Every keyed child entry of `child`'s lists, by handle and key, as Ignition's structInfo does. */
function indexChildren(child: Obj, at: string): Map<string, ChildEntry> {
  const index = new Map<string, ChildEntry>();
  for (const [key, value] of Object.entries(child)) {
    const path = fieldPath(at, key);
    if (!Array.isArray(value) || concatenated.has(path)) continue;
    for (const item of value) index.set(`${handleOf(path)}\u0000${keyOf(item, path)}`, { list: key, item });
  }
  return index;
}

function mergeObject(parent: Obj, child: Obj, at: string): Obj {
  const out: Obj = {};
  const index = indexChildren(child, at);
  const keys = new Set([...Object.keys(parent), ...Object.keys(child)]);
  for (const key of keys) {
    const p = parent[key];
    const c = child[key];
    const path = fieldPath(at, key);
    let merged: unknown;
    if (Array.isArray(p) || Array.isArray(c)) {
      merged = mergeList(asList(p), asList(c), path, key, index);
      if ((merged as unknown[]).length === 0) continue;
    } else if (c === undefined) merged = structuredClone(p);
    else if (p === undefined) merged = structuredClone(c);
    else if (isObject(p) && isObject(c)) merged = mergeObject(p, c, path);
    else merged = structuredClone(c);
    if (merged !== undefined) out[key] = merged;
  }
  return out;
}

function asList(v: unknown): unknown[] {
  return Array.isArray(v) ? v : [];
}

function mergeList(parent: unknown[], child: unknown[], path: string, field: string, index: Map<string, ChildEntry>): unknown[] {
  if (concatenated.has(path)) return structuredClone([...parent, ...child]);
  const out: unknown[] = [];
  const parentKeys = new Set<string>();
  for (const item of parent) {
    const key = keyOf(item, path);
    parentKeys.add(key);
    const match = index.get(`${handleOf(path)}\u0000${key}`);
    if (!match) {
      out.push(structuredClone(item));
      continue;
    }
    // Matched in a sibling list (a file replaced by a directory): that list keeps the child's entry.
    if (match.list !== field) continue;
    if (path.endsWith('.httpHeaders') && isObject(match.item) && match.item.value === null) continue;
    out.push(isObject(item) && isObject(match.item) ? mergeObject(item, match.item, path) : structuredClone(match.item));
  }
  for (const item of child) {
    if (!parentKeys.has(keyOf(item, path))) out.push(structuredClone(item));
  }
  return out;
}
