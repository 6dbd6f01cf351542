import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { V1Pod } from '@kubernetes/client-node';
import { SchedulerCache } from '../cache.ts';
import { podInfo } from '../pod-info.ts';
import { nodeResourcesFit } from './node-resources-fit.ts';

function pod(name: string, requests: Record<string, string>, nodeName?: string): V1Pod {
  return { metadata: { namespace: 'ns', name, uid: name }, spec: { nodeName, containers: [{ name: 'c', resources: { requests } }] } };
}

/** A node with 2 CPUs, 4Gi and room for 3 pods, running the given pods. */
function nodeWith(...pods: V1Pod[]) {
  const cache = new SchedulerCache();
  cache.setNode({ metadata: { name: 'n1' }, status: { allocatable: { cpu: '2', memory: '4Gi', pods: '3' } } });
  for (const p of pods) cache.updatePod({ ...p, spec: { ...p.spec!, nodeName: 'n1' } });
  return cache.nodeInfo('n1')!;
}

const fit = (p: V1Pod, ...existing: V1Pod[]) => nodeResourcesFit(podInfo(p).requests, nodeWith(...existing));

describe('NodeResourcesFit', () => {
  it('passes a pod that fits in what is left', () => {
    assert.equal(fit(pod('p', { cpu: '500m', memory: '1Gi' }), pod('a', { cpu: '1500m', memory: '3Gi' })), undefined);
  });

  it('reports each short resource in kube-scheduler\'s words', () => {
    const existing = pod('a', { cpu: '1800m', memory: '3900Mi' });
    assert.deepEqual(fit(pod('p', { cpu: '300m' }), existing), { code: 'Unschedulable', reasons: ['Insufficient cpu'] });
    assert.deepEqual(fit(pod('p', { memory: '200Mi' }), existing), { code: 'Unschedulable', reasons: ['Insufficient memory'] });
    assert.deepEqual(fit(pod('p', { cpu: '1', memory: '1Gi' }), existing)?.reasons, ['Insufficient cpu', 'Insufficient memory']);
  });

  it('counts pods against allocatable pods', () => {
    const three = [pod('a', {}), pod('b', {}), pod('c', {})];
    assert.deepEqual(fit(pod('p', {}), ...three), { code: 'Unschedulable', reasons: ['Too many pods'] });
    assert.deepEqual(fit(pod('p', { cpu: '3' }), ...three)?.reasons, ['Too many pods', 'Insufficient cpu']);
    assert.equal(fit(pod('p', {}), three[0], three[1]), undefined);
  });

  it('refuses a node that declares no allocatable', () => {
    const cache = new SchedulerCache();
    cache.setNode({ metadata: { name: 'bare' } });
    assert.deepEqual(nodeResourcesFit(podInfo(pod('p', { cpu: '1m' })).requests, cache.nodeInfo('bare')!)?.reasons, ['Too many pods', 'Insufficient cpu']);
  });
});
