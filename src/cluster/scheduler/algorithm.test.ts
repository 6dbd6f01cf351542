import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { V1Node, V1Pod } from '@kubernetes/client-node';
import { numFeasibleNodesToFind, schedulePod } from './algorithm.ts';
import { SchedulerCache } from './cache.ts';
import { podInfo } from './pod-info.ts';

function node(name: string, o: { labels?: Record<string, string>; unschedulable?: boolean; cpu?: string } = {}): V1Node {
  return { metadata: { name, labels: { 'kubernetes.io/hostname': name, ...o.labels } }, spec: { unschedulable: o.unschedulable }, status: { allocatable: { cpu: o.cpu ?? '4', memory: '16Gi', pods: '110' } } };
}

function pod(name: string, o: { cpu?: string; node?: string; owner?: string; nodeSelector?: Record<string, string> } = {}): V1Pod {
  return {
    metadata: { namespace: 'ns', name, uid: name, ownerReferences: o.owner ? [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: o.owner, uid: o.owner, controller: true }] : undefined },
    spec: { nodeName: o.node, nodeSelector: o.nodeSelector, containers: [{ name: 'c', resources: { requests: { cpu: o.cpu ?? '100m', memory: '128Mi' } } }] },
  };
}

function cluster(nodes: V1Node[], pods: V1Pod[] = []): SchedulerCache {
  const cache = new SchedulerCache();
  for (const n of nodes) cache.setNode(n);
  for (const p of pods) cache.updatePod(p);
  return cache;
}

describe('scheduling one pod', () => {
  it('examines every node of a small cluster and a shrinking share of a large one', () => {
    assert.equal(numFeasibleNodesToFind(4), 4);
    assert.equal(numFeasibleNodesToFind(100), 100);
    assert.equal(numFeasibleNodesToFind(1000), 420);
    assert.equal(numFeasibleNodesToFind(5000), 500);
    assert.equal(numFeasibleNodesToFind(20_000), 1000, 'never below 5%');
    assert.equal(numFeasibleNodesToFind(1000, 30), 300);
    assert.equal(numFeasibleNodesToFind(1000, 1), 100, 'never below 100 nodes');
  });

  it('explains a pod that fits nowhere in the acceptance test\'s exact words', () => {
    const cache = cluster([node('n1', { unschedulable: true }), node('n2'), node('n3'), node('n4')]);
    const result = schedulePod(podInfo(pod('p', { nodeSelector: { disk: 'ssd' } })), cache, { start: 0 });
    assert.equal(result.kind, 'unschedulable');
    assert.ok(result.kind === 'unschedulable');
    // The cordoned node lacks the label too; the first filter to refuse it gives its reason.
    assert.ok(result.message.startsWith("0/4 nodes are available: 1 node(s) were unschedulable, 3 node(s) didn't match Pod's node affinity/selector."), result.message);
    assert.equal(result.processed, 4);
  });

  it('prefers the least loaded node', () => {
    const cache = cluster([node('busy'), node('idle'), node('half')], [pod('a', { node: 'busy', cpu: '3' }), pod('b', { node: 'half', cpu: '2' })]);
    const result = schedulePod(podInfo(pod('p')), cache, { start: 0 });
    assert.deepEqual(result.kind === 'fit' && result.node, 'idle');
  });

  it('spreads the replicas of one controller over equal nodes', () => {
    const cache = cluster([node('n1'), node('n2'), node('n3')]);
    // Make the nodes unequal in load but not in replicas: spreading must still win.
    cache.updatePod(pod('other', { node: 'n1', cpu: '100m' }));
    const placed: string[] = [];
    let start = 0;
    for (let i = 0; i < 3; i++) {
      const info = podInfo(pod(`web-${i}`, { owner: 'rs-web' }));
      const result = schedulePod(info, cache, { start });
      assert.equal(result.kind, 'fit');
      if (result.kind !== 'fit') return;
      start += result.processed;
      cache.assume(info, result.node);
      placed.push(result.node);
    }
    assert.deepEqual([...placed].sort(), ['n1', 'n2', 'n3']);
  });

  it('honours what the filters say together: resources, selector, cordon', () => {
    const nodes = [node('small', { cpu: '1', labels: { disk: 'ssd' } }), node('cordoned', { unschedulable: true, labels: { disk: 'ssd' } }), node('hdd'), node('big', { labels: { disk: 'ssd' } })];
    const result = schedulePod(podInfo(pod('p', { cpu: '2', nodeSelector: { disk: 'ssd' } })), cluster(nodes), { start: 0 });
    assert.deepEqual(result.kind === 'fit' && result.node, 'big');
  });

  it('stops scanning once it has enough feasible nodes, and resumes where it stopped', () => {
    const cache = cluster(Array.from({ length: 300 }, (_, i) => node(`n${i}`)));
    const first = schedulePod(podInfo(pod('a')), cache, { start: 0 });
    // 300 nodes: 50% - 300/125 = 48% of them, 144.
    assert.equal(first.processed, 144);
    const second = schedulePod(podInfo(pod('b')), cache, { start: first.processed });
    assert.equal(second.processed, 144);
    const index = second.kind === 'fit' ? Number(second.node.slice(1)) : -1;
    assert.ok(index >= 144 && index < 288, `the second scan covers the next 144 nodes, chose n${index}`);
  });

  it('says so when there are no nodes at all', () => {
    const result = schedulePod(podInfo(pod('p')), new SchedulerCache(), { start: 0 });
    assert.deepEqual(result.kind === 'unschedulable' && result.message, 'no nodes available to schedule pods');
  });
});

