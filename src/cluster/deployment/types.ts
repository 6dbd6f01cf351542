/** Deployments and their ReplicaSets as the controller reads them, and the status it writes (JSON, string timestamps). */
import type { V1Deployment, V1ReplicaSet } from '@kubernetes/client-node';
import type { DeepReadonly } from '../../runtime/readonly.ts';

/** A Deployment whose status is the JSON the controller writes. */
export type DeploymentObject = Omit<V1Deployment, 'status'> & { status?: DeploymentStatus };
export type Deployment = DeepReadonly<DeploymentObject>;
export type ReplicaSet = DeepReadonly<V1ReplicaSet>;

export interface DeploymentCondition {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  reason?: string;
  message?: string;
  lastUpdateTime?: string;
  lastTransitionTime?: string;
}

export interface DeploymentStatus {
  observedGeneration?: number;
  replicas: number;
  updatedReplicas: number;
  readyReplicas: number;
  availableReplicas: number;
  unavailableReplicas: number;
  collisionCount?: number;
  conditions?: DeploymentCondition[];
}
