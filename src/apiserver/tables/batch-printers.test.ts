import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { cronJobTableConvertor, jobTableConvertor } from './batch-printers.ts';
import type { PrintedObject } from './types.ts';

const now = Date.parse('2025-01-01T12:00:00Z');
const ago = (s: number): string => new Date(now - s * 1000).toISOString().replace(/\.\d+Z$/, 'Z');
const columns = (c: typeof jobTableConvertor): string[] => c.columns.map((x) => (x.priority === 1 ? `${x.name}*` : x.name));
const template = { spec: { containers: [{ name: 'pi', image: 'perl:5' }, { name: 'log', image: 'busybox' }] } };
const selector = { matchLabels: { 'batch.kubernetes.io/controller-uid': 'u1' } };

describe('batch printers', () => {
  it('prints jobs as kube 1.32 does', () => {
    assert.deepEqual(columns(jobTableConvertor), ['Name', 'Status', 'Completions', 'Duration', 'Age', 'Containers*', 'Images*', 'Selector*']);
    const job = (spec: PrintedObject, status: PrintedObject, meta: PrintedObject = {}): unknown[] =>
      jobTableConvertor.cells({ metadata: { name: 'pi', creationTimestamp: ago(300), ...meta }, spec: { template, selector, ...spec }, status }, now);
    assert.deepEqual(job({ completions: 1 }, { succeeded: 1, startTime: ago(290), completionTime: ago(250), conditions: [{ type: 'SuccessCriteriaMet', status: 'True' }, { type: 'Complete', status: 'True' }] }), [
      'pi', 'Complete', '1/1', '40s', '5m', 'pi,log', 'perl:5,busybox', 'batch.kubernetes.io/controller-uid=u1',
    ]);
    assert.equal(job({ completions: 3 }, { startTime: ago(61), failed: 2, conditions: [{ type: 'FailureTarget', status: 'True' }] })[1], 'FailureTarget');
    assert.equal(job({ completions: 3 }, { startTime: ago(61), conditions: [{ type: 'Failed', status: 'True', reason: 'BackoffLimitExceeded' }] })[1], 'Failed');
    assert.deepEqual(job({ parallelism: 4 }, { succeeded: 0, startTime: ago(61) }).slice(1, 4), ['Running', '0/1 of 4', '61s']);
    assert.deepEqual(job({ parallelism: 1 }, {}).slice(1, 4), ['Running', '0/1', '']);
    assert.equal(job({ completions: 1, suspend: true }, { conditions: [{ type: 'Suspended', status: 'True' }] })[1], 'Suspended');
    assert.equal(job({ completions: 1 }, {}, { deletionTimestamp: ago(1) })[1], 'Terminating');
  });

  it('prints cronjobs as kube does', () => {
    assert.deepEqual(columns(cronJobTableConvertor), ['Name', 'Schedule', 'Timezone', 'Suspend', 'Active', 'Last Schedule', 'Age', 'Containers*', 'Images*', 'Selector*']);
    const cj = (spec: PrintedObject, status: PrintedObject): unknown[] => cronJobTableConvertor.cells({ metadata: { name: 'nightly', creationTimestamp: ago(3600) }, spec: { schedule: '0 3 * * *', jobTemplate: { spec: { template } }, ...spec }, status }, now);
    assert.deepEqual(cj({ suspend: false, timeZone: 'Europe/Paris' }, { active: [{ name: 'nightly-1' }], lastScheduleTime: ago(90) }), ['nightly', '0 3 * * *', 'Europe/Paris', 'False', 1, '90s', '60m', 'pi,log', 'perl:5,busybox', '<none>']);
    assert.deepEqual(cj({}, {}).slice(2, 6), ['<none>', '<unset>', 0, '<none>']);
  });
});
