import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { V1Pod, V1ReplicaSet } from '@kubernetes/client-node';
import { calculateStatus } from './status.ts';

const NOW = Date.parse('2024-06-01T12:00:00Z');
const rs = (extra: { minReadySeconds?: number; conditions?: unknown[] } = {}): V1ReplicaSet => ({
  metadata: { name: 'web', generation: 4 },
  spec: { replicas: 3, minReadySeconds: extra.minReadySeconds, selector: { matchLabels: { app: 'web' } }, template: { metadata: { labels: { app: 'web', tier: 'front' } } } },
  status: { replicas: 0, conditions: extra.conditions as V1ReplicaSet['status'] extends infer S ? (S extends { conditions?: infer C } ? C : never) : never },
});
const pod = (labels: Record<string, string>, readyAgoMs?: number): V1Pod => ({
  metadata: { labels },
  status: { conditions: readyAgoMs === undefined ? [] : [{ type: 'Ready', status: 'True', lastTransitionTime: new Date(NOW - readyAgoMs).toISOString() as unknown as Date }] },
});

describe('ReplicaSet status', () => {
  it('counts replicas, fully labelled, ready and available (minReadySeconds) pods', () => {
    const pods = [pod({ app: 'web', tier: 'front' }, 60_000), pod({ app: 'web', tier: 'front' }, 2_000), pod({ app: 'web' })];
    const s = calculateStatus(rs({ minReadySeconds: 10 }), pods, undefined, NOW);
    assert.deepEqual(s, { replicas: 3, fullyLabeledReplicas: 2, readyReplicas: 2, availableReplicas: 1, observedGeneration: 4 });
  });

  it('adds ReplicaFailure on a failed create and drops it after a clean pass', () => {
    const failed = calculateStatus(rs(), [], { creating: true, message: 'pods "web-x" is forbidden: exceeded quota' }, NOW);
    assert.deepEqual(failed.conditions, [{ type: 'ReplicaFailure', status: 'True', reason: 'FailedCreate', message: 'pods "web-x" is forbidden: exceeded quota', lastTransitionTime: '2024-06-01T12:00:00Z' }]);
    const again = calculateStatus(rs({ conditions: failed.conditions }), [], { creating: false, message: 'other' }, NOW + 5000);
    assert.deepEqual(again.conditions, failed.conditions, 'an existing failure condition is kept as it was');
    const healed = calculateStatus(rs({ conditions: failed.conditions }), [], undefined, NOW);
    assert.equal(healed.conditions, undefined);
  });
});
