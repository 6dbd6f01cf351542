import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { V1Deployment, V1ReplicaSet } from '@kubernetes/client-node';
import { maxSurge, maxUnavailable, newReplicaSetReplicas, planOldReplicaSetScaleDown, resolveFenceposts } from './rolling.ts';
import type { Deployment, ReplicaSet } from './types.ts';

const deployment = (replicas: number, surge: number | string, unavailable: number | string, type = 'RollingUpdate'): Deployment =>
  ({ spec: { replicas, strategy: type === 'RollingUpdate' ? { type, rollingUpdate: { maxSurge: surge, maxUnavailable: unavailable } } : { type } } }) as V1Deployment as Deployment;
const rs = (replicas: number): ReplicaSet => ({ spec: { replicas } }) as V1ReplicaSet as ReplicaSet;

describe('resolveFenceposts', () => {
  it('rounds surge up and unavailability down', () => {
    assert.deepEqual(resolveFenceposts('25%', '25%', 10), { surge: 3, unavailable: 2 });
    assert.deepEqual(resolveFenceposts('25%', '25%', 1), { surge: 1, unavailable: 0 });
    assert.deepEqual(resolveFenceposts(2, '50%', 5), { surge: 2, unavailable: 2 });
  });

  it('allows one unavailable pod when both come to zero, or nothing could move', () => {
    assert.deepEqual(resolveFenceposts(0, 0, 3), { surge: 0, unavailable: 1 });
    assert.deepEqual(resolveFenceposts('10%', '10%', 3), { surge: 1, unavailable: 0 });
  });

  it('gives Recreate neither surge nor unavailability, and caps unavailability at replicas', () => {
    assert.equal(maxSurge(deployment(3, 1, 1, 'Recreate')), 0);
    assert.equal(maxUnavailable(deployment(3, 1, 1, 'Recreate')), 0);
    assert.equal(maxUnavailable(deployment(2, 0, 5)), 2);
    assert.equal(maxUnavailable(deployment(0, 0, 5)), 0);
  });
});

describe('newReplicaSetReplicas', () => {
  it('grows the new ReplicaSet up to replicas + maxSurge across all ReplicaSets', () => {
    const d = deployment(10, 3, 2);
    const newRS = rs(0);
    assert.equal(newReplicaSetReplicas(d, [rs(10), newRS], newRS), 3);
    const grown = rs(3);
    assert.equal(newReplicaSetReplicas(d, [rs(8), grown], grown), 5);
    assert.equal(newReplicaSetReplicas(d, [rs(10), grown], grown), 3, 'no room: stays');
    const almost = rs(9);
    assert.equal(newReplicaSetReplicas(d, [rs(0), almost], almost), 10, 'never past replicas');
  });

  it('is simply replicas for Recreate', () => {
    assert.equal(newReplicaSetReplicas(deployment(4, 0, 0, 'Recreate'), [rs(4)], undefined), 4);
  });
});

describe('planOldReplicaSetScaleDown', () => {
  const old = (name: string, replicas: number, available: number, created: number) => ({ name, replicas, available, created });

  it('scales old ReplicaSets down while replicas - maxUnavailable stay available', () => {
    // 10 desired, maxUnavailable 2: the new ReplicaSet has 3 pods, none available yet.
    const plan = planOldReplicaSetScaleDown({ desired: 10, maxUnavailable: 2, newRS: { replicas: 3, available: 0 }, old: [old('v1', 10, 10, 1)] });
    assert.deepEqual([...plan], [['v1', 8]]);
  });

  it('holds when the new ReplicaSet\'s unavailable pods use up the budget', () => {
    const plan = planOldReplicaSetScaleDown({ desired: 10, maxUnavailable: 2, newRS: { replicas: 5, available: 0 }, old: [old('v1', 8, 8, 1)] });
    assert.equal(plan.size, 0);
  });

  it('removes unavailable old pods first, oldest ReplicaSet first, then available ones', () => {
    const plan = planOldReplicaSetScaleDown({
      desired: 6,
      maxUnavailable: 1,
      newRS: { replicas: 3, available: 3 },
      old: [old('v2', 2, 0, 2), old('v1', 3, 3, 1)],
    });
    // All pods 8, min available 5, new unavailable 0 → up to 3 may go: v2's two unavailable, then one of v1's.
    assert.deepEqual([...plan].sort(), [['v1', 2], ['v2', 0]]);
  });

  it('does nothing when no old ReplicaSet has pods', () => {
    assert.equal(planOldReplicaSetScaleDown({ desired: 3, maxUnavailable: 1, newRS: { replicas: 3, available: 0 }, old: [old('v1', 0, 0, 1)] }).size, 0);
  });
});
