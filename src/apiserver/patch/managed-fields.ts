/**
 * `metadata.managedFields`: who owns which fields of an object. This module decodes and
 * encodes the entries (`{manager, operation, apiVersion, time, fieldsType: "FieldsV1",
 * fieldsV1, subresource?}`) into per-manager field sets, and computes them for every write that
 * is not an apply (create, update, patch): the writer's `Update` entry gains the fields it
 * changed or added, every other entry loses those fields and the ones it removed, and entries
 * left empty are dropped. Server-side apply (server-side-apply.ts) builds on the same pieces.
 *
 * As in kube-apiserver: managers are told apart by name, operation, subresource and (for
 * Update only) apiVersion; the identity and bookkeeping fields of metadata (name, uid,
 * resourceVersion, generation, managedFields...) are never owned; a request may replace the
 * entries (a non-empty list) or reset them (`[]` or `[{}]`), except on a subresource; entries
 * are sorted (Apply before Update, then by time, manager, apiVersion, subresource); and more
 * than ten Update entries fold the oldest into `ancient-changes`.
 */
import { formatTimestamp } from '../../api/time.ts';
import { noRefs, type JSONSchemaProps, type SchemaResolver } from '../../api/schema.ts';
import type { KubeObject } from '../registry/resource.ts';
import { fieldElement, FieldSet, type FieldPath } from './field-set.ts';
import { isObject, type JsonObject } from './json-value.ts';
import { compareObjects, createdFieldsV1, type Comparison } from './object-fields.ts';
import { rootSchema } from './schema-nav.ts';

export type ManagedFieldsOperation = 'Apply' | 'Update';

export interface ManagedFieldsEntry {
  manager: string;
  operation: ManagedFieldsOperation;
  apiVersion: string;
  time?: string;
  fieldsType: 'FieldsV1';
  fieldsV1: JsonObject;
  subresource?: string;
}

/** One manager's entry, decoded. */
export interface ManagerFields {
  readonly manager: string;
  readonly operation: ManagedFieldsOperation;
  readonly apiVersion: string;
  readonly subresource?: string;
  readonly time?: string;
  readonly fields: FieldSet;
}

/** Managers by identity (see `managerIdentity`), in no particular order. */
export type Managers = Map<string, ManagerFields>;

/** Paths of top-level fields, e.g. `[['status']]`, that a write must neither own nor take (kube's reset fields). */
export type ResetFields = readonly (readonly string[])[];

/** Update entries kept before the oldest fold into `ancient-changes` (kube's DefaultMaxUpdateManagers). */
export const maxUpdateManagers = 10;
export const ancientChangesManager = 'ancient-changes';
export const beforeFirstApplyManager = 'before-first-apply';

/** The key kube uses to tell managers apart: an Apply entry keeps its identity across apiVersions. */
export function managerIdentity(m: Pick<ManagerFields, 'manager' | 'operation' | 'apiVersion' | 'subresource'>): string {
  const id: JsonObject = { manager: m.manager, operation: m.operation };
  if (m.operation === 'Update') id.apiVersion = m.apiVersion;
  if (m.subresource) id.subresource = m.subresource;
  return JSON.stringify(id);
}

/** `"kubectl"`, `"kube-scheduler" with subresource "status" using v1`: how conflict messages name a manager. */
export function describeManager(m: Pick<ManagerFields, 'manager' | 'operation' | 'apiVersion' | 'subresource'>): string {
  let out = JSON.stringify(m.manager);
  if (m.subresource) out += ` with subresource ${JSON.stringify(m.subresource)}`;
  if (m.operation === 'Update') out += ` using ${m.apiVersion}`;
  return out;
}

/** RFC 3339 in whole seconds, as metav1.Time serializes. */
export function formatTime(now: Date): string {
  return formatTimestamp(now);
}

const metadata = fieldElement('metadata');

/** Fields no manager owns (kube's stripMeta set); `metadata.managedFields` is dropped with everything under it. */
const unownedMetadata = new Set(['name', 'namespace', 'creationTimestamp', 'selfLink', 'uid', 'clusterName', 'generation', 'resourceVersion']);
const unowned: FieldPath[] = [[fieldElement('apiVersion')], [fieldElement('kind')], [metadata], ...[...unownedMetadata].map((f) => [metadata, fieldElement(f)])];

export function withoutResetFields(set: FieldSet, reset: ResetFields = []): FieldSet {
  let out = set;
  for (const path of reset) out = out.withoutSubtree(path.map(fieldElement));
  return out;
}

/** The set without the fields nobody owns and without the reset fields. */
export function ownable(set: FieldSet, reset: ResetFields = []): FieldSet {
  return withoutResetFields(set.withoutSubtree([metadata, fieldElement('managedFields')]), reset).withoutMembers(unowned);
}

