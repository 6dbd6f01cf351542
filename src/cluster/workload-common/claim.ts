/**
 * Adoption and release, as kube's ControllerRefManager does them: a controller owns what its
 * controller reference points at *and* its selector matches. It adopts orphans its selector
 * matches (unless either side is being deleted), and releases what it controls but no longer
 * matches, so relabelling a pod takes it out of its ReplicaSet and a new pod replaces it.
 *
 * Both writes are strategic-merge patches on `ownerReferences` (merge key `uid`) carrying the
 * dependent's uid as a precondition, so they never clobber other owner references and never
 * touch a same-named successor. A losing race (someone else adopted first, the pod is gone) is
 * not an error: the informer will show who won.
 */
import type { KubernetesObject } from '@kubernetes/client-node';
import type { LabelMatcher } from '../../api/label-selector.ts';
import { ApiError, type ApiClient } from '../../runtime/client.ts';
import { controllerOf } from '../../runtime/controller.ts';
import type { DeepReadonly } from '../../runtime/readonly.ts';
import type { ResourceRef } from '../../runtime/resources.ts';
import { controllerRef, type OwnerLike } from './owners.ts';

export interface ClaimPlan<T> {
  /** Controlled by the owner and matching: already ours. */
  readonly owned: T[];
  readonly adopt: T[];
  readonly release: T[];
}

/** Pure: sorts candidates (owned and orphans, in the owner's namespace) into what to keep, adopt and release. */
export function planClaim<T extends DeepReadonly<KubernetesObject>>(owner: OwnerLike, matches: LabelMatcher, candidates: Iterable<T>): ClaimPlan<T> {
  const plan = { owned: [] as T[], adopt: [] as T[], release: [] as T[] };
  const ownerDeleting = !!owner.metadata?.deletionTimestamp;
  const seen = new Set<string>();
  for (const obj of candidates) {
    const uid = obj.metadata?.uid ?? '';
    if (seen.has(uid)) continue;
    seen.add(uid);
    const ref = controllerOf(obj);
    const labels = obj.metadata?.labels;
    if (ref) {
      if (ref.uid !== owner.metadata?.uid) continue;
      if (matches(labels)) plan.owned.push(obj);
      else if (!ownerDeleting) plan.release.push(obj);
      continue;
    }
    if (ownerDeleting || !matches(labels) || obj.metadata?.deletionTimestamp) continue;
    if (obj.metadata?.namespace !== owner.metadata?.namespace) continue;
    plan.adopt.push(obj);
  }
  return plan;
}

export interface ClaimOptions<T> {
  readonly client: ApiClient;
  /** The dependents' resource (pods, replicasets). */
  readonly resource: ResourceRef;
  /** The owner's resource, for the reference. */
  readonly ownerResource: ResourceRef;
  readonly owner: OwnerLike;
  readonly matches: LabelMatcher;
  readonly candidates: Iterable<T>;
}

/** A losing race over ownership, not a failure: gone (404), replaced (409 uid precondition), or taken (422). */
function lostRace(err: unknown): boolean {
  return err instanceof ApiError && (err.code === 404 || err.code === 409 || err.code === 422);
}

/**
 * Carries out the plan and returns what the owner controls afterwards. Before the first
 * adoption the owner is read back from the server: a stale cache must not let a deleted (or
 * deleted-and-recreated) owner grab pods, as kube's RecheckDeletionTimestamp guards.
 */
export async function claim<T extends DeepReadonly<KubernetesObject>>(opts: ClaimOptions<T>): Promise<T[]> {
  const { client, resource, owner } = opts;
  const plan = planClaim(opts.owner, opts.matches, opts.candidates);
  const claimed = [...plan.owned];
  const ownerUid = owner.metadata?.uid ?? '';
  for (const obj of plan.release) {
    const patch = { metadata: { uid: obj.metadata?.uid, ownerReferences: [{ $patch: 'delete', uid: ownerUid }] } };
    try {
      await client.patch(resource, obj.metadata?.namespace, obj.metadata?.name ?? '', patch, { type: 'strategic' });
    } catch (err) {
      if (!lostRace(err)) throw err;
    }
  }
  if (plan.adopt.length === 0) return claimed;
  const fresh = await client.get(opts.ownerResource, owner.metadata?.namespace, owner.metadata?.name ?? '');
  if (fresh.metadata?.uid !== ownerUid || fresh.metadata?.deletionTimestamp) return claimed;
  const ref = controllerRef(opts.ownerResource, owner);
  for (const obj of plan.adopt) {
    const patch = { metadata: { uid: obj.metadata?.uid, ownerReferences: [ref] } };
    try {
      claimed.push((await client.patch(resource, obj.metadata?.namespace, obj.metadata?.name ?? '', patch, { type: 'strategic' })) as T);
    } catch (err) {
      if (!lostRace(err)) throw err;
    }
  }
  return claimed;
}
