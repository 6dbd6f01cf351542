import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { V1DaemonSet, V1Pod } from '@kubernetes/client-node';
import { budgets, planRollingUpdate } from './rolling.ts';
import type { DaemonSet, Pod } from './types.ts';

const NOW = Date.parse('2024-06-01T12:00:00Z');
function pod(name: string, hash: string, ready: boolean): Pod {
  return {
    metadata: { name, labels: { 'controller-revision-hash': hash } },
    status: { conditions: ready ? [{ type: 'Ready', status: 'True', lastTransitionTime: new Date(NOW - 60_000).toISOString() as unknown as Date }] : [] },
  } as V1Pod as Pod;
}
const names = (pods: readonly Pod[]) => pods.map((p) => p.metadata?.name).sort();
const plan = (nodes: Record<string, Pod[]>, maxSurge: number, maxUnavailable: number) =>
  planRollingUpdate({ nodes: new Map(Object.entries(nodes)), hash: 'new', maxSurge, maxUnavailable, minReadySeconds: 0, nowMs: NOW, shouldRun: () => true });

describe('DaemonSet rolling update', () => {
  it('resolves both budgets rounding up, and allows one node when both are 0', () => {
    const ds = (ru: object) => ({ spec: { updateStrategy: { type: 'RollingUpdate', rollingUpdate: ru } } }) as V1DaemonSet as DaemonSet;
    assert.deepEqual(budgets(ds({ maxUnavailable: '10%', maxSurge: 0 }), 15), { maxSurge: 0, maxUnavailable: 2 });
    assert.deepEqual(budgets(ds({ maxUnavailable: 0, maxSurge: 0 }), 5), { maxSurge: 0, maxUnavailable: 1 });
    assert.deepEqual(budgets(ds({ maxUnavailable: 0, maxSurge: '20%' }), 6), { maxSurge: 2, maxUnavailable: 0 });
  });

  it('without surge, deletes old pods only while fewer than maxUnavailable nodes are down', () => {
    const step = plan({ a: [pod('a-old', 'old', true)], b: [pod('b-old', 'old', true)], c: [pod('c-old', 'old', true)] }, 0, 2);
    assert.equal(step.deletePods.length, 2);
    assert.deepEqual(step.createOn, []);
    const busy = plan({ a: [pod('a-new', 'new', false)], b: [pod('b-old', 'old', true)], c: [] }, 0, 2);
    assert.deepEqual(names(busy.deletePods), [], 'a new pod not yet available and an empty node use the budget');
  });

  it('without surge, replaces an unavailable old pod whatever the budget', () => {
    const step = plan({ a: [pod('a-new', 'new', false)], b: [pod('b-old', 'old', false)] }, 0, 1);
    assert.deepEqual(names(step.deletePods), ['b-old']);
  });

  it('with surge, starts new pods beside old ones up to maxSurge, and retires old ones whose replacement is available', () => {
    const start = plan({ a: [pod('a-old', 'old', true)], b: [pod('b-old', 'old', true)], c: [pod('c-old', 'old', true)] }, 1, 0);
    assert.deepEqual([start.createOn.length, start.deletePods.length], [1, 0]);
    const next = plan({ a: [pod('a-old', 'old', true), pod('a-new', 'new', true)], b: [pod('b-old', 'old', true)], c: [pod('c-old', 'old', false)] }, 1, 0);
    assert.deepEqual(names(next.deletePods), ['a-old']);
    // c's old pod is unavailable, so it gets a new pod at once; b waits for the surge budget.
    assert.deepEqual(next.createOn.sort(), ['b', 'c']);
  });
});
