import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { DeepReadonly } from '../../../runtime/readonly.ts';
import type { V1Node } from '@kubernetes/client-node';
import { updateInProgressTaint, isNodeDegraded, isNodeFailing, isNodeUnavailable, isNodeUpdated, notReadyReason } from './node-state.ts';
import { maxUnavailable, planRollout, sortForUpdate, taintChanges } from './rollout.ts';
import { node, targetedPool } from './testing.ts';

const T = 'rendered-worker-new';
const names = (nodes: readonly DeepReadonly<V1Node>[]) => nodes.map((n) => n.metadata?.name);

describe('maxUnavailable', () => {
  it('is 1 unset, a count as given, a percentage of the pool rounded down, and never below 1', () => {
    assert.equal(maxUnavailable(targetedPool('worker', T), 5), 1);
    assert.equal(maxUnavailable(targetedPool('worker', T, { maxUnavailable: 2 }), 5), 2);
    assert.equal(maxUnavailable(targetedPool('worker', T, { maxUnavailable: '10%' }), 200), 20);
    assert.equal(maxUnavailable(targetedPool('worker', T, { maxUnavailable: '10%' }), 19), 1);
    assert.equal(maxUnavailable(targetedPool('worker', T, { maxUnavailable: '50%' }), 5), 2);
    assert.equal(maxUnavailable(targetedPool('worker', T, { maxUnavailable: 0 }), 5), 1);
    assert.equal(maxUnavailable(targetedPool('worker', T, { maxUnavailable: '0%' }), 5), 1);
  });

  it('refuses a string that is not a percentage, naming the field', () => {
    assert.throws(() => maxUnavailable(targetedPool('worker', T, { maxUnavailable: 'two' }), 5), /^Error: "maxUnavailable" invalid value for IntOrString: "two"/);
  });
});

describe('node state', () => {
  it('reads readiness as the MCO does: Ready, DiskPressure, NetworkUnavailable and the cordon', () => {
    assert.equal(notReadyReason(node('a')), undefined);
    assert.equal(notReadyReason(node('a', { ready: 'False' })), 'node a is reporting NotReady=False');
    assert.equal(notReadyReason(node('a', { unschedulable: true })), 'node a is reporting Unschedulable');
    const pressured = node('a');
    pressured.status!.conditions!.push({ type: 'DiskPressure', status: 'True' });
    assert.equal(notReadyReason(pressured), 'node a is reporting OutOfDisk=True');
  });

  it('counts a working or not-yet-started node as unavailable, and a failing one as not (it may be retargeted)', () => {
    assert.equal(isNodeUnavailable(node('done')), false);
    assert.equal(isNodeUnavailable(node('targeted', { desired: T })), true, 'targeted, daemon not started yet');
    assert.equal(isNodeUnavailable(node('working', { desired: T, state: 'Working' })), true);
    assert.equal(isNodeUnavailable(node('stuck', { desired: T, state: 'Unreconcilable', reason: 'x' })), false);
    assert.equal(isNodeUnavailable(node('drain', { desired: T, state: 'Degraded', unschedulable: true })), true, 'cordoned counts anyway');
    assert.equal(isNodeUnavailable(node('notready', { ready: 'Unknown' })), true);
    assert.equal(isNodeFailing(node('stuck', { desired: T, state: 'Degraded' })), true);
    assert.equal(isNodeFailing(node('drift', { state: 'Degraded' })), false, 'degraded at its current config is not failing an update');
    assert.equal(isNodeDegraded(node('drift', { state: 'Degraded' })), true);
    assert.equal(isNodeUpdated(node('x', { current: T }), targetedPool('worker', T)), true);
    assert.equal(isNodeUpdated(node('x', { current: T, state: 'Working' }), targetedPool('worker', T)), false);
  });
});

