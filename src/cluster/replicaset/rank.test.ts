import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { V1Pod } from '@kubernetes/client-node';
import { podsToDelete } from './rank.ts';

const NOW = Date.parse('2024-06-01T12:00:00Z');
const ago = (ms: number) => new Date(NOW - ms).toISOString();

function pod(name: string, o: { node?: string; phase?: string; readySince?: number; created?: number; restarts?: number; cost?: number; uid?: string } = {}): V1Pod {
  return {
    metadata: {
      name,
      uid: o.uid ?? name,
      creationTimestamp: (o.created !== undefined ? ago(o.created) : ago(3_600_000)) as unknown as Date,
      annotations: o.cost !== undefined ? { 'controller.kubernetes.io/pod-deletion-cost': String(o.cost) } : undefined,
    },
    spec: { nodeName: o.node, containers: [] },
    status: {
      phase: o.phase ?? 'Running',
      conditions: o.readySince !== undefined ? [{ type: 'Ready', status: 'True', lastTransitionTime: ago(o.readySince) as unknown as Date }] : [],
      containerStatuses: o.restarts ? [{ name: 'c', restartCount: o.restarts, image: '', imageID: '', ready: true }] : [],
    },
  };
}

const names = (pods: readonly { readonly metadata?: { readonly name?: string } }[]) => pods.map((p) => p.metadata?.name);
const first = (pods: V1Pod[], related: V1Pod[] = pods) => names(podsToDelete(pods, related, 1, NOW))[0];

describe('podsToDelete ranks as kube does', () => {
  it('unscheduled before scheduled', () => {
    assert.equal(first([pod('bound', { node: 'n1', phase: 'Pending' }), pod('unbound', { phase: 'Pending' })]), 'unbound');
  });

  it('Pending before Unknown before Running', () => {
    assert.deepEqual(names(podsToDelete([pod('run', { node: 'n' }), pod('unk', { node: 'n', phase: 'Unknown' }), pod('pend', { node: 'n', phase: 'Pending' })], [], 2, NOW)), ['pend', 'unk']);
  });

  it('not ready before ready', () => {
    assert.equal(first([pod('ready', { node: 'n', readySince: 1000 }), pod('notready', { node: 'n' })]), 'notready');
  });

  it('lower pod-deletion-cost first', () => {
    assert.equal(first([pod('cheap', { node: 'n', cost: -5 }), pod('dear', { node: 'n', cost: 10 })]), 'cheap');
  });

  it('a pod doubled up with siblings before a lone one', () => {
    const a = pod('crowded', { node: 'n1', readySince: 5000 });
    const b = pod('alone', { node: 'n2', readySince: 5000 });
    const sibling = pod('sibling-from-other-rs', { node: 'n1' });
    assert.equal(first([b, a], [a, b, sibling]), 'crowded');
  });

  it('ready more recently first, on a log scale, then by uid', () => {
    assert.equal(first([pod('old', { node: 'n', readySince: 3_600_000 }), pod('new', { node: 'n', readySince: 60_000 })]), 'new');
    // 40 s and 50 s ago fall in the same power-of-two bucket: uid decides.
    assert.equal(first([pod('x', { node: 'n', readySince: 40_000, uid: 'b' }), pod('y', { node: 'n', readySince: 50_000, uid: 'a' })]), 'y');
  });

  it('more restarts first, then newer first', () => {
    assert.equal(first([pod('stable', { node: 'n', readySince: 1000 }), pod('crashy', { node: 'n', readySince: 1000, restarts: 4 })]), 'crashy');
    assert.equal(first([pod('older', { node: 'n', created: 7_200_000 }), pod('newer', { node: 'n', created: 60_000 })]), 'newer');
  });

  it('returns everything when asked for as many as there are', () => {
    assert.equal(podsToDelete([pod('a'), pod('b')], [], 5, NOW).length, 2);
  });
});
