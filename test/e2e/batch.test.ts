/**
 * The acceptance scenario of batch/v1 (issue 14, item 2), on one `shipyard up` datacenter (a
 * schedulable master) driven with real kubectl: a Job of an imported image completes and its
 * logs are read through the Job; a failing one backs off and ends Failed with
 * BackoffLimitExceeded; a CronJob made by `kubectl create cronjob` on `*\/1 * * * *` starts a
 * Job each minute and keeps only its history limit; `kubectl create job --from=cronjob/…`
 * runs the CronJob's template at once. The CronJob is created first and checked last, so its
 * minutes pass while the Job scenarios run. Waits are for conditions, with generous deadlines.
 */
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fixture, pollUntil, type Json } from './support.ts';
import { kubectlWith, runShipyard, startUp, stopUp, strictKubectl, type UpProcess } from './datacenter-support.ts';

const IMAGE = 'example.test/e2e/batch:1';

describe('batch/v1 Jobs and CronJobs on a datacenter (e2e)', { timeout: 600_000 }, () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'shipyard-batch-'));
  const kubectl = kubectlWith(join(dataDir, 'kubeconfig'));
  let up: UpProcess | undefined;
  const { ok, json } = strictKubectl(kubectl);
  const condition = (job: Json, type: string): Json | undefined => (job.status?.conditions ?? []).find((c: Json) => c.type === type);
  const jobsOwnedBy = async (cronJob: Json): Promise<Json[]> =>
    ((await json(['jobs'])).items as Json[]).filter((j) => j.metadata.ownerReferences?.some((r: Json) => r.uid === cronJob.metadata.uid));
  let tick: Json;

  before(async () => {
    const imported = await runShipyard(['image', 'import', IMAGE, '--entrypoint', fixture('batch-task.mjs'), '--data-dir', dataDir]);
    assert.equal(imported.code, 0, imported.stderr);
    up = startUp(dataDir, ['--masters', '1', '--workers', '0', '--masters-schedulable', '--api-port', '18443', '--cloud-port', '18080']);
    await up.ready(300_000);
  });

  after(() => stopUp(up, dataDir));

  // A history limit of 0 shows the limit at work after a single activation (one minute of real
  // time, not two); limits above 0 are counted on a fake clock in test/cluster/cronjob.test.ts.
  it('kubectl create cronjob: a CronJob on */1 * * * * that keeps no finished Job', async () => {
    await ok(['create', 'cronjob', 'tick', `--image=${IMAGE}`, '--schedule=*/1 * * * *', '--restart=Never', '--', 'succeed', 'tick']);
    await ok(['patch', 'cronjob', 'tick', '-p', '{"spec":{"successfulJobsHistoryLimit":0}}']);
    tick = await json(['cronjob', 'tick']);
    assert.equal(tick.spec.successfulJobsHistoryLimit, 0);
    assert.equal(tick.spec.concurrencyPolicy, 'Allow');
    const table = await ok(['get', 'cronjobs']);
    assert.match(table.split('\n')[0]!, /^NAME\s+SCHEDULE\s+TIMEZONE\s+SUSPEND\s+ACTIVE\s+LAST SCHEDULE\s+AGE$/);
    assert.match(table, /\ntick\s+\*\/1 \* \* \* \*\s+<none>\s+False\s+\d+\s+\S+\s+\S+/);
  });

  it('a Job of an imported image completes; kubectl wait and kubectl logs job/… work', async () => {
    await ok(['create', 'job', 'hello', `--image=${IMAGE}`, '--', 'succeed', 'hello from a job']);
    await ok(['wait', '--for=condition=complete', 'job/hello', '--timeout=180s']);
    const job = await json(['job', 'hello']);
    assert.equal(job.status.succeeded, 1);
    assert.equal(condition(job, 'SuccessCriteriaMet')?.status, 'True');
    assert.equal(condition(job, 'Complete')?.reason, 'CompletionsReached');
    assert.ok(job.status.completionTime);
    assert.match(await ok(['logs', 'job/hello']), /hello from a job in hello-/);
    const table = await ok(['get', 'jobs', 'hello']);
    assert.match(table.split('\n')[0]!, /^NAME\s+STATUS\s+COMPLETIONS\s+DURATION\s+AGE$/);
    assert.match(table, /\nhello\s+Complete\s+1\/1\s+\S+\s+\S+/);
    const pods = (await json(['pods', '-l', 'batch.kubernetes.io/job-name=hello'])).items as Json[];
    assert.equal(pods.length, 1);
    assert.equal(pods[0].status.phase, 'Succeeded');
    assert.deepEqual(pods[0].metadata.finalizers ?? [], [], 'counted, so released');
  });

  it('a failing Job backs off, and ends Failed after backoffLimit with BackoffLimitExceeded', async () => {
    const manifest = {
      apiVersion: 'batch/v1',
      kind: 'Job',
      metadata: { name: 'broken' },
      spec: { backoffLimit: 1, template: { spec: { restartPolicy: 'Never', containers: [{ name: 'task', image: IMAGE, args: ['fail', '3'] }] } } },
    };
    await ok(['apply', '-f', '-'], JSON.stringify(manifest));
    await ok(['wait', '--for=condition=failed', 'job/broken', '--timeout=240s']);
    const job = await json(['job', 'broken']);
    assert.equal(job.status.failed, 2, 'the first run and one retry');
    assert.equal(condition(job, 'FailureTarget')?.reason, 'BackoffLimitExceeded');
    assert.equal(condition(job, 'Failed')?.reason, 'BackoffLimitExceeded');
    assert.equal(condition(job, 'Failed')?.message, 'Job has reached the specified backoff limit');
    const pods = (await json(['pods', '-l', 'batch.kubernetes.io/job-name=broken'])).items as Json[];
    assert.equal(pods.length, 2);
    for (const p of pods) assert.equal(p.status.containerStatuses?.[0]?.state?.terminated?.exitCode, 3);
    // The controller sends the event after the status write that made the Job Failed.
    let events: Json[] = [];
    await pollUntil('the BackoffLimitExceeded event', async () => {
      events = (await json(['events', '--field-selector', 'involvedObject.kind=Job,involvedObject.name=broken'])).items as Json[];
      return events.some((e) => e.reason === 'BackoffLimitExceeded' && e.type === 'Warning') || undefined;
    }, { timeoutMs: 60_000, intervalMs: 500 }).catch(() => undefined);
    assert.ok(events.some((e) => e.reason === 'BackoffLimitExceeded' && e.type === 'Warning'), JSON.stringify(events.map((e) => e.reason)));
    assert.match(await ok(['get', 'job', 'broken']), /\nbroken\s+Failed\s+0\/1\s/);
  });

  it('kubectl create job --from=cronjob/… runs the CronJob\'s template at once', async () => {
    await ok(['create', 'cronjob', 'nightly', `--image=${IMAGE}`, '--schedule=0 3 * * *', '--', 'succeed', 'nightly work']);
    await ok(['create', 'job', 'nightly-now', '--from=cronjob/nightly']);
    const job = await json(['job', 'nightly-now']);
    assert.equal(job.metadata.annotations['cronjob.kubernetes.io/instantiate'], 'manual');
    assert.equal(job.metadata.ownerReferences[0].kind, 'CronJob');
    await ok(['wait', '--for=condition=complete', 'job/nightly-now', '--timeout=180s']);
    assert.match(await ok(['logs', 'job/nightly-now']), /nightly work/);
  });

  it('the */1 CronJob started the Job of its minute, which completed and was then deleted by the history limit', async () => {
    const result = await pollUntil(
      'an activation whose completed Job the history limit removed',
      async () => {
        const cj = await json(['cronjob', 'tick']);
        const jobs = await jobsOwnedBy(cj);
        const events = ((await json(['events', '--field-selector', 'involvedObject.kind=CronJob,involvedObject.name=tick'])).items as Json[]).map((e) => `${e.reason}: ${e.message}`);
        const named = (reason: string, verb: string) => events.flatMap((e) => new RegExp(`^${reason}: ${verb} job (tick-\\d+)$`).exec(e)?.[1] ?? []);
        const deleted = named('SuccessfulDelete', 'Deleted');
        const name = named('SuccessfulCreate', 'Created').find((n) => deleted.includes(n));
        return name && cj.status?.lastSuccessfulTime ? { cj, jobs, name } : undefined;
      },
      { timeoutMs: 180_000, intervalMs: 2000 },
    );
    const { name } = result;
    // Named after its scheduled minute, which came after the CronJob was created and is at most the last one scheduled.
    const minuteMs = Number(name.slice('tick-'.length)) * 60_000;
    assert.ok(minuteMs > Date.parse(tick.metadata.creationTimestamp), `${name} is named after a minute after the CronJob's creation`);
    assert.ok(minuteMs <= Date.parse(result.cj.status.lastScheduleTime), `${name} is named after a scheduled minute (last ${result.cj.status.lastScheduleTime})`);
    assert.ok(!result.jobs.some((j: Json) => j.metadata.name === name), 'the Job is gone');
  });
});
