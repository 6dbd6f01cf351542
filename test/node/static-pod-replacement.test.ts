/**
 * A static pod replaced on a real kubelet, as the kube-apiserver operator's installer replaces
 * a revision (issue 17): the old pod stops, its grace period honoured, before the new one
 * starts; the mirror pod then shows the new pod, its labels (the `revision` an operator waits
 * for) included. The pods bind the same host port, as API server replicas do, and the old one
 * ignores SIGTERM, so it holds the port through its whole grace period: a replacement started
 * early would be seen running beside it, and would crash on the taken port.
 */
import assert from 'node:assert/strict';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { stringify } from 'yaml';
import { resources } from '../../src/runtime/resources.ts';
import { appContainer, condition, containerStatus, pidGone, pidIn, startNode, until, type NodeUnderTest } from './support.ts';

const NODE = 'master-replace-0';
const NODE_IP = '127.1.42.9';
const PORT = '16443';
const MIRROR = `api-ish-${NODE}`;

describe('kubelet: a changed static pod manifest replaces the pod, old stopped first', () => {
  let n: NodeUnderTest;
  let manifests: string;
  let previousPid: number;

  before(async () => {
    n = await startNode({ nodeName: NODE, nodeIP: NODE_IP, podCIDR: '127.130.44.0/24' });
    mkdirSync(n.scratch, { recursive: true });
    manifests = join(n.nodeDir, 'root', 'etc', 'kubernetes', 'manifests');
    mkdirSync(manifests, { recursive: true });
  });

  after(async () => {
    await n?.stop();
    assert.deepEqual([...(n?.liveGroups ?? [])], [], 'no container process outlives the node');
  });

  const pidFile = (revision: number) => join(n.scratch, `revision-${revision}.pid`);

  /** The pod of one revision: binds NODE_IP:PORT, holds it through a 2 s grace period ignoring SIGTERM. */
  const manifest = (revision: number) =>
    stringify({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'api-ish', namespace: 'kube-system', labels: { app: 'api-ish', revision: String(revision) } },
      spec: {
        hostNetwork: true,
        terminationGracePeriodSeconds: 2,
        containers: [
          appContainer('app', ['serve', '--ignore-term'], {
            env: [
              { name: 'PORT', value: PORT },
              { name: 'PID_FILE', value: pidFile(revision) },
            ],
          }),
        ],
      },
    });

  /**
   * Waits for revision `revision`'s process and checks that the previous one had exited by the
   * time it started, then for the mirror to show the new pod running, never restarted.
   */
  async function replacedBy(revision: number): Promise<void> {
    const pid = await until(`revision ${revision}'s process to start`, () => pidIn(pidFile(revision)));
    assert.equal(pidGone(previousPid), true, `revision ${revision} started while the previous pod's process still ran`);
    const m = await until(`the mirror pod at revision ${revision}, Running and Ready`, async () => {
      const p = await n.pod(MIRROR, 'kube-system');
      return p?.metadata?.labels?.revision === String(revision) && p.status?.phase === 'Running' && condition(p, 'Ready') === 'True' && containerStatus(p, 'app')?.started === true && p;
    });
    assert.equal(containerStatus(m, 'app')?.restartCount, 0, 'the new pod never crashed on a port still held');
    assert.equal(pidGone(pid), false);
    previousPid = pid;
  }

  it('runs revision 1', async () => {
    writeFileSync(join(manifests, 'api-ish-pod.yaml'), manifest(1));
    previousPid = await until('revision 1 to start', () => pidIn(pidFile(1)));
    await until('the mirror pod at revision 1, Ready', async () => {
      const p = await n.pod(MIRROR, 'kube-system');
      return p?.metadata?.labels?.revision === '1' && condition(p, 'Ready') === 'True';
    });
  });

  it('a manifest rewritten in place: the old pod stops (grace honoured), then the new one starts and is mirrored', async () => {
    writeFileSync(join(manifests, 'api-ish-pod.yaml'), manifest(2));
    await replacedBy(2);
    const killing = (await n.events(MIRROR, 'kube-system')).filter((e) => e.reason === 'Killing');
    assert.ok(killing.length >= 1, 'the old container was stopped with a Killing event');
  });

  it('a manifest deleted, then written again (as the installer does): one replacement', async () => {
    rmSync(join(manifests, 'api-ish-pod.yaml'));
    writeFileSync(join(manifests, 'api-ish-pod.yaml'), manifest(3));
    await replacedBy(3);
  });

  it('the deletion seen on its own before the new manifest arrives: still stop, then start', async () => {
    rmSync(join(manifests, 'api-ish-pod.yaml'));
    await until('the old pod to be stopped and its mirror gone', async () => pidGone(previousPid) && !(await n.pod(MIRROR, 'kube-system')));
    writeFileSync(join(manifests, 'api-ish-pod.yaml'), manifest(4));
    await replacedBy(4);
  });

  it('a mirror pod whose static pod is gone (its deletion failed while the API was away) is deleted at a later scan', async () => {
    const orphan = `bootstrap-api-ish-${NODE}`;
    await n.client.create(resources.pods, {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: orphan, namespace: 'kube-system', annotations: { 'kubernetes.io/config.mirror': 'gone', 'kubernetes.io/config.source': 'file' } },
      spec: { nodeName: NODE, containers: [{ name: 'app', image: 'gone' }] },
    });
    await until('the orphaned mirror pod to be deleted', async () => !(await n.pod(orphan, 'kube-system')));
    assert.ok(await n.pod(MIRROR, 'kube-system'), 'the mirror of the running static pod stays');
  });

  it('a Ready condition someone else changed (the node lifecycle controller, while the node was NotReady) is written back', async () => {
    const m = (await n.pod(MIRROR, 'kube-system'))!;
    const conditions = m.status!.conditions!.map((c) => (c.type === 'Ready' ? { ...c, status: 'False', reason: 'NodeNotReady' } : c));
    await n.client.updateStatus(resources.pods, { ...m, status: { ...m.status, conditions } });
    await until('the mirror pod Ready again', async () => condition((await n.pod(MIRROR, 'kube-system'))!, 'Ready') === 'True');
  });

  it('the same pod moved to another file: a replacement too, never two at once', async () => {
    // Written before the old file goes: for a moment two files name the pod, and the second is refused.
    writeFileSync(join(manifests, 'z-api-ish-pod.yaml'), manifest(5));
    rmSync(join(manifests, 'api-ish-pod.yaml'));
    await replacedBy(5);
  });
});
