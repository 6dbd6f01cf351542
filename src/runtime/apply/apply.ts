/**
 * Applying one payload manifest, as the CVO does it: read the object; create it when it is
 * missing (so a deleted object comes back on the next pass); leave it alone when the manifest
 * is create-only; otherwise merge the manifest in with the kind's rules and write only when
 * something the manifest sets had drifted. A write races other writers on resourceVersion, so
 * a 409 starts again from a fresh read rather than overwriting what someone else just wrote.
 */
import type { KubernetesObject, V1OwnerReference } from '@kubernetes/client-node';
import { isAlreadyExists, isConflict, isNotFound, type ApiClient } from '../client.ts';
import type { ResourceRef } from '../resources.ts';
import { asObj, child, isObj, objList, type Obj } from './json.ts';
import { groupOf, mergeObject } from './merge.ts';

/** `release.openshift.io/create-only: "true"`: created when missing, never updated. */
export const CREATE_ONLY_ANNOTATION = 'release.openshift.io/create-only';

export function isCreateOnly(manifest: KubernetesObject): boolean {
  const value = manifest.metadata?.annotations?.[CREATE_ONLY_ANNOTATION];
  return typeof value === 'string' && value.toLowerCase() === 'true';
}

export interface ApplyOptions {
  /** Never update an existing object; also implied by the create-only annotation. */
  readonly createOnly?: boolean;
  /**
   * The ClusterVersion, as the owner of what the CVO creates. It is added only when neither
   * the manifest nor the object names another owner; it is the controller unless create-only.
   */
  readonly ownerRef?: V1OwnerReference;
  /** How often a 409 (a conflicting write, or a create that lost a race) is retried from a fresh read; default 3. */
  readonly conflictRetries?: number;
  /**
   * A workload found scaled to 0 stays at 0. For the CVO's own Deployment: an admin scales it
   * to 0 to pause the CVO, and a pass already under way when that happens must not undo it
   * (it did, now and then: the pod came back moments after it went).
   */
  readonly keepScaledToZero?: boolean;
}

export type ApplyAction = 'created' | 'updated' | 'unchanged';

export interface ApplyResult<T extends KubernetesObject = KubernetesObject> {
  readonly action: ApplyAction;
  /** The object as the API server has it after the apply. */
  readonly object: T;
}

export async function applyManifest<T extends KubernetesObject = KubernetesObject>(client: ApiClient, ref: ResourceRef, required: KubernetesObject, opts: ApplyOptions = {}): Promise<ApplyResult<T>> {
  const retries = opts.conflictRetries ?? 3;
  for (let attempt = 0; ; attempt++) {
    try {
      return await applyOnce<T>(client, ref, required as Obj, opts);
    } catch (err) {
      if (attempt < retries && (isConflict(err) || isAlreadyExists(err))) continue;
      throw err;
    }
  }
}

async function applyOnce<T extends KubernetesObject>(client: ApiClient, ref: ResourceRef, required: Obj, opts: ApplyOptions): Promise<ApplyResult<T>> {
  const meta = asObj(required.metadata) ?? {};
  const name = typeof meta.name === 'string' ? meta.name : '';
  if (!name) throw new Error(`${String(required.kind)}: invalid object: name cannot be empty`);
  const namespace = ref.namespaced && typeof meta.namespace === 'string' ? meta.namespace : undefined;
  const createOnly = opts.createOnly === true || isCreateOnly(required as KubernetesObject);
  const owner = ownerRefFor(opts.ownerRef, createOnly);

  let existing: Obj | undefined;
  try {
    existing = await client.get<KubernetesObject>(ref, namespace, name) as Obj;
  } catch (err) {
    if (!isNotFound(err)) throw err;
  }

  if (!existing) return { action: 'created', object: await create<T>(client, ref, withOwner(required, undefined, owner)) };
  if (createOnly) return { action: 'unchanged', object: existing as T };

  let desired = withOwner(required, existing, owner);
  if (opts.keepScaledToZero && asObj(existing.spec)?.replicas === 0 && asObj(desired.spec)?.replicas !== 0) {
    desired = structuredClone(desired);
    (desired.spec as Obj).replicas = 0;
  }
  const base = structuredClone(existing);
  const droppedStale = owner !== undefined && desired !== required && dropStaleOwners(base, owner);
  const { changed, merged } = mergeObject(base, desired);
  if (!changed && !droppedStale) return { action: 'unchanged', object: existing as T };
  // `merged` still carries the resourceVersion that was read, so a concurrent write is a 409, not lost.
  const updated = await client.update<KubernetesObject>(ref, merged as KubernetesObject);
  return { action: 'updated', object: updated as T };
}

