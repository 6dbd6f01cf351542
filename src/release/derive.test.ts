import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { buildPayload } from './build.ts';
import { annotationFromRelease, annotationOverride, deriveRelease, derivedImageStream, imageSubstitutions, releaseProvenance } from './derive.ts';

const root = mkdtempSync(join(tmpdir(), 'shipyard-derive-'));
after(() => rmSync(root, { recursive: true, force: true }));

const profile = 'include.release.openshift.io/self-managed-high-availability: "true"';

const sourceImages = {
  'cluster-version-operator': 'shipyard.local/cluster-version-operator:v0.1.0',
  'config-operator': 'shipyard.local/config-operator:v0.1.0',
  'machine-config-operator': 'shipyard.local/machine-config-operator:v0.1.0',
  'machine-config-daemon': 'shipyard.local/machine-config-daemon:v0.1.0',
};

describe('imageSubstitutions', () => {
  const cases: { name: string; source?: Record<string, string>; overrides: Record<string, string>; want?: [string, string][]; error?: RegExp }[] = [
    { name: 'one component', overrides: { 'config-operator': 'example.com/me/config-operator:dev' }, want: [['shipyard.local/config-operator:v0.1.0', 'example.com/me/config-operator:dev']] },
    {
      name: 'two components',
      overrides: { 'config-operator': 'example.com/a:1', 'machine-config-daemon': 'example.com/b:2' },
      want: [
        ['shipyard.local/config-operator:v0.1.0', 'example.com/a:1'],
        ['shipyard.local/machine-config-daemon:v0.1.0', 'example.com/b:2'],
      ],
    },
    { name: 'the same image again changes nothing', overrides: { 'config-operator': 'shipyard.local/config-operator:v0.1.0' }, want: [] },
    { name: 'an unknown component lists the known ones', overrides: { 'kube-apiserver-operator': 'example.com/a:1' }, error: /no component kube-apiserver-operator; its components are: cluster-version-operator, config-operator, machine-config-daemon, machine-config-operator$/ },
    {
      name: 'a shared image replaced for one only',
      source: { a: 'example.com/shared:1', b: 'example.com/shared:1' },
      overrides: { a: 'example.com/new:1' },
      error: /a shares its image example.com\/shared:1 with b in the release; give the same image for a and b/,
    },
    { name: 'a near name is suggested', source: { ...sourceImages, 'cluster-kube-apiserver-operator': 'shipyard.local/cluster-kube-apiserver-operator:v0.1.0' }, overrides: { 'kube-apiserver-operator': 'example.com/a:1' }, error: /no component kube-apiserver-operator \(did you mean cluster-kube-apiserver-operator\?\)/ },
    { name: 'a near name is suggested (prefix)', overrides: { config: 'example.com/a:1' }, error: /no component config \(did you mean config-operator\?\); its components are: / },
    { name: 'a shared image replaced for both alike', source: { a: 'example.com/shared:1', b: 'example.com/shared:1' }, overrides: { a: 'example.com/new:1', b: 'example.com/new:1' }, want: [['example.com/shared:1', 'example.com/new:1']] },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const run = () => imageSubstitutions(c.source ?? sourceImages, c.overrides);
      if (c.error) assert.throws(run, c.error);
      else assert.deepEqual([...run()].sort(), c.want);
    });
  }
});

describe('derivedImageStream', () => {
  it('renames it after the version, records the source and marks the replaced tags', () => {
    const text = JSON.stringify({
      kind: 'ImageStream',
      apiVersion: 'image.openshift.io/v1',
      metadata: { name: '0.1.0', annotations: { keep: 'me' } },
      spec: { tags: [{ name: 'a', annotations: { 'io.openshift.build.commit.id': 'abc' }, from: { kind: 'DockerImage', name: 'x/a:1' } }, { name: 'b', from: { kind: 'DockerImage', name: 'x/b:1' } }] },
    });
    const out = derivedImageStream(text, { version: '0.2.0', fromRelease: 'shipyard.local/release:0.1.0', images: { a: 'y/a:2' } });
    assert.deepEqual(out.metadata, { name: '0.2.0', annotations: { keep: 'me', [annotationFromRelease]: 'shipyard.local/release:0.1.0' } });
    assert.deepEqual(out.spec?.tags, [
      { name: 'a', annotations: { [annotationOverride]: 'true' }, from: { kind: 'DockerImage', name: 'y/a:2' } },
      { name: 'b', from: { kind: 'DockerImage', name: 'x/b:1' } },
    ]);
  });
});

