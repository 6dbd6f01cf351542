import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { V1Pod } from '@kubernetes/client-node';
import { SchedulerCache } from './cache.ts';
import { podInfo } from './pod-info.ts';
import { balancedAllocationScore, bestIndex, leastAllocatedScore, ownerSpreadScores } from './score.ts';

const pod = (name: string, cpu: string, memory: string, o: { node?: string; owner?: string } = {}): V1Pod => ({
  metadata: { namespace: 'ns', name, uid: name, ownerReferences: o.owner ? [{ apiVersion: 'v1', kind: 'ReplicaSet', name: 'rs', uid: o.owner, controller: true }] : undefined },
  spec: { nodeName: o.node, containers: [{ name: 'c', resources: { requests: { cpu, memory } } }] },
});

function node(...pods: V1Pod[]) {
  const cache = new SchedulerCache();
  cache.setNode({ metadata: { name: 'n' }, status: { allocatable: { cpu: '4', memory: '4Gi', pods: '10' } } });
  for (const p of pods) cache.updatePod({ ...p, spec: { ...p.spec!, nodeName: 'n' } });
  return cache.nodeInfo('n')!;
}

describe('scores', () => {
  it('least allocated: the free share after placing the pod, averaged over cpu and memory', () => {
    assert.equal(leastAllocatedScore(podInfo(pod('p', '1', '1Gi')), node()), 75);
    assert.equal(leastAllocatedScore(podInfo(pod('p', '1', '1Gi')), node(pod('a', '2', '2Gi'))), 25);
    assert.equal(leastAllocatedScore(podInfo(pod('p', '5', '1Gi')), node()), 37, 'an overcommitted resource scores 0');
  });

  it('balanced allocation: penalises using one resource much more than the other', () => {
    assert.equal(balancedAllocationScore(podInfo(pod('p', '2', '2Gi')), node()), 100);
    assert.equal(balancedAllocationScore(podInfo(pod('p', '4', '0')), node()), 50);
  });

  it('owner spreading: fewest replicas of the same controller scores highest', () => {
    const replica = (name: string) => pod(name, '100m', '1Mi', { owner: 'rs1' });
    const nodes = [node(replica('a'), replica('b')), node(), node(replica('c'))];
    assert.deepEqual(ownerSpreadScores(podInfo(replica('new')), nodes), [0, 100, 50]);
    assert.deepEqual(ownerSpreadScores(podInfo(pod('solo', '1', '1Mi')), nodes), [100, 100, 100], 'a pod without a controller is indifferent');
  });

  it('breaks ties towards the first node of the (rotated) scan', () => {
    assert.equal(bestIndex([5, 9, 9, 1]), 1);
  });
});
