import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { exclusionReason, filterOverrides, loadPayloadDir, overrideFor, PayloadError, type Override } from './payload.ts';
import { versionHash } from './version-hash.ts';

const root = mkdtempSync(join(tmpdir(), 'shipyard-payload-'));

const profile = 'include.release.openshift.io/self-managed-high-availability';

function cm(name: string, notes: Record<string, string> = { [profile]: 'true' }, namespace = 'openshift-x'): string {
  return JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace, annotations: notes } });
}

let count = 0;
function payloadDir(files: Record<string, string>, opts: { version?: string; streamName?: string; metadata?: string } = {}): string {
  const dir = join(root, `p${count++}`);
  mkdirSync(join(dir, 'manifests'), { recursive: true });
  const version = opts.version ?? '0.2.0';
  writeFileSync(join(dir, 'release-metadata'), opts.metadata ?? JSON.stringify({ kind: 'cincinnati-metadata-v0', version, previous: ['0.1.0'] }));
  writeFileSync(
    join(dir, 'image-references'),
    JSON.stringify({ kind: 'ImageStream', apiVersion: 'image.openshift.io/v1', metadata: { name: opts.streamName ?? version }, spec: { tags: [{ name: 'cluster-version-operator', from: { kind: 'DockerImage', name: 'shipyard.local/cluster-version-operator@sha256:aa' } }] } }),
  );
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, 'manifests', name), text);
  return dir;
}

describe('loadPayloadDir', () => {
  after(() => rmSync(root, { recursive: true, force: true }));

  it('reads metadata, images and the included manifests in lexical file order', () => {
    const dir = payloadDir({
      '0000_50_b_01.yaml': `${cm('b1')}`,
      '0000_10_a_01.yaml': `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a1\n  namespace: openshift-x\n  annotations:\n    ${profile}: "true"\n---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a2\n  namespace: openshift-x\n`,
      '0000_10_a_02.json': cm('a3', { [profile]: 'true', 'exclude.release.openshift.io/internal-openshift-hosted': 'true' }),
      '0000_20_c_01.yml': cm('c1', { [profile]: 'false' }),
      '0000_20_c_02.yaml': cm('c2', { [profile]: 'true', 'release.openshift.io/feature-set': 'TechPreviewNoUpgrade' }),
      '0000_20_c_03.yaml': cm('c3', { [profile]: 'true', 'release.openshift.io/feature-set': 'Default,TechPreviewNoUpgrade' }),
      'README.md': 'not a manifest',
      '0000_90_z_01.txt': cm('ignored'),
    });
    const p = loadPayloadDir(dir, 'example.com/release:0.2.0');
    assert.deepEqual(p.release, { version: '0.2.0', image: 'example.com/release:0.2.0' });
    assert.deepEqual(p.metadata, { kind: 'cincinnati-metadata-v0', version: '0.2.0', previous: ['0.1.0'] });
    assert.deepEqual(p.images, { 'cluster-version-operator': 'shipyard.local/cluster-version-operator@sha256:aa' });
    assert.deepEqual(p.manifests.map((m) => `${m.file}#${m.index}:${m.name}`), ['0000_10_a_01.yaml#0:a1', '0000_10_a_02.json#0:a3', '0000_20_c_03.yaml#0:c3', '0000_50_b_01.yaml#0:b1']);
    assert.deepEqual(
      p.excluded.map((e) => [e.manifest.name, e.reason]),
      [
        ['a2', 'no annotations'],
        ['c1', `unrecognized value ${profile}=false`],
        ['c2', 'release.openshift.io/feature-set=TechPreviewNoUpgrade does not include Default'],
      ],
    );
    assert.equal(p.versionHash, versionHash(p.manifests));
    // Only a CVO told to exclude an id (a hosted control plane's) drops what is annotated with it.
    const hosted = loadPayloadDir(dir, 'x', { exclude: ['internal-openshift-hosted'] });
    assert.deepEqual(hosted.excluded.find((e) => e.manifest.name === 'a3')?.reason, 'exclude.release.openshift.io/internal-openshift-hosted=true');
    const tech = loadPayloadDir(dir, 'x', { featureSet: 'TechPreviewNoUpgrade' });
    assert.ok(tech.manifests.some((m) => m.name === 'c2'));
    assert.notEqual(tech.versionHash, p.versionHash, 'the hash covers the included manifests only');
  });

  it('refuses a payload with unreadable manifests, naming every file and document', () => {
    const dir = payloadDir({
      '0000_10_a_01.yaml': `${cm('ok')}\n`,
      '0000_10_a_02.yaml': `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: fine}\n---\napiVersion: v1\nmetadata: {name: nokind}\n`,
      '0000_10_a_03.yaml': `key: [broken\n`,
    });
    assert.throws(
      () => loadPayloadDir(dir, 'x'),
      (err: unknown) => {
        assert.ok(err instanceof PayloadError);
        assert.equal(err.reason, 'UpdatePayloadIntegrity');
        assert.equal(err.problems.length, 2);
        assert.match(err.problems[0]!, /^manifests\/0000_10_a_02\.yaml document 1: missing kind$/);
        assert.match(err.problems[1]!, /^manifests\/0000_10_a_03\.yaml document 0: invalid YAML/);
        return true;
      },
    );
  });

  it('checks release-metadata and image-references', () => {
    const fails = (dir: string, pattern: RegExp) => assert.throws(() => loadPayloadDir(dir, 'x'), (err: unknown) => err instanceof PayloadError && err.problems.some((p) => pattern.test(p)));
    fails(payloadDir({}, { metadata: JSON.stringify({ kind: 'other', version: '0.2.0' }) }), /unrecognized kind "other"/);
    fails(payloadDir({}, { metadata: JSON.stringify({ kind: 'cincinnati-metadata-v0', version: '4.18' }) }), /"4\.18" is not a semantic version/);
    fails(payloadDir({}, { metadata: JSON.stringify({ kind: 'cincinnati-metadata-v0' }) }), /missing version/);
    fails(payloadDir({}, { metadata: '{' }), /release-metadata: not valid JSON/);
    fails(payloadDir({}, { streamName: '0.1.9' }), /ImageStream 0\.1\.9 does not match version 0\.2\.0/);
    const noManifests = payloadDir({});
    rmSync(join(noManifests, 'manifests'), { recursive: true });
    rmSync(join(noManifests, 'image-references'));
    fails(noManifests, /^image-references: missing$/);
    fails(noManifests, /^manifests\/: missing$/);
  });
});

