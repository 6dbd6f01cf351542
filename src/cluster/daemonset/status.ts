/**
 * A DaemonSet's status, pure, with kube's counts (what `kubectl rollout status ds` reads):
 * desired = nodes that should run the daemon; current = those of them with a pod; misscheduled
 * = nodes with a pod that should not have one; and, judging each node by its oldest pod,
 * how many are ready, available (ready for minReadySeconds) and of the current template.
 */
import { isPodAvailable, isPodReady } from '../workload-common/pods.ts';
import { byAge, isUpdated } from './manage.ts';
import type { DaemonSetStatus, Pod } from './types.ts';

export interface StatusInput {
  /** Every node, with whether the daemon should run there. */
  readonly nodes: readonly { readonly name: string; readonly shouldRun: boolean }[];
  readonly podsByNode: ReadonlyMap<string, readonly Pod[]>;
  readonly hash: string;
  readonly minReadySeconds: number;
  readonly nowMs: number;
}

export function daemonSetCounts(input: StatusInput): Omit<DaemonSetStatus, 'observedGeneration'> {
  let desired = 0;
  let current = 0;
  let misscheduled = 0;
  let ready = 0;
  let available = 0;
  let updated = 0;
  for (const node of input.nodes) {
    const pods = input.podsByNode.get(node.name) ?? [];
    if (!node.shouldRun) {
      if (pods.length) misscheduled++;
      continue;
    }
    desired++;
    if (pods.length === 0) continue;
    current++;
    const pod = pods.length === 1 ? pods[0]! : [...pods].sort(byAge)[0]!;
    if (isPodReady(pod)) {
      ready++;
      if (isPodAvailable(pod, input.minReadySeconds, input.nowMs)) available++;
    }
    if (isUpdated(pod, input.hash)) updated++;
  }
  return {
    currentNumberScheduled: current,
    numberMisscheduled: misscheduled,
    desiredNumberScheduled: desired,
    numberReady: ready,
    updatedNumberScheduled: updated,
    numberAvailable: available,
    numberUnavailable: desired - available,
  };
}
