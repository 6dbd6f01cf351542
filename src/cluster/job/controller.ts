/**
 * The Job controller, as kube-controller-manager's: reconciles are keyed by Job. Pod events map
 * to the Job that controls the pod (settling the expectations of its own creates, deletes and
 * finalizer removals), or for an orphan to every Job in its namespace whose selector matches.
 *
 * A second queue, keyed by pod, takes the tracking finalizer off pods no unfinished Job will
 * count: orphans, and pods of a Job that was deleted or has finished. Without it a deleted
 * Job's pods would wait for their finalizer forever.
 */
import type { V1Job, V1Pod } from '@kubernetes/client-node';
import { NAMESPACE_INDEX, objectKey } from '../../runtime/cache.ts';
import { isConflict, isNotFound } from '../../runtime/client.ts';
import type { ControllerContext } from '../../runtime/context.ts';
import { Controller, controllerOf } from '../../runtime/controller.ts';
import type { DeepReadonly } from '../../runtime/readonly.ts';
import { resources } from '../../runtime/resources.ts';
import { Expectations } from '../../runtime/expectations.ts';
import { addOwnerIndexes, CONTROLLER_UID_INDEX, controllerKey } from '../workload-common/owners.ts';
import { PodControl } from '../workload-common/pod-control.ts';
import { DEFAULT_POD_FAILURE_BACKOFF_MS, MAX_POD_FAILURE_BACKOFF_MS, type BackoffRecord } from './backoff.ts';
import { isJobFinished } from './conditions.ts';
import { FinalizerExpectations } from './finalizer-expectations.ts';
import { hasTrackingFinalizer } from './pods.ts';
import { jobSelector, makeJobReconcile } from './sync.ts';
import { TRACKING_FINALIZER, type Job } from './types.ts';

export interface JobControllerOptions {
  /** Concurrent reconciles (kube's --concurrent-job-syncs); default 5. */
  workers?: number;
  /** The first pod failure backoff and its cap; kube's 10 s and 6 minutes unless a test wants them shorter. */
  podFailureBackoffMs?: number;
  maxPodFailureBackoffMs?: number;
}

const NAME = 'job';
type Pod = DeepReadonly<V1Pod>;

