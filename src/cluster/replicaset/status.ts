/**
 * A ReplicaSet's status from its active pods: how many there are, how many carry every label
 * of the template (fullyLabeledReplicas), are ready, and have been ready for minReadySeconds
 * (availableReplicas). A failed create or delete sets `ReplicaFailure=True` with the API's
 * error as the message (a quota refusal reads as the quota says); the next clean pass removes it.
 */
import { matchesLabelSet } from '../../api/label-selector.ts';
import { formatTimestamp } from '../../api/time.ts';
import { isPodAvailable, isPodReady, type Pod } from '../workload-common/pods.ts';
import type { ReplicaSet, ReplicaSetCondition, ReplicaSetStatus } from './types.ts';

export const REPLICA_FAILURE = 'ReplicaFailure';

export interface ManageFailure {
  /** Whether the pass was creating (too few pods) or deleting (too many). */
  readonly creating: boolean;
  readonly message: string;
}

export function calculateStatus(rs: ReplicaSet, activePods: readonly Pod[], failure: ManageFailure | undefined, nowMs: number): ReplicaSetStatus {
  const templateLabels = rs.spec?.template?.metadata?.labels;
  const minReadySeconds = rs.spec?.minReadySeconds ?? 0;
  let fullyLabeled = 0;
  let ready = 0;
  let available = 0;
  for (const pod of activePods) {
    if (matchesLabelSet(templateLabels, pod.metadata?.labels)) fullyLabeled++;
    if (isPodReady(pod)) {
      ready++;
      if (isPodAvailable(pod, minReadySeconds, nowMs)) available++;
    }
  }
  let conditions = (rs.status?.conditions ?? []).map((c) => ({ ...c }) as unknown as ReplicaSetCondition);
  const existing = conditions.find((c) => c.type === REPLICA_FAILURE);
  if (failure && !existing) {
    conditions.push({
      type: REPLICA_FAILURE,
      status: 'True',
      reason: failure.creating ? 'FailedCreate' : 'FailedDelete',
      message: failure.message,
      lastTransitionTime: formatTimestamp(nowMs),
    });
  } else if (!failure && existing) {
    conditions = conditions.filter((c) => c.type !== REPLICA_FAILURE);
  }
  const status: ReplicaSetStatus = {
    replicas: activePods.length,
    fullyLabeledReplicas: fullyLabeled,
    readyReplicas: ready,
    availableReplicas: available,
    observedGeneration: rs.metadata?.generation,
  };
  if (conditions.length) status.conditions = conditions;
  return status;
}
