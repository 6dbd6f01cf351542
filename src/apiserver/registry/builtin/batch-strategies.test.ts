import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { KubeObject } from '../resource.ts';
import { cronJobStrategy, jobStrategy } from './batch-strategies.ts';

const UID = '0b0e6b6e-0000-4000-8000-000000000001';

function job(spec: KubeObject = {}, name = 'pi'): KubeObject {
  return {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: { name, namespace: 'default', uid: UID },
    spec: { template: { spec: { containers: [{ name: 'c', image: 'busybox' }], restartPolicy: 'Never' } }, ...spec },
  };
}

function created(obj: KubeObject): KubeObject {
  jobStrategy.prepareForCreate!(obj);
  return obj;
}

const fields = (errs: { field: string }[]): string[] => errs.map((e) => e.field);
const messages = (errs: { message: string }[]): string => errs.map((e) => e.message).join('\n');

describe('Job strategy', () => {
  it('defaults as kube-apiserver does and generates the selector and labels', () => {
    const j = created(job());
    assert.equal(j.spec.completions, 1);
    assert.equal(j.spec.parallelism, 1);
    assert.equal(j.spec.backoffLimit, 6);
    assert.equal(j.spec.completionMode, 'NonIndexed');
    assert.equal(j.spec.suspend, false);
    assert.equal(j.spec.podReplacementPolicy, 'TerminatingOrFailed');
    assert.deepEqual(j.spec.selector, { matchLabels: { 'batch.kubernetes.io/controller-uid': UID } });
    assert.deepEqual(j.spec.template.metadata.labels, { 'job-name': 'pi', 'batch.kubernetes.io/job-name': 'pi', 'controller-uid': UID, 'batch.kubernetes.io/controller-uid': UID });
    assert.deepEqual(j.status, {});
    assert.deepEqual(jobStrategy.validate!(j), []);
    // A work queue (parallelism only) keeps completions unset.
    const queue = created(job({ parallelism: 3 }));
    assert.equal(queue.spec.completions, undefined);
    // A pod failure policy makes Failed the replacement policy and defaults condition statuses.
    const pfp = created(job({ podFailurePolicy: { rules: [{ action: 'Ignore', onPodConditions: [{ type: 'DisruptionTarget' }] }] } }));
    assert.equal(pfp.spec.podReplacementPolicy, 'Failed');
    assert.equal(pfp.spec.podFailurePolicy.rules[0].onPodConditions[0].status, 'True');
  });

  it('requires restartPolicy Never or OnFailure', () => {
    const always = created(job({ template: { spec: { containers: [{ name: 'c', image: 'i' }] } } }));
    assert.equal(messages(jobStrategy.validate!(always)), 'spec.template.spec.restartPolicy: Required value: valid values: "OnFailure", "Never"');
    const onFailure = created(job({ podFailurePolicy: { rules: [{ action: 'FailJob', onExitCodes: { operator: 'In', values: [42] } }] }, template: { spec: { containers: [{ name: 'c', image: 'i' }], restartPolicy: 'OnFailure' } } }));
    assert.match(messages(jobStrategy.validate!(onFailure)), /spec\.template\.spec\.restartPolicy: Invalid value: "OnFailure": only "Never" is supported when podFailurePolicy is specified/);
  });

  it('checks counts, completion mode and the pod failure policy with kube\'s paths', () => {
    const bad = created(job({ backoffLimit: -1, completionMode: 'Random', activeDeadlineSeconds: -5 }));
    assert.deepEqual(fields(jobStrategy.validate!(bad)).sort(), ['spec.activeDeadlineSeconds', 'spec.backoffLimit', 'spec.completionMode']);
    const indexed = created(job({ completionMode: 'Indexed', completions: undefined, parallelism: 2 }));
    assert.match(messages(jobStrategy.validate!(indexed)), /spec\.completions: Required value: when completion mode is Indexed/);
    const rules = created(job({ podFailurePolicy: { rules: [{ action: 'Explode', onExitCodes: { operator: 'In', values: [0, 3, 2], containerName: 'nope' } }, { action: 'Ignore' }] } }));
    const text = messages(jobStrategy.validate!(rules));
    assert.match(text, /spec\.podFailurePolicy\.rules\[0\]\.action: Unsupported value: "Explode": supported values: "Count", "FailIndex", "FailJob", "Ignore"/);
    assert.match(text, /spec\.podFailurePolicy\.rules\[0\]\.onExitCodes\.values\[0\]: Invalid value: 0: must not be 0 for the In operator/);
    assert.match(text, /spec\.podFailurePolicy\.rules\[0\]\.onExitCodes\.values: Invalid value: \[0,3,2\]: must be ordered/);
    assert.match(text, /spec\.podFailurePolicy\.rules\[0\]\.onExitCodes\.containerName: Invalid value: "nope": must be one of the container or initContainer names in the pod template/);
    assert.match(text, /spec\.podFailurePolicy\.rules\[1\]: Invalid value: specifying one of OnExitCodes and OnPodConditions is required/);
  });

  it('refuses labels and selectors it did not generate unless manualSelector is set', () => {
    const wrong = job({ selector: { matchLabels: { app: 'x' } }, template: { metadata: { labels: { app: 'x' } }, spec: { containers: [{ name: 'c', image: 'i' }], restartPolicy: 'Never' } } });
    const errs = jobStrategy.validate!(created(wrong));
    assert.ok(fields(errs).includes('spec.selector'), messages(errs));
    const manual = job({ manualSelector: true, selector: { matchLabels: { app: 'x' } }, template: { metadata: { labels: { app: 'x' } }, spec: { containers: [{ name: 'c', image: 'i' }], restartPolicy: 'Never' } } });
    assert.deepEqual(jobStrategy.validate!(created(manual)), []);
    const mismatch = job({ manualSelector: true, selector: { matchLabels: { app: 'x' } }, template: { metadata: { labels: { app: 'y' } }, spec: { containers: [{ name: 'c', image: 'i' }], restartPolicy: 'Never' } } });
    assert.match(messages(jobStrategy.validate!(created(mismatch))), /spec\.template\.metadata\.labels: Invalid value: .*`selector` does not match template `labels`/);
  });

  it('keeps the pod template, selector and completions immutable, but lets parallelism change', () => {
    const old = created(job());
    const scaled = structuredClone(old);
    scaled.spec.parallelism = 3;
    jobStrategy.prepareForUpdate!(scaled, old);
    assert.deepEqual(jobStrategy.validateUpdate!(scaled, old), []);
    const edited = structuredClone(old);
    edited.spec.template.spec.containers[0].image = 'other';
    edited.spec.completions = 2;
    assert.deepEqual(fields(jobStrategy.validateUpdate!(edited, old)).sort(), ['spec.completions', 'spec.template']);
    // A suspended Job that never started may have its scheduling directives changed.
    const suspended = created(job({ suspend: true }));
    const placed = structuredClone(suspended);
    placed.spec.template.spec.nodeSelector = { zone: 'a' };
    assert.deepEqual(jobStrategy.validateUpdate!(placed, suspended), []);
  });

  it('refuses status that contradicts itself', () => {
    const j = created(job());
    const s = structuredClone(j);
    s.status = { active: 1, ready: 2, conditions: [{ type: 'Complete', status: 'True' }, { type: 'Failed', status: 'True' }] };
    assert.deepEqual(fields(jobStrategy.validateStatusUpdate!(s, j)).sort(), ['status.active', 'status.conditions', 'status.ready']);
  });
});

