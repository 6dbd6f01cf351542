/**
 * Server-side apply (`PATCH` with `application/apply-patch+yaml`, what `kubectl apply
 * --server-side` sends): the applied configuration is merged into the live object (or into
 * nothing, which creates it), the fields this manager applied last time and now omits are
 * removed unless another manager owns them too, and managedFields are brought up to date: the
 * applier's Apply entry owns exactly what it applied, and other managers lose what this apply
 * removed. Changing a field another manager owns is a conflict, answered 409 in kube's words
 * (`Apply failed with 1 conflict: conflict with "kubectl-client-side-apply" using apps/v1:
 * .spec.replicas`), unless `force` is set, in which case the applier takes the field over.
 *
 * The first apply to an object that has no managedFields attributes its existing fields to
 * `before-first-apply`, so that apply conflicts with them rather than silently taking them. An
 * apply by `kubectl` over an object last applied client-side takes over, without a conflict,
 * the fields its last-applied annotation recorded, and keeps that annotation current
 * (last-applied.ts).
 */
import { noRefs, type JSONSchemaProps, type SchemaResolver } from '../../api/schema.ts';
import { ApiError, errors, type StatusCause } from '../errors.ts';
import type { KubeObject } from '../registry/resource.ts';
import { mergeApplied, pruneUnowned } from './apply-merge.ts';
import { formatPath, type FieldPath, type FieldSet } from './field-set.ts';
import { deepEqual, describeType, isObject } from './json-value.ts';
import {
  beforeFirstApplyManager,
  capUpdateManagers,
  decodeManagedFields,
  describeManager,
  encodeManagedFields,
  formatTime,
  managerIdentity,
  ownable,
  ownableComparison,
  recordUpdate,
  withoutManagedFields,
  withoutResetFields,
  type ManagedFieldsEntry,
  type ManagerFields,
  type Managers,
  type ResetFields,
} from './managed-fields.ts';
import { fieldsFromLastApplied, keepLastAppliedCurrent, lastAppliedUpgradeManager } from './last-applied.ts';
import { checkAppliedLists, compareObjects, ensureNamedFieldsAreMembers, fieldSetOf } from './object-fields.ts';
import { rootSchema, type Schema } from './schema-nav.ts';

export interface ApplyOptions {
  /** The stored object; undefined when the apply creates it. */
  readonly live: KubeObject | undefined;
  /** The applied configuration (the request body). */
  readonly applied: unknown;
  readonly manager: string;
  readonly force: boolean;
  /** The apiVersion of the request. */
  readonly apiVersion: string;
  readonly schema?: JSONSchemaProps;
  readonly resolve?: SchemaResolver;
  readonly now: Date;
  readonly subresource?: string;
  /** Fields this apply cannot set (e.g. `[['status']]` on the main resource when status is a subresource). */
  readonly resetFields?: ResetFields;
}

export interface ApplyResult {
  /** The object to store, its `metadata.managedFields` set to `managedFields` (absent when empty). */
  readonly object: KubeObject;
  readonly managedFields: ManagedFieldsEntry[];
}

/** Fields one manager owns that an apply would change. */
export interface Conflict {
  readonly manager: ManagerFields;
  readonly paths: FieldPath[];
}

/** The 409 kube-apiserver answers for apply conflicts, message and causes included. */
export function conflictError(conflicts: readonly Conflict[]): ApiError {
  const sorted = [...conflicts].sort((a, b) => {
    const x = managerIdentity(a.manager);
    const y = managerIdentity(b.manager);
    return x < y ? -1 : x > y ? 1 : 0;
  });
  const flat = sorted.flatMap((c) => c.paths.map((path) => ({ who: describeManager(c.manager), field: formatPath(path) })));
  let message: string;
  if (flat.length === 1) {
    message = `Apply failed with 1 conflict: conflict with ${flat[0]!.who}: ${flat[0]!.field}`;
  } else {
    const lines = sorted.flatMap((c) => [`conflicts with ${describeManager(c.manager)}:`, ...c.paths.map((p) => `- ${formatPath(p)}`)]);
    message = `Apply failed with ${flat.length} conflicts: ${lines.join('\n')}`;
  }
  const causes: StatusCause[] = flat.map((c) => ({ reason: 'FieldManagerConflict', message: `conflict with ${c.who}`, field: c.field }));
  return new ApiError(409, 'Conflict', message, { causes });
}

function union(sets: Iterable<FieldSet>, start: FieldSet): FieldSet {
  let out = start;
  for (const s of sets) out = out.union(s);
  return out;
}

/**
 * The managers recorded on the live object. An object nobody manages yet has its fields
 * attributed to a stand-in, so that apply takes them over knowingly (with force) or not at all.
 */
function liveManagers(opts: ApplyOptions, live: KubeObject, schema: Schema, resolve: SchemaResolver, time: string): Managers {
  if (!opts.live) return new Map();
  const managers = decodeManagedFields(opts.live.metadata?.managedFields) ?? new Map();
  if (managers.size) return managers;
  const existing = ownableComparison(compareObjects({}, live, schema, resolve), opts.resetFields);
  return recordUpdate(managers, existing, { manager: beforeFirstApplyManager, operation: 'Update', apiVersion: opts.apiVersion }, time);
}