/** `ownable`, done to `set` itself: for a set just computed and held by no one else. */
function makeOwnable(set: FieldSet, reset: ResetFields = []): FieldSet {
  return set.removeInPlace([[metadata, fieldElement('managedFields')], ...reset.map((path) => path.map(fieldElement))], unowned);
}

export function ownableComparison(cmp: Comparison, reset: ResetFields = []): Comparison {
  return { added: ownable(cmp.added, reset), modified: ownable(cmp.modified, reset), removed: ownable(cmp.removed, reset) };
}

/** The object without `metadata.managedFields` (a copy when there was something to remove). */
export function withoutManagedFields<T>(obj: T): T {
  if (!isObject(obj) || !isObject(obj.metadata) || !Object.hasOwn(obj.metadata, 'managedFields')) return obj;
  const { managedFields: _managedFields, ...meta } = obj.metadata;
  return { ...obj, metadata: meta } as T;
}

function decodeEntry(raw: unknown): ManagerFields | undefined {
  if (!isObject(raw)) return undefined;
  const { manager, operation, apiVersion, time, fieldsType, fieldsV1, subresource } = raw;
  if (typeof manager !== 'string' || (operation !== 'Apply' && operation !== 'Update')) return undefined;
  if (apiVersion !== undefined && typeof apiVersion !== 'string') return undefined;
  if (time !== undefined && time !== null && typeof time !== 'string') return undefined;
  if (subresource !== undefined && subresource !== null && typeof subresource !== 'string') return undefined;
  if (fieldsType !== 'FieldsV1') return undefined;
  const fields = FieldSet.fromFieldsV1(fieldsV1 ?? {});
  if (!fields) return undefined;
  return {
    manager,
    operation,
    apiVersion: apiVersion ?? '',
    ...(subresource ? { subresource } : {}),
    ...(time ? { time } : {}),
    fields,
  };
}

/** Decodes a `managedFields` list; undefined when it is not a valid one (kube then ignores it). Entries of one identity are united. */
export function decodeManagedFields(raw: unknown): Managers | undefined {
  if (raw === undefined || raw === null) return new Map();
  if (!Array.isArray(raw)) return undefined;
  const managers: Managers = new Map();
  for (const item of raw) {
    const entry = decodeEntry(item);
    if (!entry) return undefined;
    const id = managerIdentity(entry);
    const previous = managers.get(id);
    managers.set(id, previous ? { ...entry, fields: previous.fields.union(entry.fields) } : entry);
  }
  return managers;
}

function compareEntries(a: ManagedFieldsEntry, b: ManagedFieldsEntry): number {
  const seconds = (e: ManagedFieldsEntry) => (e.time ? Math.floor(Date.parse(e.time) / 1000) || 0 : 0);
  const text = (x: string, y: string) => (x < y ? -1 : x > y ? 1 : 0);
  return (
    text(a.operation, b.operation) ||
    seconds(a) - seconds(b) ||
    text(a.manager, b.manager) ||
    text(a.apiVersion, b.apiVersion) ||
    text(a.subresource ?? '', b.subresource ?? '')
  );
}

/** Encodes managers as `managedFields` entries, sorted as kube sorts them; managers owning nothing are left out. */
export function encodeManagedFields(managers: Managers): ManagedFieldsEntry[] {
  const entries: ManagedFieldsEntry[] = [];
  for (const m of managers.values()) {
    if (m.fields.isEmpty()) continue;
    // Key order as kube-apiserver serializes an entry.
    entries.push({
      manager: m.manager,
      operation: m.operation,
      apiVersion: m.apiVersion,
      ...(m.time ? { time: m.time } : {}),
      fieldsType: 'FieldsV1',
      fieldsV1: m.fields.toFieldsV1(),
      ...(m.subresource ? { subresource: m.subresource } : {}),
    });
  }
  return entries.sort(compareEntries);
}

/** Folds the oldest Update entries into per-apiVersion `ancient-changes` entries until at most `max` remain. */
export function capUpdateManagers(managers: Managers, max = maxUpdateManagers): Managers {
  const updaters = [...managers.entries()].filter(([, m]) => m.operation === 'Update');
  if (updaters.length <= max) return managers;
  const seconds = (m: ManagerFields) => (m.time ? Math.floor(Date.parse(m.time) / 1000) || 0 : 0);
  updaters.sort(([ida, a], [idb, b]) => seconds(a) - seconds(b) || (ida < idb ? -1 : ida > idb ? 1 : 0));
  const out: Managers = new Map(managers);
  let count = updaters.length;
  for (const [id, m] of updaters) {
    if (count <= max) break;
    if (m.manager === ancientChangesManager) continue;
    const bucket = { manager: ancientChangesManager, operation: 'Update' as const, apiVersion: m.apiVersion };
    const bucketId = managerIdentity(bucket);
    const previous = out.get(bucketId);
    out.delete(id);
    if (previous) count--;
    out.set(bucketId, { ...bucket, ...(m.time ? { time: m.time } : {}), fields: previous ? previous.fields.union(m.fields) : m.fields });
  }
  return out;
}

