import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { buildPayload, substitute } from './build.ts';

const root = mkdtempSync(join(tmpdir(), 'shipyard-build-'));

const profile = 'include.release.openshift.io/self-managed-high-availability: "true"';

function source(): string {
  const dir = mkdtempSync(join(root, 'src-'));
  mkdirSync(join(dir, 'manifests'));
  writeFileSync(
    join(dir, 'image-references'),
    `kind: ImageStream\napiVersion: image.openshift.io/v1\nmetadata:\n  name: 0.0.1-snapshot\nspec:\n  tags:\n  - name: cluster-version-operator\n    from:\n      kind: DockerImage\n      name: shipyard.local/cluster-version-operator:v0.1.0\n  - name: machine-api-operator\n    from:\n      kind: DockerImage\n      name: shipyard.local/machine-api-operator:v0.1.0\n`,
  );
  writeFileSync(
    join(dir, 'manifests', '0000_00_cluster-version-operator_03_deployment.yaml'),
    `apiVersion: apps/v1
kind: Deployment
metadata:
  name: cluster-version-operator
  namespace: openshift-cluster-version
  annotations:
    ${profile}
spec:
  template:
    spec:
      containers:
      - name: cluster-version-operator
        image: shipyard.local/cluster-version-operator:v0.1.0
        args: ["--release-image=shipyard.local/cluster-version-operator:v0.1.0-extra"]
        env:
        - name: RELEASE_VERSION
          value: "0.0.1-snapshot"
`,
  );
  writeFileSync(
    join(dir, 'manifests', '0000_30_machine-api-operator_10_clusteroperator.yaml'),
    `apiVersion: config.openshift.io/v1
kind: ClusterOperator
metadata:
  name: machine-api
  annotations:
    ${profile}
spec: {}
status:
  versions:
  - name: operator
    version: "0.0.1-snapshot"
`,
  );
  writeFileSync(join(dir, 'manifests', 'notes.txt'), 'not copied');
  return dir;
}

const images = {
  'cluster-version-operator': 'shipyard.local/cluster-version-operator@sha256:1111',
  'machine-api-operator': 'shipyard.local/machine-api-operator@sha256:2222',
};

describe('buildPayload', () => {
  after(() => rmSync(root, { recursive: true, force: true }));

  it('copies the manifests with images and version substituted, and writes release-metadata and image-references', () => {
    const out = join(root, 'out', 'payload');
    const p = buildPayload({ source: source(), out, version: '0.2.0', previous: ['0.1.0'], images });
    assert.deepEqual(readdirSync(join(out, 'manifests')), ['0000_00_cluster-version-operator_03_deployment.yaml', '0000_30_machine-api-operator_10_clusteroperator.yaml']);
    const deploy = readFileSync(join(out, 'manifests', '0000_00_cluster-version-operator_03_deployment.yaml'), 'utf8');
    assert.match(deploy, /image: shipyard\.local\/cluster-version-operator@sha256:1111\n/);
    assert.match(deploy, /--release-image=shipyard\.local\/cluster-version-operator:v0\.1\.0-extra/, 'a longer reference is left alone');
    assert.match(deploy, /value: "0\.2\.0"/);
    assert.deepEqual(JSON.parse(readFileSync(join(out, 'release-metadata'), 'utf8')), { kind: 'cincinnati-metadata-v0', version: '0.2.0', previous: ['0.1.0'] });
    const refs = JSON.parse(readFileSync(join(out, 'image-references'), 'utf8'));
    assert.equal(refs.metadata.name, '0.2.0');
    assert.deepEqual(refs.spec.tags, [
      { name: 'cluster-version-operator', from: { kind: 'DockerImage', name: images['cluster-version-operator'] } },
      { name: 'machine-api-operator', from: { kind: 'DockerImage', name: images['machine-api-operator'] } },
    ]);
    assert.equal(p.release.version, '0.2.0');
    assert.deepEqual(p.images, images);
    const co = p.manifests.find((m) => m.kind === 'ClusterOperator')!;
    assert.deepEqual((co.object.status as { versions: unknown }).versions, [{ name: 'operator', version: '0.2.0' }]);
    assert.equal(p.manifests.length, 2);
  });

  it('replaces an existing payload, and leaves it alone when the build fails', () => {
    const out = join(root, 'replace');
    buildPayload({ source: source(), out, version: '0.2.0', images });
    buildPayload({ source: source(), out, version: '0.3.0', images });
    assert.equal(JSON.parse(readFileSync(join(out, 'release-metadata'), 'utf8')).version, '0.3.0');

    const broken = source();
    writeFileSync(join(broken, 'manifests', '0000_40_x_01.yaml'), 'kind: ConfigMap\n');
    assert.throws(() => buildPayload({ source: broken, out, version: '0.4.0', images }), /0000_40_x_01\.yaml document 0: missing apiVersion, metadata\.name/);
    assert.equal(JSON.parse(readFileSync(join(out, 'release-metadata'), 'utf8')).version, '0.3.0');
    assert.deepEqual(readdirSync(root).filter((n) => n.includes('.build-')), [], 'no staging directory left');
  });

  it('needs an image for every component the source names, and a semantic version', () => {
    assert.throws(() => buildPayload({ source: source(), out: join(root, 'x'), version: '0.2.0', images: { 'cluster-version-operator': 'a' } }), /no image given for machine-api-operator/);
    assert.throws(() => buildPayload({ source: source(), out: join(root, 'x'), version: 'v0.2', images }), /not a semantic version/);
    assert.equal(existsSync(join(root, 'x')), false);
  });
});

describe('substitute', () => {
  it('replaces whole references only', () => {
    const r = new Map([['a.io/x:v1', 'a.io/x@sha256:1'], ['0.0.1-snapshot', '1.2.3']]);
    assert.equal(substitute('image: a.io/x:v1\n', r), 'image: a.io/x@sha256:1\n');
    assert.equal(substitute('"a.io/x:v1"', r), '"a.io/x@sha256:1"');
    assert.equal(substitute('b.a.io/x:v1 a.io/x:v10 a.io/x:v1/y', r), 'b.a.io/x:v1 a.io/x:v10 a.io/x:v1/y');
    assert.equal(substitute('version: 0.0.1-snapshot, v0.0.1-snapshot-x', r), 'version: 1.2.3, v0.0.1-snapshot-x');
  });
});
