/** The ReplicaSet as the controller reads it from the cache, and its status as JSON (string timestamps). */
import type { V1ReplicaSet } from '@kubernetes/client-node';
import type { DeepReadonly } from '../../runtime/readonly.ts';

export type ReplicaSet = DeepReadonly<V1ReplicaSet>;

export interface ReplicaSetCondition {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  reason?: string;
  message?: string;
  lastTransitionTime?: string;
}

export interface ReplicaSetStatus {
  replicas: number;
  fullyLabeledReplicas: number;
  readyReplicas: number;
  availableReplicas: number;
  observedGeneration?: number;
  conditions?: ReplicaSetCondition[];
}
