/**
 * The Job and TTL-after-finished controllers against a real API server, on a fake clock (style
 * example 14): there is no kubelet, so the test plays it, moving pods to Succeeded or Failed
 * through the status subresource with the fake clock's times, and reads the outcome back from
 * the API. Time-driven behaviour (failure backoff, active deadline, TTL) happens only when the
 * test advances the clock; every wait polls with a small advance so that queue retries after a
 * conflict still run.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { CoreV1Event, V1Job, V1Pod } from '@kubernetes/client-node';
import { formatTimestamp } from '../../src/api/time.ts';
import { createJobController } from '../../src/cluster/job/controller.ts';
import { createTtlAfterFinishedController } from '../../src/cluster/job/ttl-after-finished.ts';
import type { ApiClient } from '../../src/runtime/client.ts';
import { FakeClock } from '../../src/runtime/clock.ts';
import { resources } from '../../src/runtime/resources.ts';
import { startControllers, type RunningControllers } from '../support/controllers.ts';
import { until } from '../support/until.ts';

const NS = 'default';
const WALL = Date.parse('2030-06-01T12:00:00Z');
const TRACKING = 'batch.kubernetes.io/job-tracking';

type JobSpec = NonNullable<V1Job['spec']>;

function job(name: string, spec: Partial<JobSpec> = {}): V1Job {
  return {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: { name, namespace: NS },
    spec: { template: { spec: { containers: [{ name: 'main', image: 'example/app:1' }], restartPolicy: 'Never' } }, ...spec },
  };
}

describe('job controller on a fake clock', () => {
  const clock = new FakeClock(0, { wall: WALL });
  let cluster: RunningControllers;
  let client: ApiClient;

  /** Polls with a small step of the fake clock each time, so retries after a conflict are not stuck. */
  const eventually = <T>(what: string, probe: () => Promise<T | undefined | false>) =>
    until(what, async () => {
      clock.advance(20);
      return probe();
    }, { timeoutMs: 30_000, retryErrors: true });
  const getJob = (name: string) => client.get<V1Job>(resources.jobs, NS, name);
  const podsOf = async (name: string): Promise<V1Pod[]> =>
    (await client.list<V1Pod>(resources.pods, NS, { labelSelector: `batch.kubernetes.io/job-name=${name}` })).items.sort((a, b) => String(a.metadata?.creationTimestamp).localeCompare(String(b.metadata?.creationTimestamp)) || (a.metadata!.name! < b.metadata!.name! ? -1 : 1));
  const condition = (j: V1Job, type: string) => j.status?.conditions?.find((c) => c.type === type);
  const events = async (name: string): Promise<string[]> =>
    (await client.list<CoreV1Event>(resources.events, NS)).items.filter((e) => e.involvedObject?.name === name && e.involvedObject?.kind === 'Job').map((e) => `${e.reason}: ${e.message}`);
  /** Plays the kubelet: the pod's one container exited with `code`. */
  const finish = (pod: V1Pod, code: number) => {
    const at = formatTimestamp(clock.wallNow());
    const terminated = { exitCode: code, reason: code === 0 ? 'Completed' : 'Error', finishedAt: at as never, startedAt: at as never };
    return client.patch(resources.pods, NS, pod.metadata!.name!, { status: { phase: code === 0 ? 'Succeeded' : 'Failed', containerStatuses: [{ name: 'main', image: 'example/app:1', imageID: '', ready: false, restartCount: 0, state: { terminated } }] } }, { subresource: 'status' });
  };
  const activePods = async (name: string, n: number) => eventually(`${n} active pods of ${name}`, async () => {
    const p = (await podsOf(name)).filter((x) => !x.status?.phase || x.status.phase === 'Pending' || x.status.phase === 'Running').filter((x) => !x.metadata?.deletionTimestamp);
    return p.length === n ? p : undefined;
  });

  before(async () => {
    cluster = await startControllers({ userAgent: 'job-test', eventsAs: 'job-controller', clock }, (ctx) => [...createJobController(ctx), createTtlAfterFinishedController(ctx)]);
    ({ client } = cluster);
  });
  after(() => cluster?.stop());

  it('runs pods until the completions succeed, then SuccessCriteriaMet and Complete, counting through the tracking finalizer', async () => {
    const created = await client.create(resources.jobs, job('two', { completions: 2, parallelism: 1 }));
    const [first] = await activePods('two', 1);
    assert.deepEqual(first!.metadata?.ownerReferences?.map((r) => [r.apiVersion, r.kind, r.name, r.uid, r.controller, r.blockOwnerDeletion]), [['batch/v1', 'Job', 'two', created.metadata!.uid, true, true]]);
    assert.ok(first!.metadata?.finalizers?.includes(TRACKING), 'the pod carries the tracking finalizer');
    assert.match(first!.metadata!.name!, /^two-[a-z0-9]{5}$/);
    assert.equal(first!.metadata?.labels?.['batch.kubernetes.io/controller-uid'], created.metadata!.uid);
    const running = await eventually('status.active=1 and a start time', async () => {
      const j = await getJob('two');
      return j.status?.active === 1 && j.status.startTime ? j : undefined;
    });
    assert.equal(running.status?.ready, 0);
    const started = Date.parse(String(running.status?.startTime));
    assert.ok(started >= WALL - 1000 && started <= clock.wallNow(), `startTime ${String(running.status?.startTime)} is the fake clock's wall time`);

    await finish(first!, 0);
    const [second] = await activePods('two', 1);
    assert.notEqual(second!.metadata?.name, first!.metadata?.name);
    await finish(second!, 0);
    const done = await eventually('the Job Complete', async () => {
      const j = await getJob('two');
      return condition(j, 'Complete')?.status === 'True' ? j : undefined;
    });
    assert.equal(done.status?.succeeded, 2);
    assert.equal(done.status?.active, undefined);
    assert.deepEqual(done.status?.uncountedTerminatedPods ?? {}, {});
    assert.deepEqual(done.status?.conditions?.map((c) => [c.type, c.status, c.reason, c.message]), [
      ['SuccessCriteriaMet', 'True', 'CompletionsReached', 'Reached expected number of succeeded pods'],
      ['Complete', 'True', 'CompletionsReached', 'Reached expected number of succeeded pods'],
    ]);
    assert.equal(String(done.status?.completionTime), String(condition(done, 'Complete')?.lastTransitionTime));
    for (const p of await podsOf('two')) assert.ok(!p.metadata?.finalizers?.includes(TRACKING), `${p.metadata?.name} was counted and released`);
    const seen = await eventually('SuccessfulCreate and Completed events', async () => {
      const e = await events('two');
      return e.includes('Completed: Job completed') && e.filter((x) => x.startsWith('SuccessfulCreate: Created pod: two-')).length === 2 ? e : undefined;
    });
    assert.ok(seen.length >= 3);
  });

  it('backs off 10 s after a failure before the next pod, then fails with BackoffLimitExceeded', async () => {
    await client.create(resources.jobs, job('flaky', { backoffLimit: 1 }));
    const [first] = await activePods('flaky', 1);
    await finish(first!, 1);
    await until('the failure counted', async () => ((await getJob('flaky')).status?.failed === 1 ? true : undefined), { timeoutMs: 30_000 });
    // The pass that counted the failure also decided not to create a pod yet.
    assert.equal((await podsOf('flaky')).length, 1, 'no new pod before the backoff has passed');
    clock.advance(10_000);
    const [second] = await activePods('flaky', 1);
    assert.notEqual(second!.metadata?.name, first!.metadata?.name);
    await finish(second!, 1);
    const failed = await eventually('the Job Failed', async () => {
      const j = await getJob('flaky');
      return condition(j, 'Failed')?.status === 'True' ? j : undefined;
    });
    assert.equal(failed.status?.failed, 2);
    assert.deepEqual(failed.status?.conditions?.map((c) => [c.type, c.reason, c.message]), [
      ['FailureTarget', 'BackoffLimitExceeded', 'Job has reached the specified backoff limit'],
      ['Failed', 'BackoffLimitExceeded', 'Job has reached the specified backoff limit'],
    ]);
    await eventually('a BackoffLimitExceeded warning', async () => (await events('flaky')).includes('BackoffLimitExceeded: Job has reached the specified backoff limit'));
  });

  it('fails a Job active longer than activeDeadlineSeconds and deletes its pods', async () => {
    await client.create(resources.jobs, job('slow', { activeDeadlineSeconds: 30 }));
    await activePods('slow', 1);
    clock.advance(30_000);
    const failed = await eventually('DeadlineExceeded', async () => {
      const j = await getJob('slow');
      return condition(j, 'Failed')?.status === 'True' ? j : undefined;
    });
    assert.equal(condition(failed, 'Failed')?.reason, 'DeadlineExceeded');
    assert.equal(condition(failed, 'Failed')?.message, 'Job was active longer than specified deadline');
    assert.equal(failed.status?.failed, 1, 'the pod deleted at the deadline counts as failed');
    await eventually('the pod gone', async () => (await podsOf('slow')).length === 0);
  });

  it('creates no pods while suspended, starts on resume, and deletes active pods when suspended again', async () => {
    await client.create(resources.jobs, job('later', { suspend: true, parallelism: 2, completions: 4 }));
    const suspended = await eventually('Suspended=True', async () => {
      const j = await getJob('later');
      return condition(j, 'Suspended')?.status === 'True' ? j : undefined;
    });
    assert.equal(condition(suspended, 'Suspended')?.reason, 'JobSuspended');
    assert.equal(suspended.status?.startTime, undefined);
    assert.equal((await podsOf('later')).length, 0);
    await client.patch(resources.jobs, NS, 'later', { spec: { suspend: false } });
    await activePods('later', 2);
    const resumed = await eventually('Suspended=False', async () => {
      const j = await getJob('later');
      return condition(j, 'Suspended')?.status === 'False' ? j : undefined;
    });
    assert.equal(condition(resumed, 'Suspended')?.reason, 'JobResumed');
    await client.patch(resources.jobs, NS, 'later', { spec: { suspend: true } });
    await eventually('the active pods deleted', async () => (await podsOf('later')).length === 0);
    const again = await eventually('Suspended=True again with no active pods', async () => {
      const j = await getJob('later');
      return condition(j, 'Suspended')?.status === 'True' && !j.status?.active ? j : undefined;
    });
    assert.equal(again.status?.failed ?? 0, 0, 'pods deleted by suspension are released first, so they do not count as failures');
    const e = await events('later');
    assert.ok(e.includes('Suspended: Job suspended') && e.includes('Resumed: Job resumed'), JSON.stringify(e));
  });

  it('runs an Indexed Job with one pod per index and reports completedIndexes', async () => {
    await client.create(resources.jobs, job('idx', { completionMode: 'Indexed', completions: 3, parallelism: 3 }));
    const pods = await activePods('idx', 3);
    const byIndex = new Map(pods.map((p) => [p.metadata?.annotations?.['batch.kubernetes.io/job-completion-index'], p]));
    assert.deepEqual([...byIndex.keys()].sort(), ['0', '1', '2']);
    const one = byIndex.get('1')!;
    assert.equal(one.metadata?.labels?.['batch.kubernetes.io/job-completion-index'], '1');
    assert.equal(one.spec?.hostname, 'idx-1');
    assert.match(one.metadata!.name!, /^idx-1-[a-z0-9]{5}$/);
    assert.deepEqual(one.spec?.containers[0]?.env?.map((e) => [e.name, e.valueFrom?.fieldRef?.fieldPath]), [['JOB_COMPLETION_INDEX', "metadata.annotations['batch.kubernetes.io/job-completion-index']"]]);
    await finish(one, 0);
    await finish(byIndex.get('2')!, 0);
    const partial = await eventually('indexes 1 and 2 completed', async () => {
      const j = await getJob('idx');
      return j.status?.completedIndexes === '1,2' ? j : undefined;
    });
    assert.equal(partial.status?.succeeded, 2);
    await finish(byIndex.get('0')!, 0);
    const done = await eventually('Complete', async () => {
      const j = await getJob('idx');
      return condition(j, 'Complete')?.status === 'True' ? j : undefined;
    });
    assert.equal(done.status?.completedIndexes, '0-2');
  });

  it('applies the pod failure policy: Ignore does not count, FailJob fails the Job with the rule in the message', async () => {
    const podFailurePolicy = { rules: [{ action: 'Ignore', onExitCodes: { operator: 'In', values: [3] } }, { action: 'FailJob', onExitCodes: { containerName: 'main', operator: 'In', values: [42] } }] };
    await client.create(resources.jobs, job('policy', { backoffLimit: 0, podFailurePolicy }));
    const [first] = await activePods('policy', 1);
    await finish(first!, 3);
    // The ignored failure is not counted, but the pod is released, and a replacement follows the usual backoff.
    await until('the ignored pod released', async () => {
      const p = await client.get<V1Pod>(resources.pods, NS, first!.metadata!.name!);
      return !p.metadata?.finalizers?.includes(TRACKING);
    }, { timeoutMs: 30_000 });
    assert.equal((await getJob('policy')).status?.failed ?? 0, 0);
    clock.advance(10_000);
    const [second] = await activePods('policy', 1);
    assert.notEqual(second!.metadata?.name, first!.metadata?.name);
    await finish(second!, 42);
    const failed = await eventually('Failed by the pod failure policy', async () => {
      const j = await getJob('policy');
      return condition(j, 'Failed')?.status === 'True' ? j : undefined;
    });
    assert.equal(condition(failed, 'Failed')?.reason, 'PodFailurePolicy');
    assert.equal(condition(failed, 'Failed')?.message, `Container main for pod ${NS}/${second!.metadata!.name} failed with exit code 42 matching FailJob rule at index 1`);
    assert.equal(condition(failed, 'FailureTarget')?.reason, 'PodFailurePolicy');
  });

  it('deletes a finished Job once ttlSecondsAfterFinished has passed, in the background', async () => {
    await client.create(resources.jobs, job('brief', { ttlSecondsAfterFinished: 60 }));
    const [pod] = await activePods('brief', 1);
    await finish(pod!, 0);
    await eventually('Complete', async () => condition(await getJob('brief'), 'Complete')?.status === 'True');
    clock.advance(30_000);
    assert.ok(await getJob('brief'), 'still there halfway through its TTL');
    clock.advance(30_000);
    await until('the Job deleted', async () => {
      try {
        await getJob('brief');
        return undefined;
      } catch {
        return true;
      }
    }, { timeoutMs: 30_000 });
  });

  it('releases the tracking finalizer of the pods of a deleted Job', async () => {
    await client.create(resources.jobs, job('gone', { parallelism: 2, completions: 2 }));
    await activePods('gone', 2);
    await client.delete(resources.jobs, NS, 'gone', { propagationPolicy: 'Background' });
    await eventually('the orphaned pods without the finalizer', async () => {
      const pods = await podsOf('gone');
      return pods.length === 2 && pods.every((p) => !p.metadata?.finalizers?.includes(TRACKING));
    });
  });
});
