import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { maxRevision, setNewReplicaSetAnnotations } from './annotations.ts';
import type { ReplicaSet } from './types.ts';

const rsWith = (revision?: string): ReplicaSet => ({ metadata: { annotations: revision === undefined ? {} : { 'deployment.kubernetes.io/revision': revision } } }) as ReplicaSet;

describe('revision annotations', () => {
  it('finds the highest revision, treating junk as 0', () => {
    assert.equal(maxRevision([rsWith('3'), rsWith('10'), rsWith('x'), rsWith()]), 10);
    assert.equal(maxRevision([]), 0);
  });

  it('stamps a ReplicaSet being created with the revision, the sizes and the Deployment\'s own annotations', () => {
    const a: Record<string, string> = {};
    const changed = setNewReplicaSetAnnotations(
      { 'kubernetes.io/change-cause': 'kubectl set image', 'kubectl.kubernetes.io/last-applied-configuration': '{}', 'deployment.kubernetes.io/revision': '7' },
      a,
      4,
      { exists: false, desired: 3, max: 4 },
    );
    assert.equal(changed, true);
    assert.deepEqual(a, {
      'kubernetes.io/change-cause': 'kubectl set image',
      'deployment.kubernetes.io/revision': '4',
      'deployment.kubernetes.io/desired-replicas': '3',
      'deployment.kubernetes.io/max-replicas': '4',
    });
  });

  it('raises an older revision brought back by a rollback and records the one it had', () => {
    const a: Record<string, string> = { 'deployment.kubernetes.io/revision': '2', 'deployment.kubernetes.io/revision-history': '1' };
    assert.equal(setNewReplicaSetAnnotations({}, a, 5, { exists: true, desired: 1, max: 2 }), true);
    assert.equal(a['deployment.kubernetes.io/revision'], '5');
    assert.equal(a['deployment.kubernetes.io/revision-history'], '1,2');
    assert.equal(setNewReplicaSetAnnotations({}, a, 5, { exists: true, desired: 1, max: 2 }), false, 'nothing to do the second time');
  });
});