function isReset(raw: unknown): boolean {
  if (!Array.isArray(raw)) return false;
  return raw.length === 0 || (raw.length === 1 && isObject(raw[0]) && Object.keys(raw[0]).length === 0);
}

/**
 * The managers a non-apply write starts from: the request's own list when it sets a valid,
 * non-empty one, nothing when it resets them, else the stored object's (always the stored
 * object's for a subresource write).
 */
export function baseManagers(live: KubeObject | undefined, updated: KubeObject, subresource: string | undefined): Managers {
  const stored = () => decodeManagedFields(live?.metadata?.managedFields) ?? new Map();
  if (subresource) return stored();
  const requested = updated.metadata?.managedFields;
  if (isReset(requested)) return new Map();
  const decoded = decodeManagedFields(requested);
  return decoded && decoded.size ? decoded : stored();
}

export interface UpdateManagedFieldsOptions {
  /** The stored object; undefined for a create. */
  readonly live: KubeObject | undefined;
  /** The object about to be stored. */
  readonly updated: KubeObject;
  readonly manager: string;
  /** The apiVersion of the request. */
  readonly apiVersion: string;
  readonly now: Date;
  readonly subresource?: string;
  readonly schema?: JSONSchemaProps;
  readonly resolve?: SchemaResolver;
  /** Fields this write cannot set (e.g. `[['status']]` for a main-resource write when status is a subresource). */
  readonly resetFields?: ResetFields;
  /** A create goes the general way, through field sets (tests compare both ways). */
  readonly slowCreate?: boolean;
}

/** Records who changed what in a write's managers: `manager` takes what it changed, the others lose it. */
export function recordUpdate(managers: Managers, cmp: Comparison, who: Omit<ManagerFields, 'fields' | 'time'>, time: string): Managers {
  const changed = cmp.modified.union(cmp.added);
  const out: Managers = new Map();
  for (const [id, m] of managers) {
    const fields = m.fields.difference(changed).difference(cmp.removed);
    if (!fields.isEmpty()) out.set(id, { ...m, fields });
  }
  if (changed.isEmpty()) return out;
  const id = managerIdentity({ ...who, operation: 'Update' });
  const previous = out.get(id);
  out.set(id, { ...who, operation: 'Update', time, fields: previous ? previous.fields.union(changed) : changed });
  return out;
}

/** The `managedFields` for a create, update or patch that is not an apply. */
export function updateManagedFields(opts: UpdateManagedFieldsOptions): ManagedFieldsEntry[] {
  const resolve = opts.resolve ?? noRefs;
  const schema = rootSchema(opts.schema, resolve);
  const before = withoutManagedFields(opts.live) ?? {};
  const after = withoutManagedFields(opts.updated);
  const who = { manager: opts.manager, operation: 'Update' as const, apiVersion: opts.apiVersion, ...(opts.subresource ? { subresource: opts.subresource } : {}) };
  if (opts.live === undefined && opts.updated.metadata?.managedFields === undefined) {
    // A plain create (the hot path): no earlier managers, and everything the creator set is new.
    if (!opts.resetFields?.length && !opts.slowCreate) {
      const fieldsV1 = createdFieldsV1(after as JsonObject, schema, resolve, unownedMetadata);
      if (fieldsV1) {
        if (!Object.keys(fieldsV1).length) return [];
        // Key order as encodeManagedFields writes an entry.
        return [{ manager: who.manager, operation: 'Update', apiVersion: who.apiVersion, time: formatTime(opts.now), fieldsType: 'FieldsV1', fieldsV1, ...(who.subresource ? { subresource: who.subresource } : {}) }];
      }
    }
    const fields = makeOwnable(compareObjects(before, after, schema, resolve).added, opts.resetFields);
    return fields.isEmpty() ? [] : encodeManagedFields(new Map([[managerIdentity(who), { ...who, time: formatTime(opts.now), fields }]]));
  }
  const cmp = ownableComparison(compareObjects(before, after, schema, resolve), opts.resetFields);
  const managers = recordUpdate(baseManagers(opts.live, opts.updated, opts.subresource), cmp, who, formatTime(opts.now));
  return encodeManagedFields(capUpdateManagers(managers));
}
