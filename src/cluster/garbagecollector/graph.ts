/**
 * The garbage collector's view of who owns whom, keyed by uid (ownerReferences name owners by
 * uid, and a name can be reused by a new object). An owner named by a reference before any
 * informer has shown it is a *virtual* node: it may exist or not, and the collector asks the
 * API before believing either.
 *
 * `observe` and `remove` return what the change means for the collector, as uids to examine;
 * the graph itself never calls the API, so it can be tested alone.
 */

export interface Identity {
  readonly apiVersion: string;
  readonly kind: string;
  readonly namespace: string | undefined;
  readonly name: string;
}

export interface OwnerLink {
  readonly uid: string;
  readonly apiVersion: string;
  readonly kind: string;
  readonly name: string;
  readonly blockOwnerDeletion: boolean;
}

export interface GraphNode {
  readonly uid: string;
  identity: Identity;
  /** Seen in an informer; false for an owner known only from references to it. */
  observed: boolean;
  owners: readonly OwnerLink[];
  /** Shared and empty until the first dependent: most objects (every pod) own nothing. */
  dependents: ReadonlySet<string>;
  /** Has a deletionTimestamp. */
  beingDeleted: boolean;
  /** Being deleted in the foreground: it waits for its blocking dependents to go first. */
  deletingDependents: boolean;
  /** Being deleted with the `orphan` finalizer: its dependents lose their references to it. */
  orphaning: boolean;
}

/** What an informer shows of an object: its metadata is all the collector reads. */
export interface ObservedObject {
  readonly apiVersion?: string;
  readonly kind?: string;
  readonly metadata?: {
    readonly uid?: string;
    readonly name?: string;
    readonly namespace?: string;
    readonly deletionTimestamp?: unknown;
    readonly finalizers?: readonly string[];
    readonly ownerReferences?: readonly { readonly uid: string; readonly apiVersion: string; readonly kind: string; readonly name: string; readonly blockOwnerDeletion?: boolean }[];
  };
}

/** uids to examine: `attemptToDelete` (are its owners gone? may it finish a foreground deletion?), `attemptToOrphan`. */
export interface GraphWork {
  readonly attemptToDelete: string[];
  readonly attemptToOrphan: string[];
}

export const ORPHAN_FINALIZER = 'orphan';
export const FOREGROUND_FINALIZER = 'foregroundDeletion';

const NO_DEPENDENTS: ReadonlySet<string> = new Set();
const NO_OWNERS: readonly OwnerLink[] = [];

function linksOf(obj: ObservedObject): readonly OwnerLink[] {
  const refs = obj.metadata?.ownerReferences;
  if (!refs?.length) return NO_OWNERS;
  return refs.map((r) => ({ uid: r.uid, apiVersion: r.apiVersion, kind: r.kind, name: r.name, blockOwnerDeletion: r.blockOwnerDeletion === true }));
}

export class OwnershipGraph {
  private readonly nodes = new Map<string, GraphNode>();

  get(uid: string): GraphNode | undefined {
    return this.nodes.get(uid);
  }

  get size(): number {
    return this.nodes.size;
  }

  /** Dependents whose reference to `uid` blocks its foreground deletion. */
  blockingDependents(uid: string): GraphNode[] {
    const owner = this.nodes.get(uid);
    if (!owner) return [];
    const out: GraphNode[] = [];
    for (const d of owner.dependents) {
      const dep = this.nodes.get(d);
      if (dep?.owners.some((o) => o.uid === uid && o.blockOwnerDeletion)) out.push(dep);
    }
    return out;
  }

