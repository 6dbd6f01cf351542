/**
 * The CronJob controller against a real API server, on a fake clock whose wall time starts at
 * the real time (the server stamps each CronJob's creation with it): activations happen only
 * when the test moves the clock past them. There is no Job controller, so the test finishes
 * Jobs itself through their status subresource.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { CoreV1Event, V1CronJob, V1Job } from '@kubernetes/client-node';
import { formatTimestamp } from '../../src/api/time.ts';
import { createCronJobController } from '../../src/cluster/cronjob/controller.ts';
import type { ApiClient } from '../../src/runtime/client.ts';
import { FakeClock } from '../../src/runtime/clock.ts';
import { resources } from '../../src/runtime/resources.ts';
import { startControllers, type RunningControllers } from '../support/controllers.ts';
import { until } from '../support/until.ts';

const MINUTE = 60_000;

describe('cronjob controller on a fake clock', () => {
  const clock = new FakeClock(0, { wall: Date.now() });
  let cluster: RunningControllers;
  let client: ApiClient;
  let nsCount = 0;

  const eventually = <T>(what: string, probe: () => Promise<T | undefined | false>) =>
    until(what, async () => {
      clock.advance(20);
      return probe();
    }, { timeoutMs: 30_000, retryErrors: true });
  /** A namespace per test, so each reads only its own Jobs and events. */
  const namespace = async (): Promise<string> => {
    // Earlier tests moved the fake wall clock ahead: back to the server's time, which stamps creations.
    clock.setWall(Date.now());
    const name = `cron-${++nsCount}`;
    await client.create(resources.namespaces, { apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
    return name;
  };
  const cronJob = (ns: string, name: string, spec: Partial<NonNullable<V1CronJob['spec']>> = {}): V1CronJob => ({
    apiVersion: 'batch/v1',
    kind: 'CronJob',
    metadata: { name, namespace: ns },
    spec: {
      schedule: '*/1 * * * *',
      jobTemplate: { metadata: { labels: { app: name } }, spec: { template: { spec: { containers: [{ name: 'c', image: 'example/app:1' }], restartPolicy: 'Never' } } } },
      ...spec,
    },
  });
  const jobsOf = async (ns: string): Promise<V1Job[]> => (await client.list<V1Job>(resources.jobs, ns)).items.sort((a, b) => a.metadata!.name!.localeCompare(b.metadata!.name!));
  const getCronJob = (ns: string, name: string) => client.get<V1CronJob>(resources.cronJobs, ns, name);
  const events = async (ns: string): Promise<string[]> => (await client.list<CoreV1Event>(resources.events, ns)).items.map((e) => `${e.reason}: ${e.message}`);
  /** Moves the fake clock to `at` (wall ms) plus a second. */
  const advanceTo = (at: number): void => clock.advance(Math.max(0, at + 1000 - clock.wallNow()));
  /** The next whole minute after the CronJob was created. */
  const firstMinute = (cj: V1CronJob): number => (Math.floor(Date.parse(String(cj.metadata!.creationTimestamp)) / MINUTE) + 1) * MINUTE;
  /** Plays the Job controller: the Job finished. */
  const finishJob = (job: V1Job, type: 'Complete' | 'Failed') => {
    const now = formatTimestamp(clock.wallNow());
    const conditions = [{ type: type === 'Complete' ? 'SuccessCriteriaMet' : 'FailureTarget', status: 'True', lastTransitionTime: now }, { type, status: 'True', lastTransitionTime: now }];
    return client.patch(resources.jobs, job.metadata!.namespace, job.metadata!.name!, { status: { startTime: now, ...(type === 'Complete' ? { completionTime: now, succeeded: 1 } : { failed: 1 }), conditions } }, { subresource: 'status' });
  };

  before(async () => {
    cluster = await startControllers({ userAgent: 'cronjob-test', eventsAs: 'cronjob-controller', clock }, (ctx) => [createCronJobController(ctx, { defaultTimeZone: 'UTC' })]);
    ({ client } = cluster);
  });
  after(() => cluster?.stop());

  it('creates the Job of each minute, named by the scheduled minute, and records it as active', async () => {
    const ns = await namespace();
    const cj = await client.create(resources.cronJobs, cronJob(ns, 'tick'));
    const minute = firstMinute(cj);
    advanceTo(minute);
    const [job] = await eventually('the first Job', async () => {
      const jobs = await jobsOf(ns);
      return jobs.length === 1 ? jobs : undefined;
    });
    assert.equal(job!.metadata?.name, `tick-${minute / MINUTE}`);
    assert.equal(job!.metadata?.annotations?.['batch.kubernetes.io/cronjob-scheduled-timestamp'], formatTimestamp(minute));
    assert.equal(job!.metadata?.labels?.app, 'tick');
    assert.deepEqual(job!.metadata?.ownerReferences?.map((r) => [r.kind, r.name, r.uid, r.controller]), [['CronJob', 'tick', cj.metadata!.uid, true]]);
    const status = await eventually('active and lastScheduleTime', async () => {
      const s = (await getCronJob(ns, 'tick')).status;
      return s?.active?.length === 1 ? s : undefined;
    });
    assert.equal(status.active![0]!.name, job!.metadata?.name);
    assert.equal(status.active![0]!.uid, job!.metadata?.uid);
    assert.equal(String(status.lastScheduleTime), formatTimestamp(minute));
    await eventually('a SuccessfulCreate event', async () => (await events(ns)).includes(`SuccessfulCreate: Created job ${job!.metadata!.name}`));
  });

  it('keeps only successfulJobsHistoryLimit finished Jobs, and reports completions and the last success', async () => {
    const ns = await namespace();
    const cj = await client.create(resources.cronJobs, cronJob(ns, 'kept', { successfulJobsHistoryLimit: 1 }));
    const first = firstMinute(cj);
    for (let i = 0; i < 3; i++) {
      advanceTo(first + i * MINUTE);
      const job = await eventually(`Job ${i + 1}`, async () => (await jobsOf(ns)).find((j) => j.metadata?.name === `kept-${first / MINUTE + i}`));
      await finishJob(job, 'Complete');
      await eventually(`Job ${i + 1} out of status.active`, async () => !(await getCronJob(ns, 'kept')).status?.active?.length);
    }
    const left = await eventually('one finished Job left', async () => {
      const jobs = await jobsOf(ns);
      return jobs.length === 1 ? jobs : undefined;
    });
    assert.equal(left[0]!.metadata?.name, `kept-${first / MINUTE + 2}`, 'the newest is kept');
    const cjNow = await eventually('lastSuccessfulTime', async () => {
      const c = await getCronJob(ns, 'kept');
      return c.status?.lastSuccessfulTime ? c : undefined;
    });
    assert.ok(Date.parse(String(cjNow.status?.lastSuccessfulTime)) >= first);
    const e = await events(ns);
    assert.ok(e.some((x) => x.startsWith(`SawCompletedJob: Saw completed job: kept-${first / MINUTE}, condition: Complete`)), JSON.stringify(e));
    assert.ok(e.includes(`SuccessfulDelete: Deleted job kept-${first / MINUTE}`), JSON.stringify(e));
  });

  it('under Forbid starts nothing while a Job runs; under Replace deletes it and starts the next', async () => {
    const ns = await namespace();
    const forbid = await client.create(resources.cronJobs, cronJob(ns, 'one', { concurrencyPolicy: 'Forbid' }));
    await client.create(resources.cronJobs, cronJob(ns, 'swap', { concurrencyPolicy: 'Replace' }));
    const first = firstMinute(forbid);
    advanceTo(first);
    await eventually('a Job of each', async () => (await jobsOf(ns)).length === 2);
    advanceTo(first + MINUTE);
    await eventually('JobAlreadyActive for Forbid', async () => (await events(ns)).includes('JobAlreadyActive: Not starting job because prior execution is running and concurrency policy is Forbid'));
    const jobs = await eventually('Replace swapped its Job', async () => {
      const j = await jobsOf(ns);
      return j.some((x) => x.metadata?.name === `swap-${first / MINUTE + 1}`) && !j.some((x) => x.metadata?.name === `swap-${first / MINUTE}`) ? j : undefined;
    });
    assert.deepEqual(jobs.filter((j) => j.metadata?.name?.startsWith('one-')).map((j) => j.metadata?.name), [`one-${first / MINUTE}`], 'Forbid kept the running one only');
  });

  it('starts nothing while suspended', async () => {
    const ns = await namespace();
    const cj = await client.create(resources.cronJobs, cronJob(ns, 'paused', { suspend: true }));
    advanceTo(firstMinute(cj) + 2 * MINUTE);
    // An update is reconciled like any other event; while suspended it still starts nothing.
    await client.patch(resources.cronJobs, ns, 'paused', { metadata: { labels: { seen: 'yes' } } });
    await eventually('the CronJob reconciled at least once more', async () => (await getCronJob(ns, 'paused')).metadata?.labels?.seen === 'yes');
    assert.deepEqual(await jobsOf(ns), []);
    await client.patch(resources.cronJobs, ns, 'paused', { spec: { suspend: false } });
    // Resumed, it starts the latest activation it missed at once (there is no starting deadline).
    const [job] = await eventually('a Job once resumed', async () => {
      const jobs = await jobsOf(ns);
      return jobs.length ? jobs : undefined;
    });
    assert.equal(job!.metadata?.name, `paused-${Math.floor(clock.wallNow() / MINUTE)}`);
  });

  it('reports too many missed start times, starts only the latest, and uses the CronJob\'s time zone', async () => {
    const ns = await namespace();
    const cj = await client.create(resources.cronJobs, cronJob(ns, 'late', { timeZone: 'Asia/Kolkata', schedule: '30 * * * *' }));
    // Kolkata is UTC+05:30: minute 30 there is minute 0 in UTC. Three hours pass at once: more than 100 minutes, but only 3 activations.
    const created = Date.parse(String(cj.metadata!.creationTimestamp));
    const lastHour = Math.floor((created + 3 * 3_600_000) / 3_600_000) * 3_600_000;
    advanceTo(lastHour);
    const [job] = await eventually('one Job, for the latest hour', async () => {
      const jobs = await jobsOf(ns);
      return jobs.length === 1 ? jobs : undefined;
    });
    assert.equal(job!.metadata?.name, `late-${lastHour / MINUTE}`);
    assert.match(job!.metadata!.annotations!['batch.kubernetes.io/cronjob-scheduled-timestamp']!, /^\d{4}-\d\d-\d\dT\d\d:30:00\+05:30$/);
    const ns2 = await namespace();
    const every = await client.create(resources.cronJobs, cronJob(ns2, 'every'));
    advanceTo(firstMinute(every) + 150 * MINUTE);
    await eventually('TooManyMissedTimes', async () => (await events(ns2)).includes('TooManyMissedTimes: too many missed start times. Set or decrease .spec.startingDeadlineSeconds or check clock skew'));
    const started = (await jobsOf(ns2)).map((j) => Number(j.metadata!.name!.slice('every-'.length)));
    assert.ok(started.length >= 1 && started.every((m) => m >= firstMinute(every) / MINUTE + 149), `only the latest activation started, not the 150 missed: ${started.join(', ')}`);
  });
});
