/**
 * Message tables for apps/v1 Deployment: spec, strategy and status. Notation: ../schema.ts.
 */
import type { MessageTable } from '../schema.ts';

export const appsV1: MessageTable = {
  Deployment: {
    1: 'metadata: ObjectMeta',
    2: 'spec: DeploymentSpec',
    3: 'status: DeploymentStatus',
  },
  DeploymentSpec: {
    1: 'replicas: int32!',
    2: 'selector: LabelSelector',
    3: 'template: PodTemplateSpec',
    4: 'strategy: DeploymentStrategy',
    5: 'minReadySeconds: int32',
    6: 'revisionHistoryLimit: int32!',
    7: 'paused: bool',
    9: 'progressDeadlineSeconds: int32!',
  },
  DeploymentStrategy: {
    1: 'type: string',
    2: 'rollingUpdate: RollingUpdateDeployment',
  },
  RollingUpdateDeployment: {
    1: 'maxUnavailable: IntOrString',
    2: 'maxSurge: IntOrString',
  },
  DeploymentStatus: {
    1: 'observedGeneration: int64',
    2: 'replicas: int32',
    3: 'updatedReplicas: int32',
    4: 'availableReplicas: int32',
    5: 'unavailableReplicas: int32',
    6: 'conditions: []DeploymentCondition',
    7: 'readyReplicas: int32',
    8: 'collisionCount: int32!',
  },
  DeploymentCondition: {
    1: 'type: string!',
    2: 'status: string!',
    4: 'reason: string',
    5: 'message: string',
    6: 'lastUpdateTime: Time',
    7: 'lastTransitionTime: Time',
  },
};
