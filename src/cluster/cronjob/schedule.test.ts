import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseCronSchedule } from '../../api/cron.ts';
import { mostRecentScheduleTime, nextScheduleDelay, type CronJob } from './schedule.ts';
import { jobFromTemplate, jobName } from './sync.ts';

const T = (iso: string): number => Date.parse(iso);
const cronJob = (spec: Record<string, unknown> = {}, status: Record<string, unknown> = {}): CronJob =>
  ({ metadata: { name: 'tick', namespace: 'ns', uid: 'u1', creationTimestamp: '2030-01-01T00:00:30Z' }, spec: { schedule: '*/1 * * * *', ...spec }, status }) as unknown as CronJob;
const everyMinute = parseCronSchedule('*/1 * * * *');

describe('CronJob schedule times', () => {
  it('finds nothing due before the first activation after creation, and when to come back', () => {
    const r = mostRecentScheduleTime(cronJob(), T('2030-01-01T00:00:59Z'), everyMinute, 'UTC', true);
    assert.deepEqual(r, { earliest: T('2030-01-01T00:00:30Z'), missed: 0 });
    assert.equal(nextScheduleDelay(cronJob(), T('2030-01-01T00:00:59Z'), everyMinute, 'UTC'), 1100);
  });

  it('takes the most recent activation since the last one, counting what was missed', () => {
    const r = mostRecentScheduleTime(cronJob({}, { lastScheduleTime: '2030-01-01T00:01:00Z' }), T('2030-01-01T00:05:10Z'), everyMinute, 'UTC', true);
    assert.equal(r.mostRecent, T('2030-01-01T00:05:00Z'));
    assert.equal(r.missed, 4);
    const many = mostRecentScheduleTime(cronJob(), T('2030-01-01T03:00:10Z'), everyMinute, 'UTC', true);
    assert.equal(many.mostRecent, T('2030-01-01T03:00:00Z'));
    assert.ok(many.missed > 100);
    // A starting deadline bounds the search: only the last 60 s count.
    const bounded = mostRecentScheduleTime(cronJob({ startingDeadlineSeconds: 60 }), T('2030-01-01T03:00:10Z'), everyMinute, 'UTC', true);
    assert.equal(bounded.mostRecent, T('2030-01-01T03:00:00Z'));
    assert.equal(bounded.missed, 0);
  });

  it('refuses a schedule whose date never comes, with kube\'s error, and does not come back for it', () => {
    const feb31 = parseCronSchedule('0 0 31 2 *');
    assert.equal(mostRecentScheduleTime(cronJob(), T('2030-06-01T00:00:00Z'), feb31, 'UTC', true).error, 'time difference between two schedules is less than 1 second');
    assert.equal(nextScheduleDelay(cronJob(), T('2030-06-01T00:00:00Z'), feb31, 'UTC'), undefined);
  });

  it('names the Job by scheduled minutes since the epoch and stamps the time in the CronJob\'s zone', () => {
    const at = T('2030-01-01T00:05:00Z');
    assert.equal(jobName(cronJob(), at), `tick-${at / 60_000}`);
    const job = jobFromTemplate(cronJob({ timeZone: 'Asia/Kolkata', jobTemplate: { metadata: { labels: { app: 'tick' } }, spec: { template: { spec: { containers: [] } } } } }), at);
    assert.equal(job.metadata?.annotations?.['batch.kubernetes.io/cronjob-scheduled-timestamp'], '2030-01-01T05:35:00+05:30');
    assert.deepEqual(job.metadata?.labels, { app: 'tick' });
    assert.deepEqual(job.metadata?.ownerReferences, [{ apiVersion: 'batch/v1', kind: 'CronJob', name: 'tick', uid: 'u1', controller: true, blockOwnerDeletion: true }]);
    assert.equal(jobFromTemplate(cronJob(), at).metadata?.annotations?.['batch.kubernetes.io/cronjob-scheduled-timestamp'], '2030-01-01T00:05:00Z');
  });
});
