/**
 * One Job reconcile, kube's syncJob: claim the pods, count the ones that finished since the
 * last pass, decide whether the Job has met its completions or must fail (backoff limit,
 * active deadline, a FailJob rule of its pod failure policy), create or delete pods to run
 * `parallelism` of them (after the failure backoff, none while suspended), then track the
 * finished pods in status.
 *
 * Tracking follows kube's finalizer protocol, so no pod is counted twice or lost across
 * restarts: each pod carries `batch.kubernetes.io/job-tracking` until counted. A finished pod's
 * uid is first written to `status.uncountedTerminatedPods`, then its finalizer is removed, then
 * it moves into `succeeded`/`failed`. A Job that is done first gets the interim condition
 * (SuccessCriteriaMet or FailureTarget); Complete or Failed follow once no pod is left running,
 * terminating or uncounted.
 */
import type { V1Job, V1Pod } from '@kubernetes/client-node';
import { compileLabelSelector, type LabelMatcher } from '../../api/label-selector.ts';
import { formatTimestamp } from '../../api/time.ts';
import { objectKey } from '../../runtime/cache.ts';
import { isNotFound, type ApiClient } from '../../runtime/client.ts';
import type { EventSink } from '../../runtime/context.ts';
import type { Informer } from '../../runtime/informer.ts';
import type { DeepReadonly } from '../../runtime/readonly.ts';
import { terminal, type ReconcileResult } from '../../runtime/reconcile-loop.ts';
import { resources } from '../../runtime/resources.ts';
import { claim } from '../workload-common/claim.ts';
import type { Expectations } from '../../runtime/expectations.ts';
import { CONTROLLER_UID_INDEX, ORPHAN_INDEX, subjectOf } from '../workload-common/owners.ts';
import type { PodControl } from '../workload-common/pod-control.ts';
import { isPodActive, isPodReady } from '../workload-common/pods.ts';
import { slowStartBatch } from '../workload-common/slow-start.ts';
import { nextBackoffRecord, remainingBackoffMs, type BackoffRecord } from './backoff.ts';
import { COMPLETE, FAILED, FAILURE_TARGET, SUCCESS_CRITERIA_MET, SUSPENDED, ensureCondition, findCondition, isJobFinished, newCondition, reasons } from './conditions.ts';
import { matchPodFailurePolicy } from './failure-policy.ts';
import type { FinalizerExpectations } from './finalizer-expectations.ts';
import { completionIndex, formatIndexes, parseIndexes, pendingIndexes } from './indexes.ts';
import { deletionOrder, hasTrackingFinalizer, isPodFailed, isPodTerminating, jobPod, onlyReplaceFailedPods } from './pods.ts';
import { TRACKING_FINALIZER, type Job, type JobCondition, type JobStatus } from './types.ts';

type Pod = DeepReadonly<V1Pod>;

const JOBS = resources.jobs;
/** At most this many uids wait in `uncountedTerminatedPods` at once (kube's MaxUncountedPods), keeping the status small. */
const MAX_UNCOUNTED_PODS = 500;
/** Most pods created or deleted in one pass (kube's MaxPodCreateDeletePerSync). */
const MAX_POD_CHANGES_PER_SYNC = 500;

export interface JobSyncDeps {
  readonly client: ApiClient;
  readonly jobs: Informer<V1Job>;
  readonly pods: Informer<V1Pod>;
  readonly podControl: PodControl;
  readonly recorder: EventSink;
  readonly expectations: Expectations;
  readonly finalizerExpectations: FinalizerExpectations;
  /** Failure backoff per Job key (kube's podBackoffStore). */
  readonly backoff: Map<string, BackoffRecord>;
  /** Wall clock in ms: start and completion times, conditions, deadlines and backoff. */
  readonly now: () => number;
  readonly backoffBaseMs: number;
  readonly backoffCapMs: number;
}

