import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { loadOrCreateSpec, type SpecRequest } from './cluster-spec.ts';

const root = mkdtempSync(join(tmpdir(), 'shipyard-cluster-spec-'));
after(() => rmSync(root, { recursive: true, force: true }));

const shape: SpecRequest = { masters: 1, workers: 0, mastersSchedulable: true, apiPort: 6443, cloudPort: 6080 };

describe('loadOrCreateSpec: the release image', () => {
  it('a new cluster records the release image it installs; a resume keeps it and names a different one as ignored', () => {
    const dir = mkdtempSync(join(root, 'c-'));
    const created = loadOrCreateSpec(dir, { ...shape, releaseImage: 'example.com/me/release:dev' });
    assert.equal(created.resumed, false);
    assert.equal(created.spec.releaseImage, 'example.com/me/release:dev');

    const same = loadOrCreateSpec(dir, { ...shape, releaseImage: 'example.com/me/release:dev' });
    assert.deepEqual({ resumed: same.resumed, ignored: same.ignored, image: same.spec.releaseImage }, { resumed: true, ignored: [], image: 'example.com/me/release:dev' });

    const other = loadOrCreateSpec(dir, { ...shape, releaseImage: 'example.com/me/release:other' });
    assert.equal(other.spec.releaseImage, 'example.com/me/release:dev');
    assert.equal(other.ignored.length, 1);
    assert.match(other.ignored[0]!, /^--release-image example\.com\/me\/release:other \(cluster was installed from example\.com\/me\/release:dev; update it with `kubectl patch clusterversion version`\)$/);

    assert.deepEqual(loadOrCreateSpec(dir, shape).ignored, [], 'no flag: nothing to ignore');
  });

  it('a cluster installed from the default release says so when a release image is given on resume', () => {
    const dir = mkdtempSync(join(root, 'c-'));
    assert.equal(loadOrCreateSpec(dir, shape).spec.releaseImage, undefined);
    assert.match(loadOrCreateSpec(dir, { ...shape, releaseImage: 'example.com/me/release:dev' }).ignored[0]!, /cluster was installed from Shipyard's default release/);
  });
});
