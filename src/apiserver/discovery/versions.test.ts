import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { compareKubeVersions } from './versions.ts';

describe('compareKubeVersions', () => {
  it('orders GA before beta before alpha, higher first, others last alphabetically', () => {
    const sorted = ['v1alpha1', 'foo', 'v1beta1', 'v2', 'v1', 'v11alpha2', 'v10beta3', 'bar', 'v10'].sort(compareKubeVersions);
    assert.deepEqual(sorted, ['v10', 'v2', 'v1', 'v10beta3', 'v1beta1', 'v11alpha2', 'v1alpha1', 'bar', 'foo']);
  });
});
