import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { V1Pod } from '@kubernetes/client-node';
import { SchedulerCache } from './cache.ts';
import { podInfo } from './pod-info.ts';

function pod(name: string, o: { node?: string; cpu?: string; phase?: string; owner?: string; uid?: string } = {}): V1Pod {
  return {
    metadata: { namespace: 'ns', name, uid: o.uid ?? name, ownerReferences: o.owner ? [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'rs', uid: o.owner, controller: true }] : undefined },
    spec: { nodeName: o.node, containers: [{ name: 'c', resources: { requests: { cpu: o.cpu ?? '100m' } } }] },
    status: o.phase ? { phase: o.phase } : undefined,
  };
}

function cacheWithNodes(...names: string[]): SchedulerCache {
  const cache = new SchedulerCache();
  for (const name of names) cache.setNode({ metadata: { name }, status: { allocatable: { cpu: '4', memory: '8Gi', pods: '110' } } });
  return cache;
}

const cpuOn = (cache: SchedulerCache, node: string): number => cache.nodeInfo(node)!.requested.milliCpu;

describe('scheduler cache', () => {
  it('keeps per-node totals as pods come, change and go', () => {
    const cache = cacheWithNodes('n1', 'n2');
    cache.updatePod(pod('a', { node: 'n1', cpu: '1' }));
    cache.updatePod(pod('b', { node: 'n1', cpu: '500m', owner: 'rs1' }));
    assert.equal(cpuOn(cache, 'n1'), 1500);
    assert.equal(cache.nodeInfo('n1')!.pods.size, 2);
    assert.equal(cache.nodeInfo('n1')!.ownerCount('rs1'), 1);
    cache.updatePod(pod('a', { node: 'n1', cpu: '2' }));
    assert.equal(cpuOn(cache, 'n1'), 2500, 'an update replaces, never adds twice');
    cache.removePod(pod('b', { node: 'n1' }));
    assert.equal(cpuOn(cache, 'n1'), 2000);
    assert.equal(cache.nodeInfo('n1')!.ownerCount('rs1'), 0);
    assert.equal(cpuOn(cache, 'n2'), 0);
  });

  it('ignores unbound pods and frees what finished pods held', () => {
    const cache = cacheWithNodes('n1');
    cache.updatePod(pod('pending'));
    assert.equal(cpuOn(cache, 'n1'), 0);
    cache.updatePod(pod('job', { node: 'n1', cpu: '1' }));
    cache.updatePod(pod('job', { node: 'n1', cpu: '1', phase: 'Succeeded' }));
    assert.equal(cpuOn(cache, 'n1'), 0);
    assert.equal(cache.nodeInfo('n1')!.pods.size, 0);
  });

  it('counts an assumed pod until the binding is confirmed or forgotten', () => {
    const cache = cacheWithNodes('n1');
    const p = pod('p', { cpu: '1' });
    cache.assume(podInfo(p), 'n1');
    assert.equal(cpuOn(cache, 'n1'), 1000);
    assert.equal(cache.isAssumed('ns/p'), true);
    cache.updatePod({ ...p, metadata: { ...p.metadata, labels: { late: 'event' } } });
    assert.equal(cpuOn(cache, 'n1'), 1000, 'an update sent before the binding landed keeps the assumption');
    cache.updatePod(pod('p', { node: 'n1', cpu: '1' }));
    assert.equal(cache.isAssumed('ns/p'), false, 'confirmed by the informer');
    cache.forget('ns/p');
    assert.equal(cpuOn(cache, 'n1'), 1000, 'forget leaves a confirmed pod alone');
  });

  it('forgets a failed assumption', () => {
    const cache = cacheWithNodes('n1');
    cache.assume(podInfo(pod('p', { cpu: '1' })), 'n1');
    cache.forget('ns/p');
    assert.equal(cpuOn(cache, 'n1'), 0);
    assert.equal(cache.placement('ns/p'), undefined);
  });

  it('drops an assumption when the pod turns out to be another one by that name', () => {
    const cache = cacheWithNodes('n1');
    cache.assume(podInfo(pod('p', { cpu: '1', uid: 'old' })), 'n1');
    cache.updatePod(pod('p', { cpu: '1', uid: 'new' }));
    assert.equal(cpuOn(cache, 'n1'), 0);
  });

  it('keeps pods of a node that went away, and lists only nodes it knows', () => {
    const cache = cacheWithNodes('n1', 'n2', 'n3');
    cache.updatePod(pod('a', { node: 'n1', cpu: '1' }));
    cache.removeNode('n1');
    assert.deepEqual(cache.nodeInfos().map((n) => n.name).sort(), ['n2', 'n3']);
    assert.equal(cache.nodeInfo('n1'), undefined);
    cache.setNode({ metadata: { name: 'n1' }, status: { allocatable: { cpu: '4', memory: '8Gi', pods: '110' } } });
    assert.equal(cpuOn(cache, 'n1'), 1000, 'the pod still counts when the node returns');
    assert.equal(cache.numNodes, 3);
  });

  it('counts pods bound to a node before the node itself arrives', () => {
    const cache = new SchedulerCache();
    cache.updatePod(pod('early', { node: 'n9', cpu: '1' }));
    cache.setNode({ metadata: { name: 'n9' }, status: { allocatable: { cpu: '2', memory: '1Gi', pods: '10' } } });
    assert.equal(cpuOn(cache, 'n9'), 1000);
  });
});
