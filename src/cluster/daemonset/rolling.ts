/**
 * A DaemonSet rolling update step, pure (kube's rollingUpdate). Both budgets are resolved
 * against the number of nodes that should run the daemon, rounding up; both 0 means one node
 * at a time.
 * - Without surge, old pods are deleted (and replaced by the next pass) while fewer than
 *   maxUnavailable nodes lack an available pod; an old pod that is not available anyway may
 *   always go.
 * - With surge, a new pod is started beside an old one on up to maxSurge nodes at a time
 *   (at once where the old pod is not available), and the old pod is deleted once the new one
 *   is available.
 */
import { scaledValue, type IntOrPercent } from '../../api/int-or-percent.ts';
import { isPodAvailable } from '../workload-common/pods.ts';
import { isUpdated } from './manage.ts';
import type { DaemonSet, Pod } from './types.ts';

export function budgets(ds: DaemonSet, desired: number): { maxSurge: number; maxUnavailable: number } {
  const ru = ds.spec?.updateStrategy?.rollingUpdate;
  const maxSurge = scaledValue((ru?.maxSurge ?? 0) as IntOrPercent, desired, true);
  let maxUnavailable = scaledValue((ru?.maxUnavailable ?? 1) as IntOrPercent, desired, true);
  if (desired > 0 && maxSurge === 0 && maxUnavailable === 0) maxUnavailable = 1;
  return { maxSurge, maxUnavailable };
}

/** The one new and one old pod on a node (deleting pods ignored); ok=false when there are more. */
export function updatedAndOld(pods: readonly Pod[], hash: string): { ok: boolean; newPod?: Pod; oldPod?: Pod } {
  let newPod: Pod | undefined;
  let oldPod: Pod | undefined;
  for (const pod of pods) {
    if (pod.metadata?.deletionTimestamp) continue;
    if (isUpdated(pod, hash)) {
      if (newPod) return { ok: false };
      newPod = pod;
    } else {
      if (oldPod) return { ok: false };
      oldPod = pod;
    }
  }
  return { ok: true, newPod, oldPod };
}

export interface RollingInput {
  /** Node name → the daemon's pods there, for every node with pods or that should run one. */
  readonly nodes: ReadonlyMap<string, readonly Pod[]>;
  readonly hash: string;
  readonly maxSurge: number;
  readonly maxUnavailable: number;
  readonly minReadySeconds: number;
  readonly nowMs: number;
  /** Whether a pod should be started on the node now (for an unavailable old pod under surge). */
  readonly shouldRun: (node: string) => boolean;
}

export function planRollingUpdate(input: RollingInput): { deletePods: Pod[]; createOn: string[] } {
  const available = (p: Pod) => isPodAvailable(p, input.minReadySeconds, input.nowMs);
  if (input.maxSurge === 0) {
    let unavailable = 0;
    const replaceNow: Pod[] = [];
    const candidates: Pod[] = [];
    for (const pods of input.nodes.values()) {
      const { ok, newPod, oldPod } = updatedAndOld(pods, input.hash);
      if (!ok || (!oldPod && !newPod) || (oldPod && newPod)) {
        // The manage pass still has work here; count the node as down.
        unavailable++;
      } else if (newPod) {
        if (!available(newPod)) unavailable++;
      } else if (!available(oldPod!)) {
        replaceNow.push(oldPod!);
      } else if (unavailable < input.maxUnavailable) {
        candidates.push(oldPod!);
      }
    }
    const room = Math.max(0, Math.min(input.maxUnavailable - unavailable, candidates.length));
    return { deletePods: [...replaceNow, ...candidates.slice(0, room)], createOn: [] };
  }

  const deletePods: Pod[] = [];
  const startNow: string[] = [];
  const candidates: string[] = [];
  let surging = 0;
  for (const [node, pods] of input.nodes) {
    const { ok, newPod, oldPod } = updatedAndOld(pods, input.hash);
    if (!ok) {
      surging++;
      continue;
    }
    if (!oldPod) continue;
    if (!newPod) {
      if (!available(oldPod)) {
        if (!input.shouldRun(node)) deletePods.push(oldPod);
        else startNow.push(node);
      } else if (surging < input.maxSurge) {
        candidates.push(node);
      }
      continue;
    }
    if (!available(newPod)) surging++;
    else deletePods.push(oldPod);
  }
  const room = Math.max(0, Math.min(input.maxSurge - surging, candidates.length));
  return { deletePods, createOn: [...startNow, ...candidates.slice(0, room)] };
}
