import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { V1Node, V1Taint } from '@kubernetes/client-node';
import type { Machine } from '../../../api/machine/index.ts';
import {
  machineInternalIPs,
  machineOfNode,
  machineProviderIDs,
  nodeChange,
  nodeInternalIPs,
  nodeOfMachine,
  nodePatch,
  nodeProviderIDs,
  nodeRefCurrent,
  type LinkIndex,
} from './link.ts';

function node(name: string, o: { providerID?: string; ips?: string[]; labels?: Record<string, string>; annotations?: Record<string, string>; taints?: V1Taint[] } = {}): V1Node {
  return {
    metadata: { name, uid: `u-${name}`, resourceVersion: '7', labels: o.labels, annotations: o.annotations },
    spec: { ...(o.providerID ? { providerID: o.providerID } : {}), ...(o.taints ? { taints: o.taints } : {}) },
    status: { addresses: [{ type: 'Hostname', address: name }, ...(o.ips ?? []).map((address) => ({ type: 'InternalIP', address }))] },
  };
}

function machine(name: string, o: { providerID?: string; ips?: string[]; spec?: Partial<Machine['spec']>; nodeRef?: { kind?: string; name?: string; uid?: string } } = {}): Machine {
  return {
    metadata: { name, namespace: 'openshift-machine-api' },
    spec: { ...(o.providerID ? { providerID: o.providerID } : {}), ...o.spec },
    status: { addresses: (o.ips ?? []).map((address) => ({ type: 'InternalIP', address })), ...(o.nodeRef ? { nodeRef: o.nodeRef } : {}) },
  };
}

/** An in-memory index over the same index functions the controller gives its caches. */
function index<T>(items: T[], ids: (t: T) => string[], ips: (t: T) => string[]): LinkIndex<T> {
  return { byProviderID: (id) => items.filter((i) => ids(i).includes(id)), byInternalIP: (ip) => items.filter((i) => ips(i).includes(ip)) };
}
const machineIndex = (ms: Machine[]) => index(ms, machineProviderIDs, machineInternalIPs);
const nodeIndex = (ns: V1Node[]) => index(ns, nodeProviderIDs, nodeInternalIPs);

describe('matching a Node and its Machine', () => {
  it('by providerID first', () => {
    const byId = machine('by-id', { providerID: 'shipyard://local/a/i-1', ips: ['127.1.0.9'] });
    const byIp = machine('by-ip', { ips: ['127.1.0.5'] });
    const n = node('n', { providerID: 'shipyard://local/a/i-1', ips: ['127.1.0.5'] });
    assert.equal(machineOfNode(n, machineIndex([byId, byIp])).found, byId);
    assert.equal(nodeOfMachine(byId, nodeIndex([n])).found, n);
  });

  it('by the first InternalIP when no providerID matches', () => {
    const m = machine('m', { ips: ['127.1.0.6', '127.1.0.5'] });
    const n = node('n', { providerID: 'shipyard://local/a/i-unknown', ips: ['127.1.0.5', '127.1.0.6'] });
    assert.equal(machineOfNode(n, machineIndex([m])).found, m);
    // From the Machine's side its first InternalIP is looked up among the Nodes' InternalIPs.
    assert.equal(nodeOfMachine(m, nodeIndex([n])).found, n);
  });

  it('no match is nothing, more than one is an error', () => {
    const n = node('n', { providerID: 'p', ips: ['127.1.0.5'] });
    assert.deepEqual(machineOfNode(n, machineIndex([machine('x', { ips: ['127.1.0.8'] })])), {});
    const twice = machineOfNode(n, machineIndex([machine('a', { providerID: 'p' }), machine('b', { providerID: 'p' })]));
    assert.equal(twice.found, undefined);
    assert.match(twice.error ?? '', /expected 1 machine with providerID p, got 2/);
    const twiceByIp = machineOfNode(node('n2', { ips: ['127.1.0.5'] }), machineIndex([machine('a', { ips: ['127.1.0.5'] }), machine('b', { ips: ['127.1.0.5'] })]));
    assert.match(twiceByIp.error ?? '', /internal IP 127\.1\.0\.5, got 2/);
  });

  it('a nodeRef is current only when kind, name and uid all name the Node', () => {
    const n = node('n');
    assert.equal(nodeRefCurrent(machine('m', { nodeRef: { kind: 'Node', name: 'n', uid: 'u-n' } }), n), true);
    assert.equal(nodeRefCurrent(machine('m', { nodeRef: { kind: 'Node', name: 'n', uid: 'u-old' } }), n), false);
    assert.equal(nodeRefCurrent(machine('m'), n), false);
  });
});

describe('nodeChange', () => {
  const m = machine('worker-a-x', {
    spec: {
      metadata: { labels: { 'node-role.kubernetes.io/worker': '', tier: 'gold' }, annotations: { note: 'from-machine' } },
      taints: [
        { key: 'dedicated', value: 'gpu', effect: 'NoSchedule' },
        { key: 'dedicated', value: 'gpu', effect: 'NoExecute' },
      ],
    },
  });

  it('adds the machine annotation, the Machine\'s labels, annotations and taints, keeping everything the Node has', () => {
    const n = node('n', {
      labels: { keep: 'me', tier: 'silver' },
      annotations: { other: 'x' },
      taints: [{ key: 'dedicated', value: 'other', effect: 'NoSchedule' }, { key: 'node.kubernetes.io/not-ready', effect: 'NoExecute' }],
    });
    const change = nodeChange(n, m);
    assert.deepEqual(change, {
      labels: { 'node-role.kubernetes.io/worker': '', tier: 'gold' },
      annotations: { 'machine.openshift.io/machine': 'openshift-machine-api/worker-a-x', note: 'from-machine' },
      // dedicated:NoSchedule is there already (another value, same key and effect): left as it is.
      taints: [
        { key: 'dedicated', value: 'other', effect: 'NoSchedule' },
        { key: 'node.kubernetes.io/not-ready', effect: 'NoExecute' },
        { key: 'dedicated', value: 'gpu', effect: 'NoExecute' },
      ],
    });
    const patch = nodePatch(n, change!);
    assert.deepEqual(patch, {
      metadata: { labels: change!.labels, annotations: change!.annotations, resourceVersion: '7' },
      spec: { taints: change!.taints },
    });
  });

  it('is nothing once the Node carries it all', () => {
    const n = node('n', {
      labels: { 'node-role.kubernetes.io/worker': '', tier: 'gold', extra: 'y' },
      annotations: { 'machine.openshift.io/machine': 'openshift-machine-api/worker-a-x', note: 'from-machine' },
      taints: [{ key: 'dedicated', value: 'gpu', effect: 'NoExecute' }, { key: 'dedicated', value: 'x', effect: 'NoSchedule' }],
    });
    assert.equal(nodeChange(n, m), undefined);
  });

  it('without new taints the patch merges labels and annotations with no precondition', () => {
    const plain = machine('p', { spec: { metadata: { labels: { a: 'b' } } } });
    const n = node('n', { annotations: { 'machine.openshift.io/machine': 'openshift-machine-api/p' } });
    const change = nodeChange(n, plain);
    assert.deepEqual(change, { labels: { a: 'b' } });
    assert.deepEqual(nodePatch(n, change!), { metadata: { labels: { a: 'b' } } });
  });
});