/** A built payload as `shipyard up` makes one: a Deployment, an images ConfigMap and a ClusterOperator. */
function builtPayload(): string {
  const src = mkdtempSync(join(root, 'src-'));
  mkdirSync(join(src, 'manifests'));
  writeFileSync(
    join(src, 'image-references'),
    JSON.stringify({ kind: 'ImageStream', apiVersion: 'image.openshift.io/v1', metadata: { name: '0.0.1-snapshot' }, spec: { tags: Object.entries(sourceImages).map(([name, image]) => ({ name, from: { kind: 'DockerImage', name: image } })) } }),
  );
  writeFileSync(
    join(src, 'manifests', '0000_50_config-operator_09_deployment.yaml'),
    `apiVersion: apps/v1
kind: Deployment
metadata:
  name: openshift-config-operator
  namespace: openshift-config-operator
  annotations:
    ${profile}
spec:
  template:
    spec:
      containers:
      - name: openshift-config-operator
        image: shipyard.local/config-operator:v0.1.0
        env:
        - name: NOT_THE_IMAGE
          value: shipyard.local/config-operator:v0.1.0-debug
        - name: RELEASE_VERSION
          value: "0.0.1-snapshot"
`,
  );
  writeFileSync(
    join(src, 'manifests', '0000_80_machine-config_02_images.configmap.yaml'),
    `apiVersion: v1
kind: ConfigMap
metadata:
  name: machine-config-operator-images
  namespace: openshift-machine-config-operator
  annotations:
    ${profile}
data:
  images.json: >
    {"machineConfigOperator": "shipyard.local/machine-config-operator:v0.1.0", "machineConfigDaemon": "shipyard.local/machine-config-daemon:v0.1.0"}
`,
  );
  const out = join(root, `built-${Math.random().toString(36).slice(2)}`, 'release-manifests');
  buildPayload({ source: src, out, version: '0.1.0', previous: ['0.0.9'], images: sourceImages, releaseImage: 'shipyard.local/release:0.1.0' });
  return out;
}

describe('deriveRelease', () => {
  it('replaces the image wherever the payload names it, keeps the version, and says where it came from', () => {
    const source = builtPayload();
    const out = join(root, 'custom', 'release-manifests');
    const payload = deriveRelease({ source, out, fromRelease: 'shipyard.local/release:0.1.0', images: { 'config-operator': 'example.com/me/config-operator:dev', 'machine-config-daemon': 'example.com/me/mcd:dev' }, releaseImage: 'example.com/me/release:dev' });
    assert.deepEqual(payload.release, { version: '0.1.0', image: 'example.com/me/release:dev' });
    assert.deepEqual(payload.metadata.previous, ['0.0.9'], 'previous versions carried over, as oc does');
    assert.equal(payload.images['config-operator'], 'example.com/me/config-operator:dev');
    assert.equal(payload.images['machine-config-daemon'], 'example.com/me/mcd:dev');
    assert.equal(payload.images['machine-config-operator'], sourceImages['machine-config-operator']);

    const deployment = payload.manifests.find((m) => m.kind === 'Deployment')!.object as { spec: { template: { spec: { containers: { image: string; env: { value: string }[] }[] } } } };
    const container = deployment.spec.template.spec.containers[0]!;
    assert.equal(container.image, 'example.com/me/config-operator:dev');
    assert.deepEqual(container.env.map((e) => e.value), ['shipyard.local/config-operator:v0.1.0-debug', '0.1.0'], 'a longer reference is not a match');
    const images = JSON.parse((payload.manifests.find((m) => m.kind === 'ConfigMap')!.object as { data: Record<string, string> }).data['images.json']!);
    assert.deepEqual(images, { machineConfigOperator: 'shipyard.local/machine-config-operator:v0.1.0', machineConfigDaemon: 'example.com/me/mcd:dev' });

    assert.deepEqual(releaseProvenance(out), { fromRelease: 'shipyard.local/release:0.1.0', overridden: ['config-operator', 'machine-config-daemon'] });
    assert.deepEqual(releaseProvenance(source), { overridden: [] });
    assert.match(readFileSync(join(source, 'manifests', '0000_50_config-operator_09_deployment.yaml'), 'utf8'), /image: shipyard.local\/config-operator:v0.1.0\n/, 'the source is untouched');
  });

  it('a new name renames the version everywhere the payload states it', () => {
    const out = join(root, 'renamed', 'release-manifests');
    const payload = deriveRelease({ source: builtPayload(), out, fromRelease: 'shipyard.local/release:0.1.0', images: { 'config-operator': 'example.com/c:1' }, version: '0.1.0-custom.1', releaseImage: 'example.com/r:1' });
    assert.equal(payload.release.version, '0.1.0-custom.1');
    assert.match(readFileSync(join(out, 'manifests', '0000_50_config-operator_09_deployment.yaml'), 'utf8'), /value: "0.1.0-custom.1"/);
  });

  it('an unknown component or a bad name writes nothing', () => {
    const source = builtPayload();
    const out = join(root, 'refused', 'release-manifests');
    assert.throws(() => deriveRelease({ source, out, fromRelease: 'r', images: { nope: 'example.com/x:1' }, releaseImage: 'example.com/r:1' }), /no component nope; its components are: cluster-version-operator, config-operator/);
    assert.throws(() => deriveRelease({ source, out, fromRelease: 'r', images: { 'config-operator': 'example.com/x:1' }, version: 'v1', releaseImage: 'example.com/r:1' }), /--name "v1" is not a semantic version/);
    assert.throws(() => readFileSync(join(out, 'release-metadata')), /ENOENT/);
  });
});
