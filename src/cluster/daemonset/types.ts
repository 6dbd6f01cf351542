/** DaemonSets, nodes and pods as the controller reads them, and the status it writes. */
import type { V1DaemonSet, V1Node } from '@kubernetes/client-node';
import type { DeepReadonly } from '../../runtime/readonly.ts';

export type DaemonSet = DeepReadonly<V1DaemonSet>;
export type Node = DeepReadonly<V1Node>;
export type { Pod } from '../workload-common/pods.ts';

export interface DaemonSetStatus {
  currentNumberScheduled: number;
  numberMisscheduled: number;
  desiredNumberScheduled: number;
  numberReady: number;
  updatedNumberScheduled: number;
  numberAvailable: number;
  numberUnavailable: number;
  observedGeneration?: number;
  collisionCount?: number;
  conditions?: unknown[];
}
