import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { overrideGroup, overrideGroupWarnings } from './cluster-version.ts';

describe('ClusterVersion override groups', () => {
  it('reads an apiVersion as its group and a version alone as the core group', () => {
    assert.equal(overrideGroup('apps/v1'), 'apps');
    assert.equal(overrideGroup('config.openshift.io/v1alpha1'), 'config.openshift.io');
    assert.equal(overrideGroup('v1'), '');
    assert.equal(overrideGroup('v2beta3'), '');
    for (const g of ['', 'apps', 'rbac.authorization.k8s.io', 'apps/stable', 'v1.example.com', '/v1']) assert.equal(overrideGroup(g), g);
  });

  it('warns, naming the field, only for the overrides read differently from how they are written', () => {
    const warnings = overrideGroupWarnings([
      { group: 'apps' },
      { group: 'apps/v1' },
      { group: 'v1' },
    ]);
    assert.deepEqual(warnings, [
      'spec.overrides[1].group: "apps/v1" names a group and a version; the group is "apps"',
      'spec.overrides[2].group: "v1" is a version; the group is "" (the core group)',
    ]);
    assert.deepEqual(overrideGroupWarnings(undefined), []);
  });
});
