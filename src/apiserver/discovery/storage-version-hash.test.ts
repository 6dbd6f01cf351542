import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { storageVersionHash, storageVersionHashOf } from './storage-version-hash.ts';

describe('storageVersionHash', () => {
  it('is what kube-apiserver 1.32 publishes for its built-in resources', () => {
    // Values read from a kube-apiserver's /api/v1 and /apis/apps/v1.
    assert.equal(storageVersionHash('', 'v1', 'Pod'), 'xPOwRZ+Yhw8=');
    assert.equal(storageVersionHash('', 'v1', 'ConfigMap'), 'qFsyl6wFWjQ=');
    assert.equal(storageVersionHash('', 'v1', 'Namespace'), 'Q3oi5N2YM8M=');
    assert.equal(storageVersionHash('apps', 'v1', 'Deployment'), '8aSe+NMegvE=');
  });

  it('hashes the storage version, so events.k8s.io Events share core Events\' hash; a create-only API has none', () => {
    assert.equal(storageVersionHashOf({ storageVersion: 'v1', kind: 'Event' }), 'r2yiGXH7wu8=');
    assert.equal(storageVersionHashOf({ storageVersion: 'apps/v1', kind: 'Deployment' }), '8aSe+NMegvE=');
    assert.equal(storageVersionHashOf({ storageVersion: 'authorization.k8s.io/v1', kind: 'SubjectAccessReview', verbs: ['create'] }), undefined);
  });
});