function conflictsWith(managers: Managers, applierId: string, changed: FieldSet): Conflict[] {
  const conflicts: Conflict[] = [];
  for (const [id, m] of managers) {
    if (id === applierId) continue;
    const taken = m.fields.intersection(changed);
    if (!taken.isEmpty()) conflicts.push({ manager: m, paths: taken.paths() });
  }
  return conflicts;
}

function attachManagedFields(obj: KubeObject, managedFields: ManagedFieldsEntry[]): void {
  if (!isObject(obj.metadata)) {
    if (managedFields.length) obj.metadata = { managedFields };
  } else if (managedFields.length) {
    obj.metadata.managedFields = managedFields;
  } else {
    delete obj.metadata.managedFields;
  }
}

/** Applies `applied` for `manager`; throws a 409 on conflicts (unless `force`) and a 400 on a malformed configuration. */
export function applyServerSide(opts: ApplyOptions): ApplyResult {
  const first = applyOnce(opts);
  if (!('conflicts' in first)) return withLastAppliedCurrent(first, opts);
  // kube's lastAppliedManager: conflicts over fields the last client-side apply recorded are no conflicts for `kubectl`.
  const resolve = opts.resolve ?? noRefs;
  const allowed = opts.manager === lastAppliedUpgradeManager && opts.live ? fieldsFromLastApplied(opts.live, opts.apiVersion, rootSchema(opts.schema, resolve), resolve) : undefined;
  if (!allowed) throw conflictError(first.conflicts);
  const remaining = first.conflicts.map((c) => ({ ...c, paths: c.paths.filter((p) => !allowed.has(p)) })).filter((c) => c.paths.length > 0);
  if (remaining.length) throw conflictError(remaining);
  const forced = applyOnce({ ...opts, force: true });
  if ('conflicts' in forced) throw conflictError(forced.conflicts);
  return withLastAppliedCurrent(forced, opts);
}

function withLastAppliedCurrent(result: ApplyResult, opts: ApplyOptions): ApplyResult {
  if (opts.manager === lastAppliedUpgradeManager && isObject(opts.applied)) keepLastAppliedCurrent(result.object, opts.applied);
  return result;
}

/** One apply: the result, or the conflicts that stop it when it is not forced. */
function applyOnce(opts: ApplyOptions): ApplyResult | { readonly conflicts: Conflict[] } {
  const resolve = opts.resolve ?? noRefs;
  const schema = rootSchema(opts.schema, resolve);
  if (!isObject(opts.applied)) throw errors.badRequest(`an apply configuration must be an object, got ${describeType(opts.applied)}`);
  const config = withoutManagedFields(structuredClone(opts.applied));
  const problem = checkAppliedLists(config, schema, resolve);
  if (problem) throw errors.badRequest(`failed to create typed patch object (${opts.apiVersion}, Kind=${String(config.kind ?? '')}): ${problem}`);

  const time = formatTime(opts.now);
  const live: KubeObject = opts.live ? withoutManagedFields(structuredClone(opts.live)) : {};
  const managers = liveManagers(opts, live, schema, resolve, time);
  const applier = { manager: opts.manager, operation: 'Apply' as const, apiVersion: opts.apiVersion, ...(opts.subresource ? { subresource: opts.subresource } : {}) };
  const applierId = managerIdentity(applier);
  const previous = managers.get(applierId);
  // Metadata identity fields (name, namespace) stay in this set until it is stored: while pruning
  // they keep `metadata` itself owned, as in kube, where stripping happens after the merge.
  const appliedFields = withoutResetFields(fieldSetOf(config, schema, resolve), opts.resetFields);

  // Merge, then drop what this applier applied last time, omits now, and nobody else owns.
  const merged = mergeApplied(structuredClone(live), structuredClone(config), schema, resolve) as KubeObject;
  if (previous && !previous.fields.isEmpty()) {
    const others = [...managers].filter(([id]) => id !== applierId).map(([, m]) => m.fields);
    const stillOwned = ensureNamedFieldsAreMembers(union(others, appliedFields), schema, resolve);
    pruneUnowned(merged, ensureNamedFieldsAreMembers(previous.fields, schema, resolve), stillOwned, schema, resolve);
  }

  // What the apply changed must not belong to anybody else, unless forced; what it removed is nobody's.
  const cmp = ownableComparison(compareObjects(live, merged, schema, resolve), opts.resetFields);
  const changed = cmp.modified.union(cmp.added);
  const conflicts = conflictsWith(managers, applierId, changed);
  if (conflicts.length && !opts.force) return { conflicts };
  const next: Managers = new Map();
  for (const [id, m] of managers) {
    if (id === applierId) continue;
    const fields = m.fields.difference(changed).difference(cmp.removed);
    if (!fields.isEmpty()) next.set(id, { ...m, fields });
  }
  const objectChanged = !deepEqual(live, merged);
  next.set(applierId, { ...applier, time: objectChanged || !previous?.time ? time : previous.time, fields: ownable(appliedFields, opts.resetFields) });

  const managedFields = encodeManagedFields(capUpdateManagers(next));
  attachManagedFields(merged, managedFields);
  return { object: merged, managedFields };
}
