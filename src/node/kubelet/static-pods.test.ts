import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { stringify } from 'yaml';
import { scanStaticPods, staticPodFullName } from './static-pods.ts';

const pod = (name: string, image: string) => stringify({ apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'kube-system' }, spec: { containers: [{ name: 'c', image }] } });

describe('scanStaticPods', () => {
  it('knows a pod by its full name: a second manifest for the same pod is refused, naming both files', (t) => {
    const dir = mkdtempSync(join(tmpdir(), 'shipyard-static-'));
    t.after(() => rmSync(dir, { recursive: true, force: true }));
    writeFileSync(join(dir, 'a.yaml'), pod('api', 'x:1'));
    writeFileSync(join(dir, 'b.yaml'), pod('api', 'x:2'));
    writeFileSync(join(dir, 'c.yaml'), pod('other', 'x:1'));
    const { pods, errors } = scanStaticPods(dir, 'm0');
    assert.deepEqual(pods.map(staticPodFullName), ['kube-system/api-m0', 'kube-system/other-m0']);
    assert.equal(pods[0]!.pod.spec?.containers[0]?.image, 'x:1', 'the first file in name order wins');
    assert.deepEqual(errors, [`${join(dir, 'b.yaml')}: metadata.name: duplicate pod name "kube-system/api-m0", already defined by ${join(dir, 'a.yaml')}`]);
  });

  it('gives the same content the same uid and a change a new one, wherever the file is', (t) => {
    const dir = mkdtempSync(join(tmpdir(), 'shipyard-static-'));
    t.after(() => rmSync(dir, { recursive: true, force: true }));
    writeFileSync(join(dir, 'a.yaml'), pod('api', 'x:1'));
    const first = scanStaticPods(dir, 'm0').pods[0]!;
    rmSync(join(dir, 'a.yaml'));
    writeFileSync(join(dir, 'moved.yaml'), pod('api', 'x:1'));
    assert.equal(scanStaticPods(dir, 'm0').pods[0]!.pod.metadata?.uid, first.pod.metadata?.uid);
    writeFileSync(join(dir, 'moved.yaml'), pod('api', 'x:2'));
    assert.notEqual(scanStaticPods(dir, 'm0').pods[0]!.hash, first.hash);
  });
});
