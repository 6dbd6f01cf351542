/**
 * Job conditions as kube 1.32's controller writes them: the interim SuccessCriteriaMet and
 * FailureTarget come first, and Complete or Failed (with the same reason and message) only once
 * every pod has terminated and been counted. A condition is appended, or rewritten when its
 * status, reason or message changes; a False condition is never added from nothing.
 */
import { formatTimestamp } from '../../api/time.ts';
import type { ConditionStatus, Job, JobCondition } from './types.ts';

export const COMPLETE = 'Complete';
export const FAILED = 'Failed';
export const SUSPENDED = 'Suspended';
export const FAILURE_TARGET = 'FailureTarget';
export const SUCCESS_CRITERIA_MET = 'SuccessCriteriaMet';

export const reasons = {
  backoffLimitExceeded: { reason: 'BackoffLimitExceeded', message: 'Job has reached the specified backoff limit' },
  deadlineExceeded: { reason: 'DeadlineExceeded', message: 'Job was active longer than specified deadline' },
  completionsReached: { reason: 'CompletionsReached', message: 'Reached expected number of succeeded pods' },
  podFailurePolicy: 'PodFailurePolicy',
} as const;

export function newCondition(type: string, status: ConditionStatus, reason: string, message: string, nowMs: number): JobCondition {
  const at = formatTimestamp(nowMs);
  return { type, status, reason, message, lastProbeTime: at, lastTransitionTime: at };
}

export function findCondition<C extends { readonly type?: string }>(list: readonly C[] | undefined, type: string): C | undefined {
  return list?.find((c) => c.type === type);
}

export function isConditionTrue(job: Job, type: string): boolean {
  return findCondition(job.status?.conditions, type)?.status === 'True';
}

/** Complete or Failed is True: the controller never touches the Job again. */
export function isJobFinished(job: Job): boolean {
  return isConditionTrue(job, COMPLETE) || isConditionTrue(job, FAILED);
}

/** Sets a condition in `list` (a private copy), returning whether anything changed. */
export function ensureCondition(list: JobCondition[], type: string, status: ConditionStatus, reason: string, message: string, nowMs: number): boolean {
  const i = list.findIndex((c) => c.type === type);
  if (i >= 0) {
    const c = list[i]!;
    if (c.status === status && (c.reason ?? '') === reason && (c.message ?? '') === message) return false;
    list[i] = newCondition(type, status, reason, message, nowMs);
    return true;
  }
  if (status === 'False') return false;
  list.push(newCondition(type, status, reason, message, nowMs));
  return true;
}