export function createJobController(ctx: ControllerContext, options: JobControllerOptions = {}): Controller[] {
  const logger = ctx.logger.child({ controller: NAME });
  const jobs = ctx.informers.informer<V1Job>(resources.jobs);
  const pods = ctx.informers.informer<V1Pod>(resources.pods);
  addOwnerIndexes(jobs);
  addOwnerIndexes(pods);
  const expectations = new Expectations({ clock: ctx.clock });
  const finalizerExpectations = new FinalizerExpectations();
  const backoff = new Map<string, BackoffRecord>();

  const controller = new Controller({
    name: NAME,
    workers: options.workers ?? 5,
    clock: ctx.clock,
    observer: ctx.metrics?.forController(NAME),
    // A conflict only means the cache was behind; the retry reads the newer Job.
    onError: (r) => logger[isConflict(r.error) ? 'debug' : 'warn']({ key: r.key, err: String(r.error) }, 'sync failed'),
    reconcile: makeJobReconcile({
      client: ctx.client,
      jobs,
      pods,
      podControl: new PodControl({ client: ctx.client, recorder: ctx.recorder }),
      recorder: ctx.recorder,
      expectations,
      finalizerExpectations,
      backoff,
      now: () => ctx.clock.wallNow(),
      backoffBaseMs: options.podFailureBackoffMs ?? DEFAULT_POD_FAILURE_BACKOFF_MS,
      backoffCapMs: options.maxPodFailureBackoffMs ?? MAX_POD_FAILURE_BACKOFF_MS,
    }),
  });

  const orphans = new Controller({
    name: 'job-orphan-pod',
    clock: ctx.clock,
    observer: ctx.metrics?.forController('job-orphan-pod'),
    onError: (r) => logger.debug({ key: r.key, err: String(r.error) }, 'removing the tracking finalizer failed'),
    reconcile: async (key) => {
      const pod = pods.store.get(key);
      if (!pod || !hasTrackingFinalizer(pod)) return;
      const ref = controllerOf(pod);
      if (ref) {
        // Someone else's pod keeps its finalizer; a pod a live Job was adopted by is that Job's to count.
        if (ref.kind !== 'Job' || ref.apiVersion !== 'batch/v1') return;
        const job = jobs.store.get(`${pod.metadata?.namespace}/${ref.name}`);
        if (job && job.metadata?.uid === ref.uid && !isJobFinished(job)) return;
      }
      try {
        await ctx.client.patch(resources.pods, pod.metadata?.namespace, pod.metadata?.name ?? '', { metadata: { '$deleteFromPrimitiveList/finalizers': [TRACKING_FINALIZER] } }, { type: 'strategic' });
      } catch (err) {
        if (!isNotFound(err)) throw err;
      }
    },
  });

  controller.watchMapped(jobs, (job) => [objectKey(job)]);

  /** The Job whose pods these are, when the cache holds that very Job. */
  const jobOf = (pod: Pod): { key: string; job: Job } | undefined => {
    const key = controllerKey(pod, 'Job', jobs);
    const job = key ? jobs.store.get(key) : undefined;
    return key && job ? { key, job } : undefined;
  };

  const matchingJobs = (pod: Pod): string[] =>
    jobs.store
      .byIndex(NAMESPACE_INDEX, pod.metadata?.namespace ?? '')
      .filter((j) => jobSelector(j)?.(pod.metadata?.labels))
      .map(objectKey);

  /** A deletion (begun or done): the Job's expectations hear of it; a pod no Job will count loses its finalizer. */
  const podGone = (pod: Pod, final: boolean): void => {
    const owner = jobOf(pod);
    if (!owner || isJobFinished(owner.job)) {
      if (hasTrackingFinalizer(pod)) orphans.enqueue(objectKey(pod));
      return;
    }
    expectations.deletionObserved(owner.key, objectKey(pod));
    if (final || !hasTrackingFinalizer(pod)) finalizerExpectations.removalObserved(owner.key, pod.metadata?.uid ?? '');
    controller.enqueue(owner.key);
  };

  pods.on('add', (pod) => {
    // A pod already being deleted when first seen (say, after a restart) only matters as a deletion.
    if (pod.metadata?.deletionTimestamp) return podGone(pod, false);
    const owner = jobOf(pod);
    if (owner) {
      expectations.creationObserved(owner.key);
      controller.enqueue(owner.key);
      return;
    }
    if (controllerOf(pod)) {
      if (hasTrackingFinalizer(pod)) orphans.enqueue(objectKey(pod));
      return;
    }
    if (hasTrackingFinalizer(pod)) orphans.enqueue(objectKey(pod));
    for (const k of matchingJobs(pod)) controller.enqueue(k);
  });

  pods.on('update', (pod, old) => {
    if (pod.metadata?.resourceVersion === old.metadata?.resourceVersion) return;
    if (pod.metadata?.deletionTimestamp) return podGone(pod, false);
    const removed = !hasTrackingFinalizer(pod);
    const cur = controllerOf(pod);
    const prev = controllerOf(old);
    if (prev && cur?.uid !== prev.uid) {
      const before = jobOf(old);
      if (before) {
        if (removed) finalizerExpectations.removalObserved(before.key, pod.metadata?.uid ?? '');
        controller.enqueue(before.key);
      }
    }
    if (cur) {
      const owner = jobOf(pod);
      if (!owner) {
        if (!removed) orphans.enqueue(objectKey(pod));
        return;
      }
      if (removed) finalizerExpectations.removalObserved(owner.key, pod.metadata?.uid ?? '');
      controller.enqueue(owner.key);
      return;
    }
    if (!removed) orphans.enqueue(objectKey(pod));
    const labelsChanged = JSON.stringify(pod.metadata?.labels ?? {}) !== JSON.stringify(old.metadata?.labels ?? {});
    if (labelsChanged || prev) for (const k of matchingJobs(pod)) controller.enqueue(k);
  });

  pods.on('delete', (pod) => podGone(pod, true));

  /** A deleted or finished Job's pods that still hold the finalizer (kube's cleanupPodFinalizers). */
  const releasePods = (job: Job): void => {
    for (const pod of pods.store.byIndex(CONTROLLER_UID_INDEX, job.metadata?.uid ?? '')) if (hasTrackingFinalizer(pod)) orphans.enqueue(objectKey(pod));
  };
  jobs.on('update', (job, old) => {
    if (isJobFinished(job)) releasePods(job);
    // A changed deadline needs a pass when it falls due.
    const deadline = job.spec?.activeDeadlineSeconds;
    const started = job.status?.startTime ? Date.parse(String(job.status.startTime)) : NaN;
    if (deadline !== undefined && deadline !== old.spec?.activeDeadlineSeconds && !Number.isNaN(started)) {
      controller.enqueueAfter(objectKey(job), Math.max(0, deadline * 1000 - (ctx.clock.wallNow() - started)));
    }
  });
  jobs.on('delete', releasePods);

  return [controller, orphans];
}