/** Selectors are immutable, so each cached Job's compiled selector is kept with it. */
const compiled = new WeakMap<object, LabelMatcher | undefined>();
export function jobSelector(job: Job): LabelMatcher | undefined {
  const sel = job.spec?.selector;
  if (!sel) return undefined;
  if (!compiled.has(sel)) compiled.set(sel, compileLabelSelector(sel).matches);
  return compiled.get(sel);
}

const isIndexed = (job: Job): boolean => job.spec?.completionMode === 'Indexed';
const isSuspended = (job: Job): boolean => job.spec?.suspend === true;
const parseTime = (t: unknown): number | undefined => (typeof t === 'string' || t instanceof Date ? Date.parse(String(t instanceof Date ? t.toISOString() : t)) : undefined);

/** A pod the Job's counts consider: for an Indexed Job, only one with an index below `completions`. */
function validIndexFor(job: Job, pod: Pod): boolean {
  if (!isIndexed(job)) return true;
  const ix = completionIndex(pod);
  return ix !== undefined && ix < (job.spec?.completions ?? 0);
}

/** With restartPolicy OnFailure failures are container restarts: their sum against the backoff limit. */
function pastBackoffLimitOnFailure(job: Job, pods: readonly Pod[]): boolean {
  if (job.spec?.template?.spec?.restartPolicy !== 'OnFailure') return false;
  let restarts = 0;
  for (const p of pods) {
    if (p.status?.phase !== 'Running' && p.status?.phase !== 'Pending') continue;
    for (const cs of [...(p.status?.initContainerStatuses ?? []), ...(p.status?.containerStatuses ?? [])]) restarts += cs.restartCount ?? 0;
  }
  const limit = job.spec?.backoffLimit ?? 6;
  return limit === 0 ? restarts > 0 : restarts >= limit;
}

interface SyncState {
  readonly key: string;
  readonly job: Job;
  readonly pods: readonly Pod[];
  readonly activePods: readonly Pod[];
  status: JobStatus;
  finished?: JobCondition;
  succeeded: number;
  failed: number;
  ready: number;
  terminating: number;
  prevSucceededIndexes: Set<number>;
  succeededIndexes: Set<number>;
  newBackoff: BackoffRecord;
  expectedRemovals: ReadonlySet<string>;
  uncountedSucceeded: ReadonlySet<string>;
  uncountedFailed: ReadonlySet<string>;
}

