/**
 * One CronJob reconcile, kube's CronJob controller (v2): delete finished Jobs beyond the history
 * limits, reconcile `status.active` with the Jobs that exist (a finished one leaves it, a vanished
 * one too), then, unless suspended or being deleted, start the Job of the most recent due
 * activation: not if it is later than `startingDeadlineSeconds`, not twice, not beside a running
 * one under `Forbid`, after deleting the running ones under `Replace`. The Job is named
 * `<cronjob>-<scheduled minutes since the epoch>`, so a stale cache meets a 409 instead of
 * starting an activation twice. Returns when to come back: just after the next activation.
 */
import type { V1CronJob, V1Job, V1ObjectReference } from '@kubernetes/client-node';
import { parseCronSchedule, type CronSchedule } from '../../api/cron.ts';
import { formatTimestamp } from '../../api/time.ts';
import { formatInZone, timeZoneError } from '../../api/time-zone.ts';
import { ApiError, isNotFound, type ApiClient } from '../../runtime/client.ts';
import type { EventSink } from '../../runtime/context.ts';
import type { Informer } from '../../runtime/informer.ts';
import type { DeepReadonly } from '../../runtime/readonly.ts';
import type { ReconcileResult } from '../../runtime/reconcile-loop.ts';
import { resources } from '../../runtime/resources.ts';
import { errorMessage } from '../workload-common/errors.ts';
import { CONTROLLER_UID_INDEX, controllerRef, isControlledBy, subjectOf } from '../workload-common/owners.ts';
import { mostRecentScheduleTime, nextScheduleDelay, TOO_MANY_MISSED, type CronJob } from './schedule.ts';
import { compareStrings } from '../../api/compare.ts';

type Job = DeepReadonly<V1Job>;

export const SCHEDULED_TIMESTAMP_ANNOTATION = 'batch.kubernetes.io/cronjob-scheduled-timestamp';

export interface CronJobSyncDeps {
  readonly client: ApiClient;
  readonly cronJobs: Informer<V1CronJob>;
  readonly jobs: Informer<V1Job>;
  readonly recorder: EventSink;
  /** Wall clock in ms. */
  readonly now: () => number;
  /** The zone of a CronJob without `timeZone`: Go's time.Local for kube-controller-manager. */
  readonly defaultTimeZone: string;
}

interface CronJobStatus {
  active?: V1ObjectReference[];
  lastScheduleTime?: string;
  lastSuccessfulTime?: string;
}

const CRONJOBS = resources.cronJobs;
const JOBS = resources.jobs;

/** Complete or Failed, whichever is True. */
export function finishedCondition(job: Job): 'Complete' | 'Failed' | undefined {
  for (const c of job.status?.conditions ?? []) if ((c.type === 'Complete' || c.type === 'Failed') && c.status === 'True') return c.type;
  return undefined;
}

export function jobName(cj: CronJob, scheduledMs: number): string {
  return `${cj.metadata?.name ?? ''}-${Math.floor(scheduledMs / 60_000)}`;
}

/** The Job of one activation (kube's getJobFromTemplate2). */
export function jobFromTemplate(cj: CronJob, scheduledMs: number): V1Job {
  const template = structuredClone(cj.spec?.jobTemplate ?? {}) as NonNullable<V1CronJob['spec']>['jobTemplate'];
  return {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: {
      name: jobName(cj, scheduledMs),
      namespace: cj.metadata?.namespace,
      labels: { ...(template.metadata?.labels ?? {}) },
      // In the CronJob's zone, as kube writes it (UTC when it names none).
      annotations: { ...(template.metadata?.annotations ?? {}), [SCHEDULED_TIMESTAMP_ANNOTATION]: formatInZone(scheduledMs, cj.spec?.timeZone ?? 'UTC') },
      ownerReferences: [controllerRef(CRONJOBS, cj)],
    },
    spec: template.spec,
  };
}

function refOf(job: DeepReadonly<V1Job>): V1ObjectReference {
  const m = job.metadata ?? {};
  return { kind: 'Job', namespace: m.namespace, name: m.name, uid: m.uid, apiVersion: 'batch/v1', resourceVersion: m.resourceVersion };
}

/** Oldest first by start time; Jobs that never started last; ties by name (kube's byJobStartTime). */
function byStartTime(a: Job, b: Job): number {
  const ta = a.status?.startTime ? Date.parse(String(a.status.startTime)) : undefined;
  const tb = b.status?.startTime ? Date.parse(String(b.status.startTime)) : undefined;
  if (ta === undefined && tb !== undefined) return 1;
  if (ta !== undefined && tb === undefined) return -1;
  if (ta !== undefined && tb !== undefined && ta !== tb) return ta - tb;
  return compareStrings(a.metadata?.name ?? '', b.metadata?.name ?? '');
}

