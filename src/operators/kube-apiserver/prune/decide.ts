/**
 * Which revisions the prune controller keeps (issue 17, item 4; library-go's prune controller,
 * reference §9). A revision is kept while a node could still need it: the last
 * `succeededRevisionLimit` up to a node's current revision (what it would fall back to), the
 * last max(F, S) up to its target, the last `failedRevisionLimit` up to its last failed one (so
 * the failure can be read), the last max(F, S) up to the latest while a node is still below it,
 * and the latest itself, always. Everything else at or below the latest goes: its
 * `revision-status-N` in the API (its copies and installer pods follow by ownerReference) and
 * its `kube-apiserver-pod-N` directory on every node, by a pruner pod per node.
 */
import type { NodeStatus } from '../../../api/operator/index.ts';
import type { DeepReadonly } from '../../../runtime/readonly.ts';

/** Upstream's default for both limits when the spec leaves them 0 or unset. */
export const defaultRevisionLimit = 5;

export interface RevisionLimits {
  readonly failed: number;
  readonly succeeded: number;
}

/** 0 or unset is 5; -1 (any negative) keeps everything, as Infinity. */
export function revisionLimits(spec: { readonly failedRevisionLimit?: number; readonly succeededRevisionLimit?: number } | undefined): RevisionLimits {
  const of = (v: number | undefined) => (!v ? defaultRevisionLimit : v < 0 ? Infinity : v);
  return { failed: of(spec?.failedRevisionLimit), succeeded: of(spec?.succeededRevisionLimit) };
}

export type PruneDecision =
  /** Every revision 1…latest is kept: nothing to delete, no pruner pod. */
  | { readonly kind: 'keepAll' }
  | {
      readonly kind: 'prune';
      /** Ascending; passed to the pruner as `--protected-revisions`. */
      readonly protectedRevisions: readonly number[];
      /** `revision-status-N` ConfigMaps to delete, ascending. */
      readonly deleteRevisions: readonly number[];
      /** The nodes that get `revision-pruner-<latest>-<node>`: those with any revision on disk. */
      readonly pruneNodes: readonly string[];
    };

export interface PruneInput {
  readonly latestAvailableRevision: number;
  readonly nodeStatuses: readonly DeepReadonly<NodeStatus>[];
  readonly limits: RevisionLimits;
  /** The revisions that have a `revision-status-N` in the API. */
  readonly existingRevisions: Iterable<number>;
}

/** N down to N−limit+1, never below 1. */
function keepDown(into: Set<number>, from: number | undefined, limit: number): void {
  if (!from || from < 1) return;
  const stop = limit === Infinity ? 1 : Math.max(1, from - limit + 1);
  for (let r = from; r >= stop; r--) into.add(r);
}

export function protectedRevisions(latest: number, nodes: readonly DeepReadonly<NodeStatus>[], limits: RevisionLimits): Set<number> {
  const most = Math.max(limits.failed, limits.succeeded);
  const keep = new Set<number>();
  for (const n of nodes) {
    keepDown(keep, n.currentRevision, limits.succeeded);
    keepDown(keep, n.targetRevision, most);
    keepDown(keep, n.lastFailedRevision, limits.failed);
  }
  if (nodes.some((n) => (n.currentRevision ?? 0) < latest)) keepDown(keep, latest, most);
  keepDown(keep, latest, 1);
  return keep;
}

export function decidePrune(input: PruneInput): PruneDecision {
  const latest = input.latestAvailableRevision;
  if (latest < 1) return { kind: 'keepAll' };
  const keep = protectedRevisions(latest, input.nodeStatuses, input.limits);
  let all = true;
  for (let r = 1; r <= latest && all; r++) all = keep.has(r);
  if (all) return { kind: 'keepAll' };
  const deleteRevisions = [...new Set(input.existingRevisions)].filter((r) => r >= 1 && r <= latest && !keep.has(r)).sort((a, b) => a - b);
  const pruneNodes = input.nodeStatuses.filter((n) => Math.max(n.currentRevision ?? 0, n.targetRevision ?? 0, n.lastFailedRevision ?? 0) > 0).map((n) => n.nodeName);
  return { kind: 'prune', protectedRevisions: [...keep].sort((a, b) => a - b), deleteRevisions, pruneNodes };
}
