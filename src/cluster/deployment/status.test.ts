import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { formatTimestamp } from '../../api/time.ts';
import { calculateStatus, deploymentComplete, deploymentTimedOut, progressRecheckMs, rolloutStatus, setCondition } from './status.ts';
import type { Deployment, DeploymentStatus, ReplicaSet } from './types.ts';

const NOW = Date.parse('2024-06-01T12:00:00Z');

function deployment(status: Partial<DeploymentStatus> = {}, spec: { replicas?: number; progressDeadlineSeconds?: number } = {}): Deployment {
  return {
    metadata: { name: 'web', generation: 2 },
    spec: { replicas: spec.replicas ?? 3, progressDeadlineSeconds: spec.progressDeadlineSeconds ?? 600, selector: {}, template: {}, strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 1, maxUnavailable: 1 } } },
    status: { replicas: 0, updatedReplicas: 0, readyReplicas: 0, availableReplicas: 0, unavailableReplicas: 0, ...status },
  } as Deployment;
}
const rs = (name: string, replicas: number, s: { replicas?: number; ready?: number; available?: number; failure?: string } = {}): ReplicaSet =>
  ({
    metadata: { name },
    spec: { replicas },
    status: {
      replicas: s.replicas ?? replicas,
      readyReplicas: s.ready ?? 0,
      availableReplicas: s.available ?? 0,
      conditions: s.failure ? [{ type: 'ReplicaFailure', status: 'True', reason: 'FailedCreate', message: s.failure, lastTransitionTime: formatTimestamp(NOW) }] : undefined,
    },
  }) as unknown as ReplicaSet;

describe('Deployment status', () => {
  it('adds up the ReplicaSets and judges minimum availability against maxUnavailable', () => {
    const newRS = rs('web-2', 2, { ready: 1, available: 1 });
    const s = calculateStatus(deployment(), [rs('web-1', 2, { ready: 2, available: 2 }), newRS], newRS, NOW);
    assert.deepEqual([s.replicas, s.updatedReplicas, s.readyReplicas, s.availableReplicas, s.unavailableReplicas, s.observedGeneration], [4, 2, 3, 3, 1, 2]);
    assert.equal(s.conditions?.find((c) => c.type === 'Available')?.reason, 'MinimumReplicasAvailable');
    const low = calculateStatus(deployment(), [rs('web-1', 3, { available: 1 })], undefined, NOW);
    assert.equal(low.conditions?.find((c) => c.type === 'Available')?.status, 'False');
  });

  it('keeps a condition\'s times when nothing about it changed', () => {
    const status = deployment().status as DeploymentStatus;
    setCondition(status, { type: 'Available', status: 'True', reason: 'A', lastUpdateTime: 't1', lastTransitionTime: 't1' });
    setCondition(status, { type: 'Available', status: 'True', reason: 'A', lastUpdateTime: 't2', lastTransitionTime: 't2' });
    assert.equal(status.conditions?.[0]?.lastUpdateTime, 't1');
    setCondition(status, { type: 'Available', status: 'True', reason: 'B', lastUpdateTime: 't3', lastTransitionTime: 't3' });
    assert.deepEqual([status.conditions?.[0]?.reason, status.conditions?.[0]?.lastTransitionTime, status.conditions?.[0]?.lastUpdateTime], ['B', 't1', 't3']);
  });

  it('says NewReplicaSetAvailable once complete', () => {
    const newRS = rs('web-2', 3, { ready: 3, available: 3 });
    const s = rolloutStatus(deployment(), [newRS], newRS, NOW);
    assert.equal(deploymentComplete(deployment(), s), true);
    const p = s.conditions?.find((c) => c.type === 'Progressing');
    assert.deepEqual([p?.status, p?.reason, p?.message], ['True', 'NewReplicaSetAvailable', 'ReplicaSet "web-2" has successfully progressed.']);
  });

  it('refreshes lastUpdateTime on progress but keeps lastTransitionTime', () => {
    const earlier = formatTimestamp(NOW - 60_000);
    const d = deployment({ replicas: 3, updatedReplicas: 1, conditions: [{ type: 'Progressing', status: 'True', reason: 'ReplicaSetUpdated', message: 'x', lastUpdateTime: earlier, lastTransitionTime: earlier }] });
    const newRS = rs('web-2', 2, { replicas: 2 });
    const s = rolloutStatus(d, [rs('web-1', 2), newRS], newRS, NOW);
    const p = s.conditions?.find((c) => c.type === 'Progressing');
    assert.deepEqual([p?.reason, p?.lastUpdateTime, p?.lastTransitionTime, p?.message], ['ReplicaSetUpdated', formatTimestamp(NOW), earlier, 'ReplicaSet "web-2" is progressing.']);
  });

  it('times out after progressDeadlineSeconds without progress, and schedules the check', () => {
    const since = formatTimestamp(NOW - 30_000);
    const d = deployment({ replicas: 3, updatedReplicas: 1, conditions: [{ type: 'Progressing', status: 'True', reason: 'ReplicaSetUpdated', message: 'x', lastUpdateTime: since, lastTransitionTime: since }] }, { progressDeadlineSeconds: 60 });
    const newRS = rs('web-2', 1);
    const stalled = rolloutStatus(d, [rs('web-1', 2), newRS], newRS, NOW);
    assert.equal(deploymentTimedOut(d, stalled, NOW), false);
    assert.equal(progressRecheckMs(d, stalled, NOW), 31_000);
    const late = rolloutStatus(d, [rs('web-1', 2), newRS], newRS, NOW + 31_000);
    const p = late.conditions?.find((c) => c.type === 'Progressing');
    assert.deepEqual([p?.status, p?.reason, p?.message], ['False', 'ProgressDeadlineExceeded', 'ReplicaSet "web-2" has timed out progressing.']);
    assert.equal(progressRecheckMs(d, late, NOW + 31_000), undefined);
  });

  it('lifts a ReplicaSet\'s ReplicaFailure onto the Deployment, and drops it when it clears', () => {
    const newRS = rs('web-2', 3, { replicas: 0, failure: 'exceeded quota' });
    const s = rolloutStatus(deployment(), [newRS], newRS, NOW);
    assert.equal(s.conditions?.find((c) => c.type === 'ReplicaFailure')?.message, 'exceeded quota');
    const healed = rolloutStatus(deployment(s), [rs('web-2', 3)], undefined, NOW);
    assert.equal(healed.conditions?.some((c) => c.type === 'ReplicaFailure'), false);
  });
});