export function makeJobReconcile(deps: JobSyncDeps): (key: string) => Promise<ReconcileResult> {
  const { expectations, finalizerExpectations, pods } = deps;

  const event = (job: Job, type: 'Normal' | 'Warning', reason: string, message: string): void => deps.recorder.event(subjectOf(JOBS, job), type, reason, message);

  async function claimPods(job: Job, matches: LabelMatcher): Promise<Pod[]> {
    const ns = job.metadata?.namespace ?? '';
    const owned = pods.store.byIndex(CONTROLLER_UID_INDEX, job.metadata?.uid ?? '');
    const ownedBefore = new Set(owned.map((p) => p.metadata?.uid));
    const claimed = await claim({ client: deps.client, resource: resources.pods, ownerResource: JOBS, owner: job, matches, candidates: [...owned, ...pods.store.byIndex(ORPHAN_INDEX, ns)] });
    // An adopted pod is tracked like the Job's own, so it gets the finalizer too (kube adds it in the adoption patch).
    const out: Pod[] = [];
    for (const p of claimed) {
      if (ownedBefore.has(p.metadata?.uid) || hasTrackingFinalizer(p)) {
        out.push(p);
        continue;
      }
      try {
        out.push((await deps.client.patch<V1Pod>(resources.pods, p.metadata?.namespace, p.metadata?.name ?? '', { metadata: { uid: p.metadata?.uid, finalizers: [TRACKING_FINALIZER] } }, { type: 'strategic' })) as Pod);
      } catch (err) {
        if (!isNotFound(err)) throw err;
      }
    }
    return out;
  }

  /**
   * Deletes pods, returning how many went and how many of those were ready. Pods of a failing
   * Job keep their finalizers, so they are still counted (as failed) once gone; pods removed
   * because the Job is suspended or has too many (`key` given: kube's deleteJobPods) are
   * released first, so they never count as failures.
   */
  async function deletePods(job: Job, victims: readonly Pod[], key?: string): Promise<{ deleted: number; deletedReady: number; error?: unknown }> {
    if (key) expectations.expect(key, { deletes: victims.map(objectKey) });
    let deleted = 0;
    let deletedReady = 0;
    let error: unknown;
    await Promise.all(
      victims.map(async (pod) => {
        try {
          if (key && hasTrackingFinalizer(pod)) await releasePod(pod);
          await deps.podControl.delete(JOBS, job, pod);
          deleted++;
          if (isPodReady(pod)) deletedReady++;
        } catch (err) {
          if (key) expectations.deletionObserved(key, objectKey(pod));
          error ??= err;
        }
      }),
    );
    return { deleted, deletedReady, error };
  }

  /** Pods to remove when there are too many: an Indexed Job's duplicates and strays first, then by deletion order. */
  function podsForRemoval(job: Job, active: readonly Pod[], atLeast: number): Pod[] {
    const rm: Pod[] = [];
    let left = [...active];
    if (isIndexed(job)) {
      const seen = new Set<number>();
      const keep: Pod[] = [];
      for (const p of [...active].sort((a, b) => deletionOrder(b, a))) {
        const ix = completionIndex(p);
        if (ix === undefined || ix >= (job.spec?.completions ?? 0) || seen.has(ix)) rm.push(p);
        else {
          seen.add(ix);
          keep.push(p);
        }
      }
      left = keep;
    }
    if (rm.length < atLeast) rm.push(...left.sort(deletionOrder).slice(0, atLeast - rm.length));
    return rm;
  }

  /** kube's manageJob: returns the active count afterwards and, when creation waits out a backoff, when to come back. */
  async function manage(s: SyncState): Promise<{ active: number; requeueAfterMs?: number; error?: unknown }> {
    const { job, key } = s;
    let active = s.activePods.length;
    if (isSuspended(job)) {
      const { deleted, deletedReady, error } = await deletePods(job, podsForRemoval(job, s.activePods, active), key);
      s.terminating += deleted;
      s.ready -= deletedReady;
      return { active: active - deleted, error };
    }
    const parallelism = job.spec?.parallelism ?? 1;
    const completions = job.spec?.completions;
    let wantActive: number;
    if (completions === undefined || completions === null) wantActive = s.succeeded > 0 ? active : parallelism;
    else wantActive = Math.max(0, Math.min(completions - s.succeeded, parallelism));

    const victims = podsForRemoval(job, s.activePods, Math.max(0, active - wantActive)).slice(0, MAX_POD_CHANGES_PER_SYNC);
    if (victims.length) {
      // Deleting and creating in one pass would fight over indexes; deletion goes first, as in kube.
      const { deleted, deletedReady, error } = await deletePods(job, victims, key);
      s.terminating += deleted;
      s.ready -= deletedReady;
      return { active: active - deleted, error };
    }

    const terminating = onlyReplaceFailedPods(job) ? s.terminating : 0;
    let diff = wantActive - terminating - active;
    if (diff <= 0) return { active };
    const wait = remainingBackoffMs(s.newBackoff, deps.now(), deps.backoffBaseMs, deps.backoffCapMs);
    if (wait > 0) return { active, requeueAfterMs: wait };
    diff = Math.min(diff, MAX_POD_CHANGES_PER_SYNC);
    let indexes: number[] | undefined;
    if (isIndexed(job)) {
      const busy = new Set<number>();
      for (const p of s.activePods) {
        const ix = completionIndex(p);
        if (ix !== undefined) busy.add(ix);
      }
      if (onlyReplaceFailedPods(job)) for (const p of s.pods) if (isPodTerminating(p)) busy.add(completionIndex(p) ?? -1);
      indexes = pendingIndexes(completions ?? 0, s.succeededIndexes, busy, diff);
      diff = indexes.length;
      if (diff === 0) return { active };
    }
    expectations.expect(key, { creates: diff });
    const result = await slowStartBatch(diff, 1, async (i) => {
      await deps.podControl.create(JOBS, job, jobPod(job, indexes?.[i]));
    });
    // Creates that failed or were never sent will not show up in the cache.
    expectations.creationObserved(key, diff - result.succeeded);
    return { active: active + result.succeeded, error: result.error };
  }

  /** Writes the status on the Job's current resourceVersion: a conflict means the cache was behind, and the pass is retried. */
  async function writeStatus(s: SyncState, job: Job): Promise<Job> {
    if (s.status.conditions?.length === 0) delete s.status.conditions;
    const body = { ...(structuredClone(job) as V1Job), status: structuredClone(s.status) as V1Job['status'] };
    return (await deps.client.updateStatus<V1Job>(JOBS, body)) as Job;
  }

  /** Moves uncounted uids whose pods no longer hold the finalizer into the counters. */
  function countRemovedFinalizers(status: JobStatus, withFinalizer: ReadonlySet<string>): boolean {
    const u = (status.uncountedTerminatedPods ??= {});
    let changed = false;
    for (const list of ['succeeded', 'failed'] as const) {
      const before = u[list] ?? [];
      const still = before.filter((uid) => withFinalizer.has(uid));
      if (still.length !== before.length) {
        changed = true;
        status[list] = (status[list] ?? 0) + (before.length - still.length);
        if (still.length) u[list] = still;
        else delete u[list];
      }
    }
    return changed;
  }

  function releasePod(pod: Pod): Promise<unknown> {
    return deps.client.patch(resources.pods, pod.metadata?.namespace, pod.metadata?.name ?? '', { metadata: { '$deleteFromPrimitiveList/finalizers': [TRACKING_FINALIZER] } }, { type: 'strategic' });
  }

  async function removeFinalizers(key: string, victims: readonly Pod[]): Promise<{ removed: Set<string>; error?: unknown }> {
    const removed = new Set<string>();
    let error: unknown;
    finalizerExpectations.expectRemovals(key, victims.map((p) => p.metadata?.uid ?? ''));
    await Promise.all(
      victims.map(async (pod) => {
        const uid = pod.metadata?.uid ?? '';
        try {
          await releasePod(pod);
          removed.add(uid);
        } catch (err) {
          finalizerExpectations.removalObserved(key, uid);
          if (isNotFound(err)) removed.add(uid);
          else error ??= err;
        }
      }),
    );
    return { removed, error };
  }

  /** kube's trackJobStatusAndRemoveFinalizers, flush included. */
  async function track(s: SyncState, needsFlushAtStart: boolean): Promise<void> {
    let needsFlush = needsFlushAtStart;
    let job = s.job;
    const status = s.status;
    const indexed = isIndexed(job);
    const completions = job.spec?.completions ?? 0;
    const withFinalizer = new Set<string>();
    for (const p of s.pods) if (hasTrackingFinalizer(p) && !s.expectedRemovals.has(p.metadata?.uid ?? '')) withFinalizer.add(p.metadata?.uid ?? '');
    if (countRemovedFinalizers(status, withFinalizer)) needsFlush = true;

    const uncounted = (status.uncountedTerminatedPods ??= {});
    const finishing = s.finished !== undefined && s.finished.type !== SUCCESS_CRITERIA_MET;
    const toRemove: Pod[] = [];
    const newSucceededIndexes: number[] = [];
    let reachedMax = false;
    const ordered = indexed ? [...s.pods].sort((a, b) => (completionIndex(a) ?? -1) - (completionIndex(b) ?? -1)) : s.pods;
    for (const pod of ordered) {
      const uid = pod.metadata?.uid ?? '';
      if (!hasTrackingFinalizer(pod) || s.expectedRemovals.has(uid)) continue;
      const failed = isPodFailed(pod, job);
      const canRemove = !!job.metadata?.deletionTimestamp || s.finished !== undefined || pod.status?.phase === 'Succeeded' || failed;
      if (!canRemove) continue;
      toRemove.push(pod);
      if (pod.status?.phase === 'Succeeded' && !s.uncountedFailed.has(uid)) {
        if (indexed) {
          const ix = completionIndex(pod);
          if (ix !== undefined && ix < completions && !s.prevSucceededIndexes.has(ix)) {
            newSucceededIndexes.push(ix);
            needsFlush = true;
          }
        } else if (!s.uncountedSucceeded.has(uid)) {
          (uncounted.succeeded ??= []).push(uid);
          needsFlush = true;
        }
      } else if (failed || finishing) {
        // Once the Job is failing, every pod that did not succeed counts as failed.
        if (!s.uncountedFailed.has(uid) && validIndexFor(job, pod)) {
          const counts = job.spec?.podFailurePolicy ? matchPodFailurePolicy(job.spec.podFailurePolicy, pod).countFailed : true;
          if (counts) {
            (uncounted.failed ??= []).push(uid);
            needsFlush = true;
          }
        }
      }
      if (newSucceededIndexes.length + (uncounted.succeeded?.length ?? 0) + (uncounted.failed?.length ?? 0) >= MAX_UNCOUNTED_PODS) {
        reachedMax = true;
        break;
      }
    }
    if (indexed) {
      for (const ix of newSucceededIndexes) s.succeededIndexes.add(ix);
      const text = formatIndexes(s.succeededIndexes);
      if (text !== (status.completedIndexes ?? '')) needsFlush = true;
      status.succeeded = s.succeededIndexes.size;
      if (text) status.completedIndexes = text;
      else delete status.completedIndexes;
    }
    const conditions = (status.conditions ??= []);
    if (s.finished?.type === FAILURE_TARGET) {
      conditions.push(s.finished);
      needsFlush = true;
      s.finished = newCondition(FAILED, 'True', s.finished.reason ?? '', s.finished.message ?? '', deps.now());
    }
    if (s.finished?.type === SUCCESS_CRITERIA_MET) {
      if (!findCondition(conditions, SUCCESS_CRITERIA_MET)) {
        conditions.push(s.finished);
        needsFlush = true;
      }
      s.finished = newCondition(COMPLETE, 'True', s.finished.reason ?? '', s.finished.message ?? '', deps.now());
    }

    // Flush: record the uncounted uids before any finalizer goes, so a crash in between loses nothing.
    if (needsFlush) {
      job = await writeStatus(s, job);
      deps.backoff.set(s.key, s.newBackoff);
      needsFlush = false;
    }
    let removeError: unknown;
    if (toRemove.length) {
      const { removed, error } = await removeFinalizers(s.key, toRemove);
      removeError = error;
      for (const uid of removed) withFinalizer.delete(uid);
    }
    if (countRemovedFinalizers(status, withFinalizer)) needsFlush = true;
    if (removeError !== undefined) {
      if (needsFlush) await writeStatus(s, job);
      throw removeError;
    }

    const jobFinished = !reachedMax && enactFinished(s);
    if (jobFinished) needsFlush = true;
    if (needsFlush) {
      await writeStatus(s, job);
      if (jobFinished) recordFinished(s);
    }
  }

  /** Adds Complete or Failed once nothing is left uncounted or terminating. */
  function enactFinished(s: SyncState): boolean {
    const cond = s.finished;
    if (!cond) return false;
    const u = s.status.uncountedTerminatedPods;
    if ((u?.succeeded?.length ?? 0) + (u?.failed?.length ?? 0) > 0) return false;
    if (s.terminating > 0) return false;
    const conditions = (s.status.conditions ??= []);
    ensureCondition(conditions, cond.type, cond.status, cond.reason ?? '', cond.message ?? '', deps.now());
    if (cond.type === COMPLETE) s.status.completionTime = findCondition(conditions, COMPLETE)?.lastTransitionTime ?? formatTimestamp(deps.now());
    return true;
  }

  function recordFinished(s: SyncState): void {
    const cond = s.finished!;
    if (cond.type === COMPLETE) {
      const completions = s.job.spec?.completions;
      if (completions !== undefined && completions !== null && (s.status.succeeded ?? 0) > completions) {
        event(s.job, 'Warning', 'TooManySucceededPods', 'Too many succeeded pods running after completion count reached');
      }
      event(s.job, 'Normal', 'Completed', 'Job completed');
    } else event(s.job, 'Warning', cond.reason ?? '', cond.message ?? '');
  }

  return async function reconcile(key: string): Promise<ReconcileResult> {
    const job = deps.jobs.store.get(key);
    if (!job) {
      expectations.forget(key);
      finalizerExpectations.forget(key);
      deps.backoff.delete(key);
      return;
    }
    if (isJobFinished(job)) {
      deps.backoff.delete(key);
      return;
    }
    // Another controller (say, a queueing system) runs this Job.
    if (job.spec?.managedBy && job.spec.managedBy !== 'kubernetes.io/job-controller') return;
    const matches = jobSelector(job);
    if (!matches) throw terminal(new Error(`Job ${key} has an invalid selector`));

    const satisfied = expectations.satisfied(key);
    const claimed = await claimPods(job, matches);
    const activePods = claimed.filter(isPodActive);
    const status = structuredClone((job.status ?? {}) as JobStatus);
    const uncounted = (status.uncountedTerminatedPods ??= {});
    const uncountedSucceeded = new Set(uncounted.succeeded ?? []);
    const uncountedFailed = new Set(uncounted.failed ?? []);
    const expectedRemovals = finalizerExpectations.expected(key);
    const isNew = (p: Pod, uncountedSet: ReadonlySet<string>): boolean => {
      const uid = p.metadata?.uid ?? '';
      return hasTrackingFinalizer(p) && !uncountedSet.has(uid) && !expectedRemovals.has(uid) && validIndexFor(job, p);
    };
    const newSucceeded = claimed.filter((p) => isNew(p, uncountedSucceeded) && p.status?.phase === 'Succeeded');
    const newFailed = claimed.filter((p) => isNew(p, uncountedFailed) && isPodFailed(p, job));
    const ignored = job.spec?.podFailurePolicy ? newFailed.filter((p) => !matchPodFailurePolicy(job.spec!.podFailurePolicy, p).countFailed).length : 0;
    const completions = job.spec?.completions ?? 0;
    const prevSucceededIndexes = isIndexed(job) ? parseIndexes(job.status?.completedIndexes, completions) : new Set<number>();
    const s: SyncState = {
      key,
      job,
      pods: claimed,
      activePods,
      status,
      succeeded: (status.succeeded ?? 0) + newSucceeded.length + uncountedSucceeded.size,
      failed: (status.failed ?? 0) + newFailed.length - ignored + uncountedFailed.size,
      ready: activePods.filter(isPodReady).length,
      terminating: claimed.filter(isPodTerminating).length,
      prevSucceededIndexes,
      succeededIndexes: new Set(prevSucceededIndexes),
      newBackoff: nextBackoffRecord(deps.backoff.get(key), newSucceeded, newFailed),
      expectedRemovals,
      uncountedSucceeded,
      uncountedFailed,
    };
    if (isIndexed(job)) {
      for (const p of claimed) {
        const ix = completionIndex(p);
        if (p.status?.phase === 'Succeeded' && hasTrackingFinalizer(p) && ix !== undefined && ix < completions) s.succeededIndexes.add(ix);
      }
      s.succeeded = s.succeededIndexes.size;
    }
    const now = deps.now();
    if (!status.startTime && !isSuspended(job)) status.startTime = formatTimestamp(now);

    let requeueAfterMs: number | undefined;
    const existingSuccess = findCondition(status.conditions, SUCCESS_CRITERIA_MET);
    if (existingSuccess?.status === 'True') s.finished = existingSuccess;
    if (!s.finished) {
      const target = findCondition(status.conditions, FAILURE_TARGET);
      if (target?.status === 'True') s.finished = newCondition(FAILED, 'True', target.reason ?? '', target.message ?? '', now);
      else if (job.spec?.podFailurePolicy) {
        for (const p of claimed) {
          if (!isPodFailed(p, job)) continue;
          const m = matchPodFailurePolicy(job.spec.podFailurePolicy, p);
          if (m.failJobMessage) {
            s.finished = newCondition(FAILURE_TARGET, 'True', reasons.podFailurePolicy, m.failJobMessage, now);
            break;
          }
        }
      }
    }
    if (!s.finished) {
      const deadline = job.spec?.activeDeadlineSeconds;
      const started = parseTime(status.startTime);
      if (s.failed > (job.spec?.backoffLimit ?? 6) || pastBackoffLimitOnFailure(job, claimed)) {
        s.finished = newCondition(FAILURE_TARGET, 'True', reasons.backoffLimitExceeded.reason, reasons.backoffLimitExceeded.message, now);
      } else if (deadline !== undefined && deadline !== null && started !== undefined && !isSuspended(job)) {
        const left = deadline * 1000 - (now - started);
        if (left <= 0) s.finished = newCondition(FAILURE_TARGET, 'True', reasons.deadlineExceeded.reason, reasons.deadlineExceeded.message, now);
        else requeueAfterMs = left;
      }
    }

    let active = activePods.length;
    let manageError: unknown;
    let suspendChanged = false;
    if (s.finished) {
      const { deleted, deletedReady, error } = await deletePods(job, activePods);
      if (deleted !== activePods.length || !satisfied) s.finished = undefined;
      active -= deleted;
      s.terminating += deleted;
      s.ready -= deletedReady;
      manageError = error;
    } else {
      let managed = false;
      if (satisfied && !job.metadata?.deletionTimestamp) {
        const r = await manage(s);
        active = r.active;
        manageError = r.error;
        if (r.requeueAfterMs !== undefined) requeueAfterMs = Math.min(requeueAfterMs ?? Infinity, r.requeueAfterMs);
        managed = true;
      }
      const done = job.spec?.completions === undefined || job.spec?.completions === null ? s.succeeded > 0 && active === 0 : s.succeeded >= completions && active === 0;
      if (done) s.finished = newCondition(SUCCESS_CRITERIA_MET, 'True', reasons.completionsReached.reason, reasons.completionsReached.message, now);
      else if (managed) {
        const conditions = (status.conditions ??= []);
        if (isSuspended(job)) {
          if (ensureCondition(conditions, SUSPENDED, 'True', 'JobSuspended', 'Job suspended', now)) {
            suspendChanged = true;
            event(job, 'Normal', 'Suspended', 'Job suspended');
          }
        } else if (ensureCondition(conditions, SUSPENDED, 'False', 'JobResumed', 'Job resumed', now)) {
          suspendChanged = true;
          event(job, 'Normal', 'Resumed', 'Job resumed');
          // activeDeadlineSeconds counts time continuously active: a resumed Job starts its clock again.
          status.startTime = formatTimestamp(now);
        }
        if (!conditions.length) delete status.conditions;
      }
    }

    const needsFlush = suspendChanged || active !== (job.status?.active ?? 0) || s.ready !== job.status?.ready || s.terminating !== job.status?.terminating || status.startTime !== job.status?.startTime;
    if (active) status.active = active;
    else delete status.active;
    status.ready = s.ready;
    status.terminating = s.terminating;
    await track(s, needsFlush);
    if (manageError !== undefined) throw manageError;
    return requeueAfterMs !== undefined ? { requeueAfterMs } : undefined;
  };
}
