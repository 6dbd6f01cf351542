import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { storagePrefixOf } from './event-source.ts';

describe('storagePrefixOf', () => {
  it('names the group and resource of a stored key', () => {
    assert.equal(storagePrefixOf('/registry/apps/deployments/ns/web'), 'apps/deployments');
    assert.equal(storagePrefixOf('/registry/core/namespaces/default'), 'core/namespaces');
    assert.equal(storagePrefixOf('/registry/core/configmaps'), 'core/configmaps');
    assert.equal(storagePrefixOf('/registry/core/configmaps/'), 'core/configmaps');
  });

  it('reads a key with too few segments as splitting it would', () => {
    assert.equal(storagePrefixOf('/registry/core'), 'core/undefined');
    assert.equal(storagePrefixOf('/registry'), 'undefined/undefined');
  });
});