  /** An object was added or updated. */
  observe(obj: ObservedObject): GraphWork {
    const work: GraphWork = { attemptToDelete: [], attemptToOrphan: [] };
    const uid = obj.metadata?.uid;
    if (!uid) return work;
    const identity: Identity = { apiVersion: obj.apiVersion ?? '', kind: obj.kind ?? '', namespace: obj.metadata?.namespace, name: obj.metadata?.name ?? '' };
    let node = this.nodes.get(uid);
    const wasDeletingDependents = node?.deletingDependents ?? false;
    const wasOrphaning = node?.orphaning ?? false;
    const oldOwners = node?.owners ?? [];
    if (!node) {
      node = { uid, identity, observed: true, owners: NO_OWNERS, dependents: NO_DEPENDENTS, beingDeleted: false, deletingDependents: false, orphaning: false };
      this.nodes.set(uid, node);
    } else {
      node.identity = identity;
      node.observed = true;
    }
    const finalizers = obj.metadata?.finalizers ?? [];
    node.beingDeleted = !!obj.metadata?.deletionTimestamp;
    node.deletingDependents = node.beingDeleted && finalizers.includes(FOREGROUND_FINALIZER);
    node.orphaning = node.beingDeleted && finalizers.includes(ORPHAN_FINALIZER);
    const newOwners = linksOf(obj);
    node.owners = newOwners;

    const oldByUid = new Map(oldOwners.map((o) => [o.uid, o]));
    const newByUid = new Map(newOwners.map((o) => [o.uid, o]));
    for (const o of oldOwners) if (!newByUid.has(o.uid)) this.unlink(o.uid, uid);
    for (const o of newOwners) {
      let owner = this.nodes.get(o.uid);
      if (!owner) {
        // Owners are in the dependent's namespace (or cluster-scoped, which the lookup settles).
        owner = { uid: o.uid, identity: { apiVersion: o.apiVersion, kind: o.kind, namespace: identity.namespace, name: o.name }, observed: false, owners: NO_OWNERS, dependents: NO_DEPENDENTS, beingDeleted: false, deletingDependents: false, orphaning: false };
        this.nodes.set(o.uid, owner);
        work.attemptToDelete.push(o.uid);
      }
      if (owner.dependents === NO_DEPENDENTS) owner.dependents = new Set();
      (owner.dependents as Set<string>).add(uid);
    }
    // A foreground-deleting owner may have been waiting on this object's reference: if it went
    // away or stopped blocking, the owner may be free.
    for (const o of oldOwners) {
      const after = newByUid.get(o.uid);
      if ((!after || (o.blockOwnerDeletion && !after.blockOwnerDeletion)) && this.nodes.get(o.uid)?.deletingDependents) work.attemptToDelete.push(o.uid);
    }
    for (const o of newOwners) if (!oldByUid.has(o.uid) && this.nodes.get(o.uid)?.deletingDependents) work.attemptToDelete.push(o.uid);

    if (node.deletingDependents && !wasDeletingDependents) {
      work.attemptToDelete.push(uid);
      for (const d of node.dependents) work.attemptToDelete.push(d);
    }
    if (node.orphaning && !wasOrphaning) work.attemptToOrphan.push(uid);
    return work;
  }

  /** An object was deleted (or a virtual owner turned out absent). */
  remove(uid: string): GraphWork {
    const work: GraphWork = { attemptToDelete: [], attemptToOrphan: [] };
    const node = this.nodes.get(uid);
    if (!node) return work;
    for (const o of node.owners) {
      this.unlink(o.uid, uid);
      if (this.nodes.get(o.uid)?.deletingDependents) work.attemptToDelete.push(o.uid);
    }
    // Its dependents may now be orphans. The node stays as a virtual one while they still
    // reference it, so a later event on them finds it absent rather than unknown.
    for (const d of node.dependents) work.attemptToDelete.push(d);
    if (node.dependents.size > 0) {
      node.observed = false;
      node.owners = NO_OWNERS;
      node.beingDeleted = false;
      node.deletingDependents = false;
      node.orphaning = false;
    } else {
      this.nodes.delete(uid);
    }
    return work;
  }

  private unlink(ownerUid: string, dependentUid: string): void {
    const owner = this.nodes.get(ownerUid);
    if (!owner) return;
    if (owner.dependents === NO_DEPENDENTS) return;
    (owner.dependents as Set<string>).delete(dependentUid);
    if (owner.dependents.size === 0) owner.dependents = NO_DEPENDENTS;
    if (!owner.observed && owner.dependents.size === 0) this.nodes.delete(ownerUid);
  }
}