describe('a pod whose node affinity names its node (a DaemonSet pod)', () => {
  const pinned = (name: string, nodes: string[], o: { cpu?: string } = {}): V1Pod => {
    const p = pod(name, o);
    p.spec!.affinity = { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchFields: [{ key: 'metadata.name', operator: 'In', values: nodes }] }] } } };
    return p;
  };

  it('is tried on the named node only', () => {
    const cache = cluster(Array.from({ length: 500 }, (_, i) => node(`n${i}`)));
    const result = schedulePod(podInfo(pinned('p', ['n321'])), cache, { start: 7 });
    assert.deepEqual(result.kind === 'fit' && [result.node, result.processed], ['n321', 1]);
  });

  it('counts the other nodes as refused by NodeAffinity when it does not fit, as kube words it', () => {
    const cache = cluster([node('n1', { cpu: '1' }), node('n2'), node('n3')]);
    const result = schedulePod(podInfo(pinned('p', ['n1'], { cpu: '2' })), cache, { start: 0 });
    assert.ok(result.kind === 'unschedulable');
    assert.ok(result.message.startsWith("0/3 nodes are available: 1 Insufficient cpu, 2 node(s) didn't satisfy plugin(s) [NodeAffinity]."), result.message);
    const gone = schedulePod(podInfo(pinned('q', ['n9'])), cache, { start: 0 });
    assert.ok(gone.kind === 'unschedulable');
    assert.ok(gone.message.startsWith("0/3 nodes are available: 3 node(s) didn't satisfy plugin(s) [NodeAffinity]."), gone.message);
  });

  it('is tried everywhere when a term admits nodes by label too', () => {
    const p = pinned('p', ['n1']);
    p.spec!.affinity!.nodeAffinity!.requiredDuringSchedulingIgnoredDuringExecution!.nodeSelectorTerms.push({ matchExpressions: [{ key: 'kubernetes.io/hostname', operator: 'In', values: ['n2'] }] });
    const cache = cluster([node('n1', { cpu: '1' }), node('n2'), node('n3')]);
    cache.updatePod(pod('big', { node: 'n1', cpu: '1' }));
    const result = schedulePod(podInfo(p), cache, { start: 0 });
    assert.deepEqual(result.kind === 'fit' && result.node, 'n2');
  });
});
