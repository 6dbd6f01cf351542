import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { importImage, storeFor } from './images.ts';
import { listReleases, loadReleaseImage, newRelease, parseImageArgs, releaseInfo } from './release.ts';
import { launcherPath } from './components.ts';

const root = mkdtempSync(join(tmpdir(), 'shipyard-release-cli-'));
after(() => rmSync(root, { recursive: true, force: true }));

describe('parseImageArgs', () => {
  const cases: { args: string[]; want?: Record<string, string>; error?: RegExp }[] = [
    { args: ['config-operator=example.com/me/co:dev'], want: { 'config-operator': 'example.com/me/co:dev' } },
    { args: ['config-operator=example.com/me/co'], want: { 'config-operator': 'example.com/me/co:latest' } },
    { args: ['config-operator'], error: /expected COMPONENT=IMAGE/ },
    { args: ['=example.com/a:1'], error: /expected COMPONENT=IMAGE/ },
    { args: ['a=example.com/a:1', 'a=example.com/b:1'], error: /a is given twice/ },
    { args: ['a=Not A Ref'], error: /image reference "Not A Ref" is not valid/ },
  ];
  for (const c of cases) {
    it(c.args.join(' '), () => {
      if (c.error) assert.throws(() => parseImageArgs(c.args), c.error);
      else assert.deepEqual(parseImageArgs(c.args), c.want);
    });
  }
});

describe('shipyard release new on a data directory', () => {
  const dataDir = mkdtempSync(join(root, 'd-'));
  const program = join(root, 'cvo.mjs');
  writeFileSync(program, 'process.exit(0)\n');

  it('refuses an image that is not in the store, and a built-in reference as the result', () => {
    assert.throws(() => newRelease({ dataDir, from: '0.1.0', images: ['config-operator=example.com/me/co:dev'], toImage: 'example.com/me/release:dev' }), /image example.com\/me\/co:dev is not in the local image store of .*; import it first: shipyard image import example.com\/me\/co:dev --entrypoint FILE/);
    importImage(dataDir, 'example.com/me/co:dev', launcherPath('config-operator'));
    assert.throws(() => newRelease({ dataDir, from: '0.1.0', images: ['config-operator=example.com/me/co:dev'], toImage: 'shipyard.local/release:0.1.0' }), /is a built-in image/);
    assert.throws(() => newRelease({ dataDir, from: 'example.com/nothing:1', images: ['config-operator=example.com/me/co:dev'], toImage: 'example.com/me/release:dev' }), /release image example.com\/nothing:1 is not in the local image store/);
    assert.throws(() => newRelease({ dataDir, from: 'example.com/me/co:dev', images: ['config-operator=example.com/me/co:dev'], toImage: 'example.com/me/release:dev' }), /example.com\/me\/co:dev is not a release image: it carries no \/release-manifests/);
  });

  it('builds Shipyard\'s release if need be, derives the new one and registers its image with the CVO\'s program', () => {
    const out = newRelease({ dataDir, from: '0.1.0', images: ['config-operator=example.com/me/co:dev'], toImage: 'example.com/me/release:dev' });
    assert.match(out, /^Created release example.com\/me\/release:dev \(version 0.1.0\) from shipyard.local\/release:0.1.0:\n  config-operator=example.com\/me\/co:dev\n/);
    const record = storeFor(dataDir).resolve('example.com/me/release:dev')!;
    assert.equal(record.entrypoint, launcherPath('cluster-version-operator'));
    const payload = loadReleaseImage(dataDir, 'example.com/me/release:dev');
    assert.deepEqual(payload.release, { version: '0.1.0', image: 'example.com/me/release:dev' });
    assert.equal(payload.images['config-operator'], 'example.com/me/co:dev');
    const deployment = payload.manifests.find((m) => m.kind === 'Deployment' && m.name === 'openshift-config-operator')!.object as { spec: { template: { spec: { containers: { image: string }[] } } } };
    assert.equal(deployment.spec.template.spec.containers[0]!.image, 'example.com/me/co:dev');
    assert.match(listReleases(dataDir), /example.com\/me\/release:dev\s+0.1.0\s+shipyard.local\/release:0.1.0\s+/);
    assert.match(releaseInfo(dataDir, 'example.com/me/release:dev'), /config-operator\s+example.com\/me\/co:dev\s+\(replaced\)/);
  });

  it('a release derived from a derived one, with the CVO replaced, runs the new CVO', () => {
    importImage(dataDir, 'example.com/me/cvo:dev', program);
    newRelease({ dataDir, from: 'example.com/me/release:dev', images: ['cluster-version-operator=example.com/me/cvo:dev'], toImage: 'example.com/me/release:cvo', name: '0.1.0-cvo.1' });
    assert.equal(storeFor(dataDir).resolve('example.com/me/release:cvo')!.entrypoint, program);
    const payload = loadReleaseImage(dataDir, 'example.com/me/release:cvo');
    assert.equal(payload.release.version, '0.1.0-cvo.1');
    assert.equal(payload.images['config-operator'], 'example.com/me/co:dev', 'the first derivation is kept');
    assert.match(releaseInfo(dataDir, 'example.com/me/release:cvo'), /From:\s+example.com\/me\/release:dev/);
  });
});