describe('planRollout', () => {
  const five = () => ['w1', 'w2', 'w3', 'w4', 'w5'].map((n, i) => node(n, { created: `2024-01-01T00:0${i}:00Z` }));

  it('targets up to maxUnavailable nodes, oldest first', () => {
    const plan = planRollout(T, five(), 2);
    assert.deepEqual(names(plan.targets), ['w1', 'w2']);
    assert.deepEqual([plan.capacity, plan.candidates, plan.unavailable], [2, 5, 0]);
  });

  it('counts nodes already updating against the capacity, and targets nothing at the limit', () => {
    const nodes = five();
    nodes[0] = node('w1', { desired: T, state: 'Working', unschedulable: true });
    assert.deepEqual(names(planRollout(T, nodes, 2).targets), ['w2']);
    nodes[1] = node('w2', { desired: T });
    const full = planRollout(T, nodes, 2);
    assert.deepEqual([full.targets.length, full.capacity, full.unavailable], [0, 0, 2]);
  });

  it('skips nodes that cannot take work and counts them as unavailable', () => {
    const nodes = five();
    nodes[0] = node('w1', { ready: 'False' });
    assert.deepEqual(names(planRollout(T, nodes, 2).targets), ['w2']);
  });

  it('lets a node failing an older target be retargeted, and counts one failing this target against the capacity', () => {
    const nodes = five();
    nodes[0] = node('w1', { desired: 'rendered-worker-bad', state: 'Unreconcilable', reason: "can't reconcile" });
    assert.deepEqual(names(planRollout(T, nodes, 1).targets), ['w1'], 'a failing node is a candidate again');
    nodes[0] = node('w1', { desired: T, state: 'Unreconcilable', reason: "can't reconcile" });
    assert.deepEqual(names(planRollout(T, nodes, 1).targets), [], 'one failing at this target holds the only slot');
    assert.deepEqual(names(planRollout(T, nodes, 2).targets), ['w2']);
  });

  it('takes nodes zone by zone, oldest first within a zone, unzoned last', () => {
    const nodes = [
      node('c-new', { zone: 'zone-c', created: '2024-01-03T00:00:00Z' }),
      node('none-old', { created: '2024-01-01T00:00:00Z' }),
      node('a-new', { zone: 'zone-a', created: '2024-01-02T00:00:00Z' }),
      node('c-old', { zone: 'zone-c', created: '2024-01-01T00:00:00Z' }),
      node('a-old', { zone: 'zone-a', created: '2024-01-01T00:00:00Z' }),
      node('none-b', { created: '2024-01-02T00:00:00Z' }),
      node('none-a', { created: '2024-01-02T00:00:00Z' }),
    ];
    assert.deepEqual(names(sortForUpdate(nodes)), ['a-old', 'a-new', 'c-old', 'c-new', 'none-old', 'none-a', 'none-b']);
    assert.deepEqual(names(planRollout(T, nodes, 3).targets), ['a-old', 'a-new', 'c-old']);
  });
});

describe('taintChanges', () => {
  const tainted = (n: V1Node): V1Node => ({ ...n, spec: { ...n.spec, taints: [{ key: 'other', effect: 'NoSchedule' }, updateInProgressTaint] } });
  const changes = (target: string, nodes: readonly DeepReadonly<V1Node>[], targets: readonly DeepReadonly<V1Node>[]) => taintChanges(target, nodes, targets).map((c) => `${c.node.metadata?.name}:${c.taint ? 'taint' : 'untaint'}`);

  it('taints every node still to update but the ones being targeted now, before any is targeted', () => {
    const nodes = ['w1', 'w2', 'w3', 'w4', 'w5'].map((n, i) => node(n, { created: `2024-01-01T00:0${i}:00Z` }));
    const plan = planRollout(T, nodes, 2);
    assert.deepEqual(changes(T, nodes, plan.targets), ['w3:taint', 'w4:taint', 'w5:taint']);
  });

  it('untaints nodes at the target, leaves tainted nodes still to update, and leaves a tainted node being targeted for the next pass', () => {
    const nodes = [
      tainted(node('at-target', { desired: T, state: 'Working' })),
      tainted(node('updated', { current: T })),
      tainted(node('waiting')),
      tainted(node('next')),
      node('untainted-at-target', { current: T }),
    ];
    assert.deepEqual(changes(T, nodes, [nodes[3]!]), ['at-target:untaint', 'updated:untaint']);
    assert.deepEqual(changes(T, nodes, []), ['at-target:untaint', 'updated:untaint']);
  });
});