describe('inclusion and overrides', () => {
  it('needs the profile annotation set to "true"', () => {
    assert.equal(exclusionReason({ annotations: { [profile]: 'true' } }), undefined);
    assert.equal(exclusionReason({ annotations: { 'include.release.openshift.io/single-node-developer': 'true' } }), `${profile} unset`);
    assert.equal(exclusionReason({ annotations: { 'include.release.openshift.io/single-node-developer': 'true' } }, { profile: 'single-node-developer' }), undefined);
    assert.equal(exclusionReason({ annotations: { [profile]: 'true', 'exclude.release.openshift.io/other': 'true' } }), undefined);
    assert.match(exclusionReason({ annotations: { [profile]: 'true', 'exclude.release.openshift.io/other': 'true' } }, { exclude: ['other'] })!, /other=true/);
  });

  const manifests = [
    { kind: 'Deployment', gvk: { group: 'apps', version: 'v1', kind: 'Deployment' }, namespace: 'openshift-x', name: 'op' },
    { kind: 'ClusterOperator', gvk: { group: 'config.openshift.io', version: 'v1', kind: 'ClusterOperator' }, name: 'x' },
    { kind: 'ConfigMap', gvk: { group: '', version: 'v1', kind: 'ConfigMap' }, namespace: 'openshift-x', name: 'op' },
  ];

  it('drops manifests with an unmanaged override; the namespace does not matter for cluster-scoped ones', () => {
    const overrides: Override[] = [
      { kind: 'Deployment', group: 'apps', namespace: 'openshift-x', name: 'op', unmanaged: true },
      { kind: 'ClusterOperator', group: 'config.openshift.io', namespace: 'anything', name: 'x', unmanaged: true },
      { kind: 'ConfigMap', group: '', namespace: 'elsewhere', name: 'op', unmanaged: true },
    ];
    assert.deepEqual(filterOverrides(manifests, overrides).map((m) => m.kind), ['ConfigMap']);
    assert.deepEqual(filterOverrides(manifests, undefined), manifests);
  });

  it('keeps manifests whose override is managed, or whose group differs', () => {
    const overrides: Override[] = [
      { kind: 'Deployment', group: 'apps', namespace: 'openshift-x', name: 'op', unmanaged: false },
      { kind: 'ClusterOperator', group: 'example.com', namespace: '', name: 'x', unmanaged: true },
    ];
    assert.equal(filterOverrides(manifests, overrides).length, 3);
    assert.equal(overrideFor(manifests[0]!, overrides)?.unmanaged, false);
  });

  it('reads a group written as an apiVersion as its group, and a version alone as the core group (the seed writes group: apps/v1)', () => {
    const overrides: Override[] = [
      { kind: 'Deployment', group: 'apps/v1', namespace: 'openshift-x', name: 'op', unmanaged: true },
      { kind: 'ConfigMap', group: 'v1', namespace: 'openshift-x', name: 'op', unmanaged: true },
      { kind: 'ClusterOperator', group: 'config.openshift.io/v1beta1', namespace: '', name: 'x', unmanaged: true },
    ];
    assert.deepEqual(filterOverrides(manifests, overrides), []);
    assert.equal(overrideFor(manifests[0]!, overrides), overrides[0]);
    // Another group's apiVersion still names another group.
    assert.deepEqual(filterOverrides(manifests, [{ kind: 'Deployment', group: 'extensions/v1beta1', namespace: 'openshift-x', name: 'op', unmanaged: true }]).length, 3);
  });
});
