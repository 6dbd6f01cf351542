import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { defaultKubeletConfig, readKubeletConfig } from './kubelet-config.ts';
import { scanStaticPods } from './static-pods.ts';
import { PodIpAllocator } from './pod-ip.ts';

describe('kubelet configuration, static pods and pod IPs', () => {
  const dir = mkdtempSync(join(tmpdir(), 'kubelet-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('reads maxPods and reservations, and names the file and field of a bad value', () => {
    const f = join(dir, 'kubelet.conf');
    writeFileSync(f, 'apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\nmaxPods: 42\nsystemReserved: {cpu: 500m, memory: 1Gi}\n');
    const c = readKubeletConfig(f);
    assert.equal(c.maxPods, 42);
    assert.equal(c.reservedCpuMilli, 500);
    assert.equal(c.reservedMemory, 1024 ** 3);
    writeFileSync(f, 'kind: KubeletConfiguration\nmaxPods: lots\n');
    assert.throws(() => readKubeletConfig(f), new RegExp(`${f.replace(/[/.]/g, '\\$&')}: maxPods: must be a positive integer`));
    assert.deepEqual(readKubeletConfig(join(dir, 'none.conf')), defaultKubeletConfig);
  });

  it('turns manifests into static pods with stable uids, and reports bad ones by file and field', () => {
    const m = join(dir, 'manifests');
    rmSync(m, { recursive: true, force: true });
    mkdirSync(m, { recursive: true });
    writeFileSync(join(m, 'good.yaml'), 'apiVersion: v1\nkind: Pod\nmetadata: {name: etcd, namespace: kube-system}\nspec: {containers: [{name: etcd, image: e:1}]}\n');
    writeFileSync(join(m, 'bad.yaml'), 'apiVersion: v1\nkind: Pod\nmetadata: {}\nspec: {containers: [{name: a, image: b}]}\n');
    const first = scanStaticPods(m, 'master-0');
    const again = scanStaticPods(m, 'master-0');
    assert.equal(first.pods.length, 1);
    assert.equal(first.pods[0]!.pod.metadata!.name, 'etcd-master-0');
    assert.equal(first.pods[0]!.pod.spec!.nodeName, 'master-0');
    assert.equal(first.pods[0]!.pod.metadata!.uid, again.pods[0]!.pod.metadata!.uid);
    assert.notEqual(scanStaticPods(m, 'master-1').pods[0]!.pod.metadata!.uid, first.pods[0]!.pod.metadata!.uid);
    assert.match(first.errors[0]!, /bad\.yaml: metadata\.name: required/);
  });

  it('gives each pod one address of the podCIDR, keeps it across restarts and reuses freed ones', () => {
    const nodeDir = join(dir, 'node');
    const a = new PodIpAllocator(nodeDir);
    const ip1 = a.allocate('u1', '127.128.5.0/24');
    const ip2 = a.allocate('u2', '127.128.5.0/24');
    assert.equal(ip1, '127.128.5.2');
    assert.equal(ip2, '127.128.5.3');
    assert.equal(new PodIpAllocator(nodeDir).allocate('u1', '127.128.5.0/24'), ip1);
    a.release('u1');
    assert.equal(a.allocate('u3', '127.128.5.0/24'), ip1);
  });
});

