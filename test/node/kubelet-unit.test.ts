/**
 * A kubelet against a real API server takes its node's labels and registration taints from the
 * kubelet unit in its root, as the template controller writes it (01-<role>-kubelet), not from
 * the host: labels at registration and again whenever it starts, taints at registration only;
 * taints the host says to leave off stay off; no unit, no role labels.
 */
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { kubeletUnit } from '../../src/operators/machine-config/render/kubelet-unit.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { startNode, until, type NodeUnderTest } from './support.ts';

const MASTER_ROLES = { 'node-role.kubernetes.io/master': '', 'node-role.kubernetes.io/control-plane': '', 'node.openshift.io/os_id': 'rhcos' };

function writeUnit(nodeDir: string, role: 'master' | 'worker'): void {
  const dir = join(nodeDir, 'root', 'etc', 'systemd', 'system');
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'kubelet.service'), kubeletUnit(role).contents!);
}

const rolesOf = (labels: Record<string, string> | undefined): Record<string, string> =>
  Object.fromEntries(Object.entries(labels ?? {}).filter(([k]) => k.startsWith('node-role.kubernetes.io/') || k.startsWith('node.openshift.io/')));

describe('kubelet: labels and taints from its systemd unit', () => {
  let ts: TestServer;
  const nodes: NodeUnderTest[] = [];

  before(async () => {
    ts = await startTestServer();
  });

  after(async () => {
    for (const n of nodes) await n.stop();
    await ts?.stop();
  });

  it('a master registers with the unit\'s roles and NoSchedule taint; restarted, it puts a removed label back and not a removed taint', async () => {
    const n = await startNode({ server: ts, nodeName: 'master-unit-0', nodeIP: '127.1.41.1', roles: [], prepare: (dir) => writeUnit(dir, 'master') });
    nodes.push(n);
    const registered = await until('the master Node', () => n.node().catch(() => undefined));
    assert.deepEqual(rolesOf(registered.metadata?.labels), MASTER_ROLES);
    assert.deepEqual(registered.spec?.taints, [{ key: 'node-role.kubernetes.io/master', effect: 'NoSchedule' }]);

    for (const args of [
      ['label', 'node', 'master-unit-0', 'node-role.kubernetes.io/control-plane-'],
      ['taint', 'node', 'master-unit-0', 'node-role.kubernetes.io/master:NoSchedule-'],
    ]) {
      const r = await ts.kubectl(args);
      assert.equal(r.code, 0, r.stderr);
    }
    // A drop-in the kubelet reads at its next start, as systemd would after a daemon-reload.
    const dropins = join(n.nodeDir, 'root', 'etc', 'systemd', 'system', 'kubelet.service.d');
    mkdirSync(dropins, { recursive: true });
    writeFileSync(join(dropins, '20-infra.conf'), `[Service]\nExecStart=\nExecStart=/usr/bin/kubelet --node-labels=node-role.kubernetes.io/master,node-role.kubernetes.io/control-plane --node-labels "node-role.kubernetes.io/infra,node.openshift.io/os_id=rhcos"\n`);
    await n.kubelet.stop();
    await n.kubelet.start();
    const relabelled = await until('the labels put back', async () => {
      const node = await n.node();
      return node.metadata?.labels?.['node-role.kubernetes.io/control-plane'] === '' && node.metadata?.labels?.['node-role.kubernetes.io/infra'] === '' && node;
    });
    assert.deepEqual(rolesOf(relabelled.metadata?.labels), { ...MASTER_ROLES, 'node-role.kubernetes.io/infra': '' });
    assert.deepEqual(relabelled.spec?.taints ?? [], [], 'a restart does not register again, so the taint stays removed');
  });

  it('a taint the host leaves off is not registered; a worker gets its role; no unit, no role', async () => {
    const schedulable = await startNode({ server: ts, nodeName: 'master-unit-1', nodeIP: '127.1.41.2', roles: [], omitRegisterTaints: ['node-role.kubernetes.io/master'], prepare: (dir) => writeUnit(dir, 'master') });
    nodes.push(schedulable);
    const worker = await startNode({ server: ts, nodeName: 'worker-unit-0', nodeIP: '127.1.41.3', roles: [], prepare: (dir) => writeUnit(dir, 'worker') });
    nodes.push(worker);
    const bare = await startNode({ server: ts, nodeName: 'bare-unit-0', nodeIP: '127.1.41.4', roles: [] });
    nodes.push(bare);
    const m = await until('the schedulable master', () => schedulable.node().catch(() => undefined));
    assert.deepEqual(rolesOf(m.metadata?.labels), MASTER_ROLES);
    assert.equal(m.spec?.taints, undefined);
    const w = await until('the worker', () => worker.node().catch(() => undefined));
    assert.deepEqual(rolesOf(w.metadata?.labels), { 'node-role.kubernetes.io/worker': '', 'node.openshift.io/os_id': 'rhcos' });
    assert.equal(w.spec?.taints, undefined);
    const b = await until('the node without a unit', () => bare.node().catch(() => undefined));
    assert.deepEqual(rolesOf(b.metadata?.labels), {});
    assert.equal(b.metadata?.labels?.['kubernetes.io/hostname'], 'bare-unit-0', 'the kubelet\'s own labels are there');
    const roles = await ts.kubectl(['get', 'nodes', '--no-headers']);
    assert.equal(roles.code, 0, roles.stderr);
    const roleColumn = new Map(roles.stdout.trim().split('\n').map((l) => l.split(/\s+/)).map((cols) => [cols[0], cols[2]]));
    assert.deepEqual([roleColumn.get('master-unit-1'), roleColumn.get('worker-unit-0'), roleColumn.get('bare-unit-0')], ['control-plane,master', 'worker', '<none>']);
  });
});