function cronJob(spec: KubeObject, name = 'nightly'): KubeObject {
  return {
    apiVersion: 'batch/v1',
    kind: 'CronJob',
    metadata: { name, namespace: 'default', uid: UID },
    spec: { schedule: '*/1 * * * *', jobTemplate: { spec: { template: { spec: { containers: [{ name: 'c', image: 'i' }], restartPolicy: 'OnFailure' } } } }, ...spec },
  };
}

describe('CronJob strategy', () => {
  it('defaults the policy, suspend and history limits, not the Job spec', () => {
    const cj = cronJob({});
    cronJobStrategy.prepareForCreate!(cj);
    assert.equal(cj.spec.concurrencyPolicy, 'Allow');
    assert.equal(cj.spec.suspend, false);
    assert.equal(cj.spec.successfulJobsHistoryLimit, 3);
    assert.equal(cj.spec.failedJobsHistoryLimit, 1);
    assert.equal(cj.spec.jobTemplate.spec.backoffLimit, undefined);
    assert.equal(cj.spec.jobTemplate.spec.template.spec.dnsPolicy, 'ClusterFirst');
    assert.deepEqual(cronJobStrategy.validate!(cj), []);
  });

  it('validates schedule, time zone, policy, the Job template and the name', () => {
    const cases: Array<[KubeObject, string]> = [
      [{ schedule: '* * *' }, 'spec.schedule: Invalid value: "* * *": expected exactly 5 fields, found 3: [* * *]'],
      [{ schedule: 'CRON_TZ=UTC 0 * * * *' }, 'spec.schedule: Invalid value: "CRON_TZ=UTC 0 * * * *": cannot use TZ or CRON_TZ in schedule, use timeZone field instead'],
      [{ timeZone: 'Mars/Olympus' }, 'spec.timeZone: Invalid value: "Mars/Olympus": unknown time zone Mars/Olympus'],
      [{ timeZone: 'Local' }, 'spec.timeZone: Invalid value: "Local": timeZone must be an explicit time zone as defined in https://www.iana.org/time-zones'],
      [{ concurrencyPolicy: 'Sometimes' }, 'spec.concurrencyPolicy: Unsupported value: "Sometimes": supported values: "Allow", "Forbid", "Replace"'],
      [{ startingDeadlineSeconds: -1 }, 'spec.startingDeadlineSeconds: Invalid value: -1: must be greater than or equal to 0'],
      [{ jobTemplate: { spec: { selector: { matchLabels: { a: 'b' } }, template: { spec: { containers: [{ name: 'c', image: 'i' }], restartPolicy: 'Never' } } } } }, 'spec.jobTemplate.spec.selector: Invalid value: {"matchLabels":{"a":"b"}}: `selector` will be auto-generated'],
      [{ jobTemplate: { spec: { template: { spec: { containers: [{ name: 'c', image: 'i' }], restartPolicy: 'Always' } } } } }, 'spec.jobTemplate.spec.template.spec.restartPolicy: Required value: valid values: "OnFailure", "Never"'],
    ];
    for (const [spec, message] of cases) {
      const cj = cronJob(spec);
      cronJobStrategy.prepareForCreate!(cj);
      assert.equal(messages(cronJobStrategy.validate!(cj)), message);
    }
    const long = cronJob({}, 'a'.repeat(53));
    cronJobStrategy.prepareForCreate!(long);
    assert.deepEqual(fields(cronJobStrategy.validate!(long)), ['metadata.name']);
    const paris = cronJob({ timeZone: 'Europe/Paris' });
    cronJobStrategy.prepareForCreate!(paris);
    assert.deepEqual(cronJobStrategy.validate!(paris), []);
  });
});
