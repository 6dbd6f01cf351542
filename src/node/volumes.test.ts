import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import type { V1Pod } from '@kubernetes/client-node';
import type { ApiClient } from '../runtime/client.ts';
import { materializeVolumes, rootfsFor } from './volumes.ts';

describe('materializeVolumes', () => {
  const dir = mkdtempSync(join(tmpdir(), 'shipyard-volumes-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('mounts a hostPath at a mountPath written with a trailing slash, as the kube-apiserver installer pods do', async () => {
    const nodeRoot = join(dir, 'root');
    mkdirSync(join(nodeRoot, 'etc/kubernetes'), { recursive: true });
    writeFileSync(join(nodeRoot, 'etc/kubernetes/kubelet.conf'), 'x');
    const pod: V1Pod = {
      metadata: { name: 'installer-1-m0', namespace: 'ns', uid: 'u' },
      spec: {
        automountServiceAccountToken: false,
        containers: [{ name: 'installer', image: 'i', volumeMounts: [{ name: 'kubelet-dir', mountPath: '/etc/kubernetes/' }] }],
        volumes: [{ name: 'kubelet-dir', hostPath: { path: '/etc/kubernetes/' } }],
      },
    };
    const podDir = join(dir, 'pod');
    const mounts = await materializeVolumes(pod, podDir, { client: undefined as unknown as ApiClient, nodeRoot, nodeName: 'm0', podIP: '127.128.0.2', hostIP: '127.1.0.1' });
    assert.equal(mounts.get('installer')?.[0]?.containerPath, '/etc/kubernetes/');
    assert.equal(realpathSync(join(rootfsFor(podDir, 'installer'), 'etc/kubernetes')), realpathSync(join(nodeRoot, 'etc/kubernetes')));
  });
});
