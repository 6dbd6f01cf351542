/**
 * A kubelet against a real API server: it registers its Node, keeps its Lease fresh, and runs
 * a simulated pod bound to it, Running and Ready with an IP from the node's podCIDR.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { V1Lease } from '@kubernetes/client-node';
import { resources } from '../../src/runtime/resources.ts';
import { boundPod, condition, containerStatus, startNode, until, type NodeUnderTest } from './support.ts';

const NODE = 'worker-reg-0';
const NODE_IP = '127.1.40.7';
const CIDR = '127.130.40.0/24';

const ipToInt = (ip: string): number => ip.split('.').reduce((a, o) => a * 256 + Number(o), 0);

describe('kubelet: registration and a simulated pod', () => {
  let n: NodeUnderTest;

  before(async () => {
    n = await startNode({ nodeName: NODE, nodeIP: NODE_IP, podCIDR: CIDR });
  });

  after(async () => {
    await n?.stop();
  });

  it('registers a Node with its labels, address, capacity and Ready=True, and renews its Lease', async () => {
    const node = await until('the Node to be Ready', async () => {
      const got = await n.node();
      return got.status?.conditions?.find((c) => c.type === 'Ready')?.status === 'True' && got;
    });
    const labels = node.metadata?.labels ?? {};
    assert.equal(labels['node-role.kubernetes.io/worker'], '');
    assert.equal(labels['kubernetes.io/hostname'], NODE);
    assert.equal(labels['topology.kubernetes.io/zone'], 'zone-a');
    const internal = node.status?.addresses?.find((a) => a.type === 'InternalIP')?.address;
    assert.equal(internal, NODE_IP);
    assert.match(internal!, /^127\.1\.\d+\.\d+$/);
    assert.deepEqual({ cpu: node.status?.capacity?.cpu, memory: node.status?.capacity?.memory, pods: node.status?.capacity?.pods }, { cpu: '4', memory: '8Gi', pods: '250' });
    assert.equal(node.status?.allocatable?.cpu, '4000m');
    assert.equal(node.status?.allocatable?.pods, '250');
    assert.ok(node.status?.allocatable?.memory, 'allocatable memory is reported');
    assert.equal(node.status?.conditions?.find((c) => c.type === 'Ready')?.reason, 'KubeletReady');

    const lease = (): Promise<V1Lease | undefined> => n.client.get<V1Lease>(resources.leases, 'kube-node-lease', NODE).catch(() => undefined);
    const first = await until('the node Lease', lease);
    assert.equal(first.spec?.holderIdentity, NODE);
    assert.ok((first.spec?.leaseDurationSeconds ?? 0) > 0);
    assert.equal(first.metadata?.ownerReferences?.[0]?.uid, node.metadata?.uid, 'the Lease is owned by its Node');
    const t0 = Date.parse(String(first.spec?.renewTime));
    // Two renewals in a row, so a single stray write could not pass for a heartbeat.
    const second = await until('the Lease to be renewed', async () => {
      const l = await lease();
      return Date.parse(String(l?.spec?.renewTime)) > t0 && l;
    });
    const t1 = Date.parse(String(second.spec?.renewTime));
    await until('the Lease to be renewed again', async () => Date.parse(String((await lease())?.spec?.renewTime)) > t1);
  });

  it('runs a simulated pod: Running, Ready, with a pod IP from the podCIDR', async () => {
    await n.client.create(resources.pods, boundPod('sim', NODE, { containers: [{ name: 'pause', image: 'registry.k8s.io/pause:3.10' }] }));
    const pod = await until('the simulated pod to be Running and Ready', async () => {
      const p = await n.pod('sim');
      return p?.status?.phase === 'Running' && condition(p, 'Ready') === 'True' && p;
    });
    const ip = pod.status!.podIP!;
    const base = ipToInt('127.130.40.0');
    assert.ok(ipToInt(ip) > base && ipToInt(ip) < base + 255, `pod IP ${ip} is inside ${CIDR}`);
    assert.deepEqual(pod.status?.podIPs, [{ ip }]);
    assert.equal(pod.status?.hostIP, NODE_IP);
    const cs = containerStatus(pod, 'pause');
    assert.equal(cs?.ready, true);
    assert.equal(cs?.started, true);
    assert.ok(cs?.state?.running?.startedAt, 'the container reports when it started');
    assert.equal(cs?.restartCount, 0);
    assert.equal(condition(pod, 'ContainersReady'), 'True');
    assert.equal(condition(pod, 'PodScheduled'), 'True');

    // A second pod gets a different address from the same range.
    await n.client.create(resources.pods, boundPod('sim-2', NODE, { containers: [{ name: 'pause', image: 'registry.k8s.io/pause:3.10' }] }));
    const other = await until('the second pod IP', async () => (await n.pod('sim-2'))?.status?.podIP);
    assert.notEqual(other, ip);
    assert.ok(ipToInt(other) > base && ipToInt(other) < base + 255);

    for (const name of ['sim', 'sim-2']) await n.client.delete(resources.pods, 'default', name);
    await until('both pods to be gone after graceful deletion', async () => !(await n.pod('sim')) && !(await n.pod('sim-2')));
  });
});
