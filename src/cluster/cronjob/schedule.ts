/**
 * When a CronJob is due, as kube's CronJob controller (v2) works it out: from the last
 * scheduled time (or the CronJob's creation), bounded below by `startingDeadlineSeconds`, the
 * most recent activation not after now, and how many activations were missed in between (more
 * than 100 is "too many", reported and not replayed). Pure: the caller passes the parsed
 * schedule, the zone it runs in and the wall clock.
 */
import type { V1CronJob } from '@kubernetes/client-node';
import type { CronSchedule } from '../../api/cron.ts';
import type { DeepReadonly } from '../../runtime/readonly.ts';

export type CronJob = DeepReadonly<V1CronJob>;

/** Requeue a little after the activation, so the pass that runs then sees it as due. */
export const NEXT_SCHEDULE_DELTA_MS = 100;
/** Beyond this many missed activations the controller reports TooManyMissedTimes. */
export const TOO_MANY_MISSED = 100;

export interface RecentSchedule {
  /** Where the search started: the last scheduled time, creation, or the starting deadline. */
  readonly earliest: number;
  /** The latest activation at or before now that is after `earliest`, if any. */
  readonly mostRecent?: number;
  readonly missed: number;
  /** Set when the schedule can never be kept (two activations less than a second apart, such as Feb 31). */
  readonly error?: string;
}

const ms = (t: unknown): number | undefined => {
  if (t === undefined || t === null) return undefined;
  const v = Date.parse(String(t instanceof Date ? t.toISOString() : t));
  return Number.isNaN(v) ? undefined : v;
};

/** kube's mostRecentScheduleTime. */
export function mostRecentScheduleTime(cj: CronJob, now: number, schedule: CronSchedule, zone: string, includeStartingDeadline: boolean): RecentSchedule {
  let earliest = ms(cj.status?.lastScheduleTime) ?? ms(cj.metadata?.creationTimestamp) ?? now;
  const sds = cj.spec?.startingDeadlineSeconds;
  if (includeStartingDeadline && sds !== undefined && sds !== null) earliest = Math.max(earliest, now - sds * 1000);
  const never = { earliest, missed: 0, error: 'time difference between two schedules is less than 1 second' };
  const t1 = schedule.next(earliest, zone);
  // A date that never comes (Feb 31) is where kube's arithmetic on zero times ends up: this same error.
  if (t1 === undefined) return never;
  if (now < t1) return { earliest, missed: 0 };
  const t2 = schedule.next(t1, zone);
  if (t2 === undefined) return never;
  if (now < t2) return { earliest, mostRecent: t1, missed: 0 };
  const between = Math.round((t2 - t1) / 1000);
  if (between < 1) return never;
  // As kube: estimate the count from the interval, then walk the last few activations exactly.
  const missed = Math.floor((now - t1) / 1000 / between) + 1;
  let mostRecent: number | undefined;
  const from = t1 + (missed - 2) * between * 1000;
  for (let t = schedule.next(from, zone); t !== undefined && t <= now; t = schedule.next(t, zone)) mostRecent = t;
  return { earliest, mostRecent, missed };
}

/** How long until the pass after the next activation (kube's nextScheduleTimeDuration); undefined if there is none. */
export function nextScheduleDelay(cj: CronJob, now: number, schedule: CronSchedule, zone: string): number | undefined {
  const r = mostRecentScheduleTime(cj, now, schedule, zone, false);
  const from = r.error ? now : (r.mostRecent ?? r.earliest);
  const next = schedule.next(from, zone);
  return next === undefined ? undefined : next + NEXT_SCHEDULE_DELTA_MS - now;
}
