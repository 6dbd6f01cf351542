/**
 * What a DaemonSet needs on each node, pure (kube's podsShouldBeOnNode): a pod where one
 * should run and none is; no pod where none may stay; failed pods replaced; and at most one
 * pod per node, the oldest kept, except that during a surge update a second pod (the new
 * revision) may run beside the old one until it is available. A pod being deleted counts as
 * present, so no replacement starts until it is gone (a host port or a node-local resource
 * may still be held), unless surge is allowed.
 */
import { scaledValue } from '../../api/int-or-percent.ts';
import { creationTime, isPodAvailable, isPodReady } from '../workload-common/pods.ts';
import type { NodeFit } from './placement.ts';
import type { DaemonSet, Pod } from './types.ts';

export const REVISION_HASH_LABEL = 'controller-revision-hash';

/** Bound pods first, then oldest first (ties by name): the order kube keeps daemon pods in. */
export function byAge(a: Pod, b: Pod): number {
  const sa = !!a.spec?.nodeName;
  const sb = !!b.spec?.nodeName;
  if (sa !== sb) return sa ? -1 : 1;
  const ta = creationTime(a);
  const tb = creationTime(b);
  if (ta !== tb) return ta - tb;
  const na = a.metadata?.name ?? '';
  const nb = b.metadata?.name ?? '';
  return na < nb ? -1 : na > nb ? 1 : 0;
}

/** The update strategy allows surge pods (kube evaluates maxSurge against one node). */
export function allowsSurge(ds: DaemonSet): boolean {
  if ((ds.spec?.updateStrategy?.type ?? 'RollingUpdate') !== 'RollingUpdate') return false;
  try {
    return scaledValue(ds.spec?.updateStrategy?.rollingUpdate?.maxSurge as number | string | undefined, 1, true) !== 0;
  } catch {
    return false;
  }
}

export const isUpdated = (pod: Pod, hash: string): boolean => pod.metadata?.labels?.[REVISION_HASH_LABEL] === hash;

export interface NodeDecision {
  /** A pod should be created on the node. */
  readonly create: boolean;
  readonly delete: Pod[];
  /** Failed pods found (a subset of `delete` unless held back by backoff). */
  readonly failed: Pod[];
  /** Failed pods left alone for now because the node is in backoff. */
  readonly backedOff: boolean;
}

export interface NodeInput {
  readonly fit: NodeFit;
  /** The DaemonSet's pods targeting the node (finished-and-deleted ones excluded). */
  readonly pods: readonly Pod[];
  readonly hash: string;
  readonly surge: boolean;
  readonly minReadySeconds: number;
  readonly nowMs: number;
  /** Whether failed pods on this node must wait before being replaced again. */
  readonly inBackoff: boolean;
}

/** Shared by every node already running its one healthy daemon pod: the common case, and nothing to do. */
const SETTLED: NodeDecision = Object.freeze({ create: false, delete: Object.freeze([]) as unknown as Pod[], failed: Object.freeze([]) as unknown as Pod[], backedOff: false });

/** The node runs its one daemon pod, alive and allowed to stay: `decideNode` has nothing to do there. */
export function isSettled(fit: NodeFit, pods: readonly Pod[]): boolean {
  if (pods.length !== 1 || !fit.shouldContinueRunning) return false;
  const pod = pods[0]!;
  const phase = pod.status?.phase;
  return !pod.metadata?.deletionTimestamp && phase !== 'Failed' && phase !== 'Succeeded';
}

export function decideNode(input: NodeInput): NodeDecision {
  const { fit, pods } = input;
  if (isSettled(fit, pods)) return SETTLED;
  const toDelete: Pod[] = [];
  const failed: Pod[] = [];
  let backedOff = false;
  if (fit.shouldRun && pods.length === 0) return { create: true, delete: [], failed: [], backedOff };
  if (!fit.shouldContinueRunning) {
    return { create: false, delete: pods.filter((p) => !p.metadata?.deletionTimestamp), failed, backedOff };
  }
  const running: Pod[] = [];
  for (const pod of pods) {
    if (pod.metadata?.deletionTimestamp) continue;
    const phase = pod.status?.phase;
    if (phase === 'Failed' || phase === 'Succeeded') {
      // A daemon that exits is restarted by replacement; backoff keeps a crash loop from hammering the API.
      if (input.inBackoff) {
        backedOff = true;
        continue;
      }
      failed.push(pod);
      toDelete.push(pod);
    } else {
      running.push(pod);
    }
  }
  running.sort(byAge);
  if (!input.surge) {
    // Without surge only the oldest pod may stay.
    toDelete.push(...running.slice(1));
    return { create: false, delete: toDelete, failed, backedOff };
  }
  if (running.length === 0) return { create: fit.shouldRun, delete: toDelete, failed, backedOff };
  if (running.length === 1) return { create: false, delete: toDelete, failed, backedOff };
  // With surge, an old pod and a new one may share the node while the new one comes up.
  let oldestNew: Pod | undefined;
  let oldestOld: Pod | undefined;
  for (const pod of running) {
    if (isUpdated(pod, input.hash)) {
      if (!oldestNew) {
        oldestNew = pod;
        continue;
      }
    } else if (!oldestOld) {
      oldestOld = pod;
      continue;
    }
    toDelete.push(pod);
  }
  if (oldestNew && oldestOld && (!isPodReady(oldestOld) || isPodAvailable(oldestNew, input.minReadySeconds, input.nowMs))) toDelete.push(oldestOld);
  return { create: false, delete: toDelete, failed, backedOff };
}