async function create<T extends KubernetesObject>(client: ApiClient, ref: ResourceRef, required: Obj): Promise<T> {
  const body = structuredClone(required);
  const status = asObj(body.status);
  delete body.status;
  delete asObj(body.metadata)?.resourceVersion;
  const created = await client.create<KubernetesObject>(ref, body as KubernetesObject);
  const initial = clusterOperatorInitialStatus(required, status);
  if (!initial) return created as T;
  try {
    return (await client.updateStatus<KubernetesObject>(ref, { ...created, status: initial } as KubernetesObject)) as T;
  } catch (err) {
    // The operator reported first: its status is the truth, ours was only a placeholder.
    if (isConflict(err)) return created as T;
    throw err;
  }
}

/**
 * A new ClusterOperator starts with the manifest's status (its relatedObjects, so that
 * must-gather knows what to collect before the operator runs), without `versions`: those are
 * what the CVO waits for the operator to report, and writing them would claim the operator
 * already runs the new release.
 */
function clusterOperatorInitialStatus(required: Obj, status: Obj | undefined): Obj | undefined {
  if (groupOf(required.apiVersion) !== 'config.openshift.io' || required.kind !== 'ClusterOperator' || !status) return undefined;
  const initial = structuredClone(status);
  delete initial.versions;
  return Object.keys(initial).length ? initial : undefined;
}

function ownerRefFor(ref: V1OwnerReference | undefined, createOnly: boolean): V1OwnerReference | undefined {
  if (!ref) return undefined;
  const out: V1OwnerReference = { ...ref };
  // A create-only object is handed over to whoever manages it next; the CVO is not its controller.
  if (createOnly) delete out.controller;
  else out.controller = true;
  return out;
}

const sameOwnerKind = (a: Obj, owner: V1OwnerReference): boolean => a.kind === owner.kind && groupOf(a.apiVersion) === groupOf(owner.apiVersion);

/**
 * The manifest with the owner reference set, when nothing else owns the object: an object an
 * operator (or the manifest) gave another owner is left to it, as the CVO does, and adding a
 * second controller reference would be refused by the API server anyway.
 */
function withOwner(required: Obj, existing: Obj | undefined, owner: V1OwnerReference | undefined): Obj {
  if (!owner) return required;
  const refs = [...objList(asObj(required.metadata)?.ownerReferences), ...objList(asObj(existing?.metadata)?.ownerReferences)];
  if (refs.some((r) => !sameOwnerKind(r, owner))) return required;
  const out = structuredClone(required);
  child(out, 'metadata').ownerReferences = [structuredClone(owner) as unknown as Obj];
  return out;
}

/**
 * Removes references to an earlier ClusterVersion (another uid): merged by uid they would
 * stay beside the new one, two controller references on one object.
 */
function dropStaleOwners(existing: Obj, owner: V1OwnerReference): boolean {
  const meta = asObj(existing.metadata);
  if (!meta || !Array.isArray(meta.ownerReferences)) return false;
  const kept = meta.ownerReferences.filter((r) => !(isObj(r) && sameOwnerKind(r, owner) && r.uid !== owner.uid));
  if (kept.length === meta.ownerReferences.length) return false;
  meta.ownerReferences = kept;
  return true;
}
