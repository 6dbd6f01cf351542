import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { V1Pod } from '@kubernetes/client-node';
import { nextBackoffRecord, podFinishedTime, remainingBackoffMs } from './backoff.ts';
import { matchPodFailurePolicy } from './failure-policy.ts';
import { formatIndexes, parseIndexes, pendingIndexes } from './indexes.ts';

const T0 = Date.parse('2030-01-01T00:00:00Z');
const at = (s: number): string => new Date(T0 + s * 1000).toISOString();

function failedPod(name: string, exitCode: number, finishedS = 0, extra: Partial<V1Pod['status']> = {}): V1Pod {
  return {
    metadata: { name, namespace: 'ns', creationTimestamp: at(-60) as never },
    status: { phase: 'Failed', containerStatuses: [{ name: 'main', image: 'i', imageID: '', ready: false, restartCount: 0, state: { terminated: { exitCode, finishedAt: at(finishedS) as never } } }], ...extra },
  };
}

describe('pod failure backoff', () => {
  it('doubles from 10 s per failure since the last success, capped at 6 minutes, counted from the latest failure', () => {
    const one = nextBackoffRecord(undefined, [], [failedPod('a', 1, 0)]);
    assert.deepEqual(one, { failuresAfterLastSuccess: 1, lastFailureTime: T0 });
    assert.equal(remainingBackoffMs(one, T0 + 4000), 6000);
    assert.equal(remainingBackoffMs(one, T0 + 10_001), 0);
    const three = nextBackoffRecord(one, [], [failedPod('b', 1, 20), failedPod('c', 1, 30)]);
    assert.equal(three.failuresAfterLastSuccess, 3);
    assert.equal(remainingBackoffMs(three, T0 + 30_000), 40_000);
    assert.equal(remainingBackoffMs({ failuresAfterLastSuccess: 20, lastFailureTime: T0 }, T0), 360_000);
    // A success resets the count; only failures after it count.
    const after = nextBackoffRecord(three, [{ ...failedPod('ok', 0, 40), status: { ...failedPod('ok', 0, 40).status, phase: 'Succeeded' } }], [failedPod('d', 1, 35), failedPod('e', 1, 50)]);
    assert.deepEqual(after, { failuresAfterLastSuccess: 1, lastFailureTime: T0 + 50_000 });
    assert.equal(remainingBackoffMs(undefined, T0), 0);
  });

  it('takes a pod\'s finish time from its containers, else from Ready=False, else its deletion', () => {
    assert.equal(podFinishedTime(failedPod('a', 1, 7)), T0 + 7000);
    assert.equal(podFinishedTime({ metadata: {}, status: { conditions: [{ type: 'Ready', status: 'False', lastTransitionTime: at(9) as never }] } }), T0 + 9000);
    assert.equal(podFinishedTime({ metadata: { deletionTimestamp: at(30) as never, deletionGracePeriodSeconds: 30 } }), T0);
  });
});

describe('pod failure policy', () => {
  const policy = {
    rules: [
      { action: 'Ignore', onPodConditions: [{ type: 'DisruptionTarget', status: 'True' }] },
      { action: 'FailJob', onExitCodes: { containerName: 'main', operator: 'In', values: [42] } },
      { action: 'Count', onExitCodes: { operator: 'NotIn', values: [1, 2] } },
    ],
  };
  it('lets the first matching rule decide, as kube does', () => {
    assert.deepEqual(matchPodFailurePolicy(policy, failedPod('p', 42)), { failJobMessage: 'Container main for pod ns/p failed with exit code 42 matching FailJob rule at index 1', countFailed: true, action: 'FailJob' });
    assert.deepEqual(matchPodFailurePolicy(policy, failedPod('p', 7)), { countFailed: true, action: 'Count' });
    assert.deepEqual(matchPodFailurePolicy(policy, failedPod('p', 1)), { countFailed: true }, 'no rule matched: counted');
    const disrupted = failedPod('p', 42, 0, { conditions: [{ type: 'DisruptionTarget', status: 'True' }] });
    assert.deepEqual(matchPodFailurePolicy(policy, disrupted), { countFailed: false, action: 'Ignore' });
    const fail = { rules: [{ action: 'FailJob', onPodConditions: [{ type: 'ConfigIssue', status: 'True' }] }] };
    assert.equal(matchPodFailurePolicy(fail, failedPod('q', 1, 0, { conditions: [{ type: 'ConfigIssue', status: 'True' }] })).failJobMessage, 'Pod ns/q has condition ConfigIssue matching FailJob rule at index 0');
  });
});

describe('completion indexes', () => {
  it('formats runs as kube does and parses them back within completions', () => {
    assert.equal(formatIndexes(new Set([0, 1, 2, 5, 7, 8])), '0-2,5,7,8');
    assert.equal(formatIndexes(new Set([3, 1])), '1,3');
    assert.equal(formatIndexes(new Set()), '');
    assert.deepEqual([...parseIndexes('0-2,5,7,8', 8)].sort(), [0, 1, 2, 5, 7]);
  });
  it('hands out the lowest indexes neither done nor busy', () => {
    assert.deepEqual(pendingIndexes(6, new Set([0, 2]), new Set([1]), 2), [3, 4]);
    assert.deepEqual(pendingIndexes(3, new Set([0, 1, 2]), new Set(), 2), []);
  });
});
