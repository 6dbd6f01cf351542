/** The Job as the controller reads it from the cache, its status as JSON, and the names kube gives its pods' markers. */
import type { V1Job } from '@kubernetes/client-node';
import type { DeepReadonly } from '../../runtime/readonly.ts';

export type Job = DeepReadonly<V1Job>;

/** Holds a finished pod until the controller has counted it in the Job's status. */
export const TRACKING_FINALIZER = 'batch.kubernetes.io/job-tracking';
/** Annotation and label carrying an Indexed Job pod's completion index. */
export const COMPLETION_INDEX_KEY = 'batch.kubernetes.io/job-completion-index';
/** The environment variable an Indexed Job's containers read their index from. */
export const COMPLETION_INDEX_ENV = 'JOB_COMPLETION_INDEX';

export type ConditionStatus = 'True' | 'False' | 'Unknown';

export interface JobCondition {
  type: string;
  status: ConditionStatus;
  reason?: string;
  message?: string;
  lastProbeTime?: string;
  lastTransitionTime?: string;
}

export interface JobStatus {
  conditions?: JobCondition[];
  startTime?: string;
  completionTime?: string;
  active?: number;
  succeeded?: number;
  failed?: number;
  terminating?: number;
  ready?: number;
  completedIndexes?: string;
  uncountedTerminatedPods?: { succeeded?: string[]; failed?: string[] };
}
