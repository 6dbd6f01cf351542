import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ApiError } from '../../api/status.ts';
import { replicasOf, scaleOf } from './scale.ts';

describe('scale subresource', () => {
  it('takes a Scale without spec.replicas as 0, as Go decodes the zero a client omitted', () => {
    assert.equal(replicasOf({ kind: 'Scale', metadata: { name: 'w' }, spec: {} }), 0);
    assert.equal(replicasOf({ kind: 'Scale', metadata: { name: 'w' } }), 0);
    assert.equal(replicasOf({ kind: 'Scale', spec: { replicas: 3 } }), 3);
  });

  it('refuses negative and fractional replicas, naming spec.replicas', () => {
    for (const replicas of [-1, 1.5, '2']) {
      assert.throws(
        () => replicasOf({ kind: 'Scale', metadata: { name: 'w' }, spec: { replicas } }),
        (err: unknown) => err instanceof ApiError && err.code === 422 && /spec\.replicas: Invalid value: .*: must be greater than or equal to 0/.test(err.status.message ?? ''),
        String(replicas),
      );
    }
  });

  it('reads a custom resource\'s counts and selector through its scale paths', () => {
    const set = { metadata: { name: 'ms', namespace: 'ns', uid: 'u', resourceVersion: '7' }, spec: { replicas: 3 }, status: { replicas: 1, labelSelector: 'a=b' } };
    const scale = scaleOf(set, { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas', labelSelectorPath: '.status.labelSelector' }, false);
    assert.deepEqual([scale.spec, scale.status, scale.metadata.resourceVersion], [{ replicas: 3 }, { replicas: 1, selector: 'a=b' }, '7']);
  });
});
