import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { V1Pod, V1PodDisruptionBudget } from '@kubernetes/client-node';
import { budgetStatus } from './budget.ts';

const now = Date.parse('2026-11-23T12:00:00Z');
const pod = (name: string, ready: boolean, extra: Record<string, unknown> = {}): V1Pod => ({
  metadata: { name, labels: { app: 'web' }, ...extra },
  status: { phase: 'Running', conditions: [{ type: 'Ready', status: ready ? 'True' : 'False' }] },
});
const pdb = (spec: Record<string, unknown>, status: Record<string, unknown> = {}): V1PodDisruptionBudget => ({ metadata: { name: 'web-pdb', generation: 2 }, spec: { selector: { matchLabels: { app: 'web' } }, ...spec }, status: status as never });

describe('budgetStatus', () => {
  const cases: Array<[string, ReturnType<typeof pdb>, ReturnType<typeof pod>[], { expectedPods: number; currentHealthy: number; desiredHealthy: number; disruptionsAllowed: number }]> = [
    ['minAvailable as a number', pdb({ minAvailable: 2 }), [pod('a', true), pod('b', true), pod('c', true)], { expectedPods: 3, currentHealthy: 3, desiredHealthy: 2, disruptionsAllowed: 1 }],
    ['minAvailable met exactly allows nothing', pdb({ minAvailable: 2 }), [pod('a', true), pod('b', true)], { expectedPods: 2, currentHealthy: 2, desiredHealthy: 2, disruptionsAllowed: 0 }],
    ['minAvailable as a percentage rounds up', pdb({ minAvailable: '50%' }), [pod('a', true), pod('b', true), pod('c', true)], { expectedPods: 3, currentHealthy: 3, desiredHealthy: 2, disruptionsAllowed: 1 }],
    ['maxUnavailable as a number', pdb({ maxUnavailable: 1 }), [pod('a', true), pod('b', true), pod('c', false)], { expectedPods: 3, currentHealthy: 2, desiredHealthy: 2, disruptionsAllowed: 0 }],
    ['maxUnavailable as a percentage', pdb({ maxUnavailable: '34%' }), [pod('a', true), pod('b', true), pod('c', true)], { expectedPods: 3, currentHealthy: 3, desiredHealthy: 1, disruptionsAllowed: 2 }],
    ['deleting pods are not healthy', pdb({ minAvailable: 1 }), [pod('a', true, { deletionTimestamp: '2026-11-23T11:59:00Z' }), pod('b', true)], { expectedPods: 2, currentHealthy: 1, desiredHealthy: 1, disruptionsAllowed: 0 }],
    ['pods outside the selector do not count', pdb({ minAvailable: 1 }), [pod('a', true), { ...pod('x', true), metadata: { name: 'x', labels: { app: 'other' } } }], { expectedPods: 1, currentHealthy: 1, desiredHealthy: 1, disruptionsAllowed: 0 }],
  ];
  for (const [name, budget, pods, expected] of cases) {
    it(name, () => {
      const st = budgetStatus(budget, pods, now);
      assert.deepEqual({ expectedPods: st.expectedPods, currentHealthy: st.currentHealthy, desiredHealthy: st.desiredHealthy, disruptionsAllowed: st.disruptionsAllowed }, expected);
      assert.equal(st.observedGeneration, 2);
      assert.equal(st.conditions?.[0]?.status, expected.disruptionsAllowed > 0 ? 'True' : 'False');
    });
  }

  it('counts a recently evicted pod as disrupted until it goes or two minutes pass', () => {
    const pods = [pod('a', true), pod('b', true), pod('c', true)];
    const recent = budgetStatus(pdb({ minAvailable: 2 }, { disruptedPods: { a: '2026-11-23T11:59:30Z' } }), pods, now);
    assert.equal(recent.currentHealthy, 2);
    assert.deepEqual(recent.disruptedPods, { a: '2026-11-23T11:59:30Z' });
    const stale = budgetStatus(pdb({ minAvailable: 2 }, { disruptedPods: { a: '2026-11-23T11:57:00Z' } }), pods, now);
    assert.equal(stale.currentHealthy, 3);
    assert.equal(stale.disruptedPods, undefined);
  });
});
