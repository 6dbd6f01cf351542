/**
 * The Job controller's view of its pods: the pod it creates from the template (tracking
 * finalizer, and for an Indexed Job the index as annotation, label, `JOB_COMPLETION_INDEX` and
 * hostname), which pods count as failed or terminating, and which active pods to delete first
 * (unscheduled before scheduled, pending before running, not ready before ready, newest first).
 */
import type { V1Container, V1Pod } from '@kubernetes/client-node';
import type { DeepReadonly } from '../../runtime/readonly.ts';
import { resources } from '../../runtime/resources.ts';
import { podFromTemplate } from '../workload-common/pod-control.ts';
import { creationTime, isPodReady, podReadySince } from '../workload-common/pods.ts';
import { COMPLETION_INDEX_ENV, COMPLETION_INDEX_KEY, TRACKING_FINALIZER, type Job } from './types.ts';

type Pod = DeepReadonly<V1Pod>;

export function hasTrackingFinalizer(pod: Pod): boolean {
  return pod.metadata?.finalizers?.includes(TRACKING_FINALIZER) ?? false;
}

/** Pods are only replaced once Failed when the Job says so (podReplacementPolicy Failed, implied by a podFailurePolicy). */
export function onlyReplaceFailedPods(job: Job): boolean {
  return job.spec?.podReplacementPolicy === 'Failed' || !!job.spec?.podFailurePolicy;
}

/** Failed, or (unless only Failed pods are replaced) being deleted before it succeeded: a pod deleted early never gets to fail. */
export function isPodFailed(pod: Pod, job: Job): boolean {
  if (pod.status?.phase === 'Failed') return true;
  if (onlyReplaceFailedPods(job)) return false;
  return !!pod.metadata?.deletionTimestamp && pod.status?.phase !== 'Succeeded';
}

/** Being deleted and not yet in a terminal phase. */
export function isPodTerminating(pod: Pod): boolean {
  const phase = pod.status?.phase;
  return !!pod.metadata?.deletionTimestamp && phase !== 'Succeeded' && phase !== 'Failed';
}

const JOBS = resources.jobs;

function withIndexEnv(c: V1Container): V1Container {
  if (c.env?.some((e) => e.name === COMPLETION_INDEX_ENV)) return c;
  return { ...c, env: [...(c.env ?? []), { name: COMPLETION_INDEX_ENV, valueFrom: { fieldRef: { fieldPath: `metadata.annotations['${COMPLETION_INDEX_KEY}']` } } }] };
}

/** The pod the Job creates next; `index` for an Indexed Job. */
export function jobPod(job: Job, index?: number): V1Pod {
  const pod = podFromTemplate(JOBS, job, job.spec!.template!);
  const meta = pod.metadata!;
  meta.finalizers = [...(meta.finalizers ?? []).filter((f) => f !== TRACKING_FINALIZER), TRACKING_FINALIZER];
  if (index !== undefined) {
    const name = job.metadata?.name ?? '';
    meta.generateName = `${name}-${index}-`;
    meta.annotations = { ...(meta.annotations ?? {}), [COMPLETION_INDEX_KEY]: String(index) };
    meta.labels = { ...(meta.labels ?? {}), [COMPLETION_INDEX_KEY]: String(index) };
    const spec = pod.spec!;
    spec.hostname = `${name}-${index}`;
    spec.containers = spec.containers.map(withIndexEnv);
    if (spec.initContainers) spec.initContainers = spec.initContainers.map(withIndexEnv);
  }
  return pod;
}

const phaseRank = (p: Pod): number => ({ Pending: 0, Unknown: 1, Running: 2 })[p.status?.phase ?? 'Pending'] ?? 0;

/** kube's controller.ActivePods order: the pods most worth deleting first. */
export function deletionOrder(a: Pod, b: Pod): number {
  const scheduled = Number(!!a.spec?.nodeName) - Number(!!b.spec?.nodeName);
  if (scheduled) return scheduled;
  const phase = phaseRank(a) - phaseRank(b);
  if (phase) return phase;
  const ready = Number(isPodReady(a)) - Number(isPodReady(b));
  if (ready) return ready;
  // Of two ready pods, the one ready for less time goes first.
  const readyFor = (podReadySince(b) ?? 0) - (podReadySince(a) ?? 0);
  if (readyFor) return readyFor;
  return creationTime(b) - creationTime(a);
}