export function makeCronJobReconcile(deps: CronJobSyncDeps): (key: string) => Promise<ReconcileResult> {
  const event = (cj: CronJob, type: 'Normal' | 'Warning', reason: string, message: string): void => deps.recorder.event(subjectOf(CRONJOBS, cj), type, reason, message);

  /** Deletes a Job with its pods, as kube's deleteJob; false when the delete failed. */
  async function deleteJob(cj: CronJob, status: CronJobStatus, job: Job): Promise<boolean> {
    try {
      await deps.client.delete(JOBS, job.metadata?.namespace, job.metadata?.name ?? '', { propagationPolicy: 'Background' });
    } catch (err) {
      if (!isNotFound(err)) {
        event(cj, 'Warning', 'FailedDelete', `Deleted job: ${errorMessage(err)}`);
        return false;
      }
    }
    status.active = (status.active ?? []).filter((r) => r.uid !== job.metadata?.uid);
    event(cj, 'Normal', 'SuccessfulDelete', `Deleted job ${job.metadata?.name ?? ''}`);
    return true;
  }

  async function cleanupFinishedJobs(cj: CronJob, status: CronJobStatus, jobs: readonly Job[]): Promise<boolean> {
    const successLimit = cj.spec?.successfulJobsHistoryLimit;
    const failedLimit = cj.spec?.failedJobsHistoryLimit;
    if ((successLimit === undefined || successLimit === null) && (failedLimit === undefined || failedLimit === null)) return false;
    let changed = false;
    for (const [kind, limit] of [['Complete', successLimit], ['Failed', failedLimit]] as const) {
      if (limit === undefined || limit === null) continue;
      const finished = jobs.filter((j) => finishedCondition(j) === kind).sort(byStartTime);
      for (const job of finished.slice(0, Math.max(0, finished.length - limit))) if (await deleteJob(cj, status, job)) changed = true;
    }
    return changed;
  }

  return async function reconcile(key: string): Promise<ReconcileResult> {
    const cj = deps.cronJobs.store.get(key);
    if (!cj) return;
    const status = structuredClone((cj.status ?? {}) as CronJobStatus);
    const before = JSON.stringify(status);
    const jobs = deps.jobs.store.byIndex(CONTROLLER_UID_INDEX, cj.metadata?.uid ?? '').filter((j) => isControlledBy(j, cj));

    await cleanupFinishedJobs(cj, status, jobs);
    const result = await syncCronJob(cj, status, jobs);
    if (status.active && status.active.length === 0) delete status.active;
    if (JSON.stringify(status) !== before) {
      const body = { ...(structuredClone(cj) as V1CronJob), status: status as V1CronJob['status'] };
      // On the CronJob as cached: a conflict means the cache was behind, and the pass runs again.
      await deps.client.updateStatus<V1CronJob>(CRONJOBS, body);
    }
    if (result.error !== undefined) throw result.error;
    return result.requeueAfterMs !== undefined ? { requeueAfterMs: Math.max(0, result.requeueAfterMs) } : undefined;
  };

  async function syncCronJob(cj: CronJob, status: CronJobStatus, jobs: readonly Job[]): Promise<{ requeueAfterMs?: number; error?: unknown }> {
    const now = deps.now();
    const inActive = (uid: string | undefined): boolean => (status.active ?? []).some((r) => r.uid === uid);
    const children = new Set<string>();
    let freshActive: ReadonlySet<string> | undefined;
    for (const job of jobs) {
      const uid = job.metadata?.uid ?? '';
      children.add(uid);
      const finished = finishedCondition(job);
      if (!inActive(uid) && !finished) {
        // Our own status write may simply not have reached the cache yet: ask the server before crying foul.
        freshActive ??= new Set(((await deps.client.get<V1CronJob>(CRONJOBS, cj.metadata?.namespace, cj.metadata?.name ?? '')).status?.active ?? []).map((r) => r.uid ?? ''));
        if (freshActive.has(uid)) {
          status.active = [...(status.active ?? []), refOf(job)];
          continue;
        }
        event(cj, 'Warning', 'UnexpectedJob', `Saw a job that the controller did not create or forgot: ${job.metadata?.name ?? ''}`);
      } else if (inActive(uid) && finished) {
        status.active = (status.active ?? []).filter((r) => r.uid !== uid);
        event(cj, 'Normal', 'SawCompletedJob', `Saw completed job: ${job.metadata?.name ?? ''}, condition: ${finished}`);
      } else if (finished === 'Complete' && job.status?.completionTime) {
        const done = Date.parse(String(job.status.completionTime));
        const last = status.lastSuccessfulTime ? Date.parse(status.lastSuccessfulTime) : undefined;
        if (last === undefined || done > last) status.lastSuccessfulTime = formatTimestamp(done);
      }
    }
    // An active Job the cache does not show may be one it has not caught up with: only a 404 from the server removes it.
    for (const ref of [...(status.active ?? [])]) {
      if (children.has(ref.uid ?? '')) continue;
      try {
        await deps.client.get(JOBS, ref.namespace, ref.name ?? '');
      } catch (err) {
        if (!isNotFound(err)) return { error: err };
        event(cj, 'Normal', 'MissingJob', `Active job went missing: ${ref.name ?? ''}`);
        status.active = (status.active ?? []).filter((r) => r.uid !== ref.uid);
      }
    }
    if (cj.metadata?.deletionTimestamp) return {};

    const zoneName = cj.spec?.timeZone;
    if (zoneName !== undefined && zoneName !== null) {
      const bad = timeZoneError(zoneName);
      if (bad) {
        event(cj, 'Warning', 'UnknownTimeZone', `invalid timeZone: ${JSON.stringify(zoneName)}: ${bad}`);
        return {};
      }
    }
    if (cj.spec?.suspend) return {};
    const spec = cj.spec?.schedule ?? '';
    if (spec.includes('TZ')) event(cj, 'Warning', 'UnsupportedSchedule', `CRON_TZ or TZ used in schedule ${JSON.stringify(spec)} is not officially supported, see https://kubernetes.io/docs/concepts/workloads/controllers/cron-jobs/ for more details`);
    let schedule: CronSchedule;
    try {
      schedule = parseCronSchedule(spec);
    } catch (err) {
      // A user's mistake: nothing to retry until the spec changes, which enqueues the CronJob again.
      event(cj, 'Warning', 'UnparseableSchedule', `unparseable schedule: ${JSON.stringify(spec)} : ${errorMessage(err)}`);
      return {};
    }
    const zone = spec.includes('TZ') ? deps.defaultTimeZone : (zoneName ?? deps.defaultTimeZone);
    const next = (): number | undefined => nextScheduleDelay({ ...cj, status } as CronJob, now, schedule, zone);

    const recent = mostRecentScheduleTime(cj, now, schedule, zone, true);
    if (recent.error) {
      event(cj, 'Warning', 'InvalidSchedule', `invalid schedule: ${spec} : ${recent.error}`);
      return {};
    }
    const scheduled = recent.mostRecent;
    if (scheduled === undefined) return { requeueAfterMs: next() };
    if (recent.missed > TOO_MANY_MISSED) event(cj, 'Warning', 'TooManyMissedTimes', 'too many missed start times. Set or decrease .spec.startingDeadlineSeconds or check clock skew');

    const sds = cj.spec?.startingDeadlineSeconds;
    if (sds !== undefined && sds !== null && scheduled + sds * 1000 < now) {
      event(cj, 'Warning', 'MissSchedule', `Missed scheduled time to start a job: ${new Date(scheduled).toUTCString().replace('GMT', '+0000')}`);
      return { requeueAfterMs: next() };
    }
    const name = jobName(cj, scheduled);
    if ((status.active ?? []).some((r) => r.name === name) || (status.lastScheduleTime && Date.parse(status.lastScheduleTime) === scheduled)) return { requeueAfterMs: next() };
    if (cj.spec?.concurrencyPolicy === 'Forbid' && (status.active ?? []).length > 0) {
      event(cj, 'Normal', 'JobAlreadyActive', 'Not starting job because prior execution is running and concurrency policy is Forbid');
      return { requeueAfterMs: next() };
    }
    if (cj.spec?.concurrencyPolicy === 'Replace') {
      for (const ref of [...(status.active ?? [])]) {
        let job: Job;
        try {
          job = (await deps.client.get<V1Job>(JOBS, ref.namespace, ref.name ?? '')) as Job;
        } catch (err) {
          event(cj, 'Warning', 'FailedGet', `Get job: ${errorMessage(err)}`);
          return { error: err };
        }
        if (!(await deleteJob(cj, status, job))) return { error: new Error(`could not replace job ${ref.namespace}/${ref.name}`) };
      }
    }

    let created: Job;
    try {
      created = (await deps.client.create<V1Job>(JOBS, jobFromTemplate(cj, scheduled))) as Job;
      event(cj, 'Normal', 'SuccessfulCreate', `Created job ${created.metadata?.name ?? ''}`);
    } catch (err) {
      if (!(err instanceof ApiError && err.code === 409)) {
        event(cj, 'Warning', 'FailedCreate', `Error creating job: ${errorMessage(err)}`);
        return { error: err };
      }
      // Created by an earlier pass whose status write did not land, or by someone else (then not ours to track).
      created = (await deps.client.get<V1Job>(JOBS, cj.metadata?.namespace, name)) as Job;
      if (!isControlledBy(created, cj) || inActive(created.metadata?.uid)) return {};
    }
    status.active = [...(status.active ?? []), refOf(created)];
    status.lastScheduleTime = formatTimestamp(scheduled);
    return { requeueAfterMs: next() };
  }
}
