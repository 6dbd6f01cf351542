/**
 * Static pods on a real kubelet: a manifest in `<node root>/etc/kubernetes/manifests` runs as
 * a process pod on the kubelet's own authority, and the API server only sees its mirror pod.
 * Deleting the mirror does not stop the static pod (the mirror comes back); removing the
 * manifest does.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { stringify } from 'yaml';
import { resources } from '../../src/runtime/resources.ts';
import { appContainer, condition, containerStatus, pidGone, pidIn, startNode, until, type NodeUnderTest } from './support.ts';

const NODE = 'master-static-0';
const MIRROR = `etcd-ish-${NODE}`;

describe('kubelet: static pods', () => {
  let n: NodeUnderTest;
  let manifest: string;
  let pidFile: string;

  before(async () => {
    n = await startNode({ nodeName: NODE, nodeIP: '127.1.42.7', podCIDR: '127.130.42.0/24' });
    mkdirSync(n.scratch, { recursive: true });
    manifest = join(n.nodeDir, 'root', 'etc', 'kubernetes', 'manifests', 'etcd-ish.yaml');
    pidFile = join(n.scratch, 'static.pid');
  });

  after(async () => {
    await n?.stop();
    assert.deepEqual([...(n?.liveGroups ?? [])], [], 'no container process outlives the node');
  });

  const mirror = () => n.pod(MIRROR, 'kube-system');

  it('runs a manifest from the manifests directory and mirrors it into the API as <name>-<node>', async () => {
    mkdirSync(join(manifest, '..'), { recursive: true });
    const pod = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'etcd-ish', namespace: 'kube-system', labels: { tier: 'control-plane' } },
      spec: { terminationGracePeriodSeconds: 1, containers: [appContainer('app', ['serve'], { env: [{ name: 'PID_FILE', value: pidFile }] })] },
    };
    writeFileSync(manifest, stringify(pod));
    const m = await until('the mirror pod Running and Ready', async () => {
      const p = await mirror();
      return p?.status?.phase === 'Running' && condition(p, 'Ready') === 'True' && p;
    });
    assert.ok(m.metadata?.annotations?.['kubernetes.io/config.mirror'], 'carries the mirror annotation');
    assert.equal(m.metadata?.annotations?.['kubernetes.io/config.source'], 'file');
    assert.equal(m.metadata?.labels?.tier, 'control-plane');
    assert.equal(m.spec?.nodeName, NODE);
    const owner = m.metadata?.ownerReferences?.[0];
    assert.equal(owner?.kind, 'Node');
    assert.equal(owner?.name, NODE);
    assert.match(m.status?.podIP ?? '', /^127\.130\.42\.\d+$/);
    assert.equal(containerStatus(m, 'app')?.started, true);
    const pid = await until('the static pod process to write its pid', () => pidIn(pidFile));
    assert.equal(pidGone(pid), false, 'the static pod is a real process');
  });

  it('recreates a deleted mirror pod without restarting the static pod', async () => {
    const before = await mirror();
    const pid = Number(readFileSync(pidFile, 'utf8'));
    const r = await n.ts.kubectl(['delete', 'pod', MIRROR, '-n', 'kube-system', '--timeout=20s']);
    assert.equal(r.code, 0, r.stderr);
    const again = await until('a new mirror pod', async () => {
      const p = await mirror();
      return p && p.metadata?.uid !== before?.metadata?.uid && !p.metadata?.deletionTimestamp && p.status?.phase === 'Running' && p;
    });
    assert.ok(again.metadata?.annotations?.['kubernetes.io/config.mirror']);
    assert.equal(containerStatus(again, 'app')?.restartCount, 0);
    assert.equal(Number(readFileSync(pidFile, 'utf8')), pid, 'the same process still runs');
    assert.equal(pidGone(pid), false);
  });

  it('stops the static pod and deletes its mirror when the manifest is removed', async () => {
    const pid = Number(readFileSync(pidFile, 'utf8'));
    rmSync(manifest);
    await until('the mirror pod to be gone', async () => !(await mirror()));
    await until('the static pod process to be gone', () => pidGone(pid));
    assert.equal(existsSync(manifest), false);
  });

  it('a mirror the API refuses (its namespace not created yet) holds back no other mirror, and follows once it can', async () => {
    const dir = join(manifest, '..');
    const staticPod = (name: string, namespace: string) => ({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name, namespace },
      spec: { terminationGracePeriodSeconds: 1, containers: [appContainer('app', ['serve'])] },
    });
    // Scanned in name order: the refused one first, as the bootstrap API server's manifest is.
    writeFileSync(join(dir, 'aaa-waits.yaml'), stringify(staticPod('waits', 'created-later')));
    writeFileSync(join(dir, 'bbb-other.yaml'), stringify(staticPod('other', 'kube-system')));
    try {
      await until('the other mirror pod', async () => (await n.pod(`other-${NODE}`, 'kube-system'))?.status?.phase === 'Running');
      assert.equal(await n.pod(`waits-${NODE}`, 'created-later'), undefined);
      await n.client.create(resources.namespaces, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'created-later' } });
      await until('the refused mirror pod, once its namespace exists', async () => (await n.pod(`waits-${NODE}`, 'created-later'))?.status?.phase === 'Running');
    } finally {
      rmSync(join(dir, 'aaa-waits.yaml'), { force: true });
      rmSync(join(dir, 'bbb-other.yaml'), { force: true });
    }
    await until('both static pods gone', async () => !(await n.pod(`other-${NODE}`, 'kube-system')) && !(await n.pod(`waits-${NODE}`, 'created-later')));
  });
});
