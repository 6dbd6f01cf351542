import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { MachineConfigPool, MachineConfigPoolCondition } from '../../../api/machineconfiguration/index.ts';
import { calculatePoolStatus, setPoolCondition } from './pool-status.ts';
import { node, targetedPool } from './testing.ts';

const OLD = 'rendered-worker-old';
const NEW = 'rendered-worker-new';
const T0 = '2024-01-01T00:00:00Z';
const T1 = '2024-01-01T00:05:00Z';

function cond(status: ReturnType<typeof calculatePoolStatus>, type: string): Pick<MachineConfigPoolCondition, 'status' | 'reason' | 'message'> | undefined {
  const c = status.conditions?.find((x) => x.type === type);
  return c && { status: c.status, reason: c.reason, message: c.message };
}

describe('calculatePoolStatus', () => {
  it('a pool whose every node runs the target is Updated, and only then does status.configuration move to it', () => {
    const pool = targetedPool('worker', NEW);
    pool.status = { configuration: { name: OLD } };
    const midway = calculatePoolStatus(pool, [node('w1', { current: NEW }), node('w2', { desired: NEW, state: 'Working' })], T0);
    assert.equal(midway.configuration?.name, OLD, 'CONFIG still shows the last completed config');
    assert.deepEqual(cond(midway, 'Updated'), { status: 'False', reason: '', message: '' });
    assert.deepEqual(cond(midway, 'Updating'), { status: 'True', reason: '', message: `All nodes are updating to MachineConfig ${NEW}` });
    assert.deepEqual(
      [midway.machineCount, midway.updatedMachineCount, midway.readyMachineCount, midway.unavailableMachineCount, midway.degradedMachineCount, midway.observedGeneration],
      [2, 1, 1, 1, 0, 3],
    );

    const done = calculatePoolStatus({ ...pool, status: midway }, [node('w1', { current: NEW }), node('w2', { current: NEW })], T1);
    assert.equal(done.configuration?.name, NEW);
    assert.deepEqual(cond(done, 'Updated'), { status: 'True', reason: '', message: `All nodes are updated with MachineConfig ${NEW}` });
    assert.deepEqual(cond(done, 'Updating'), { status: 'False', reason: '', message: '' });
    assert.equal(done.conditions?.find((c) => c.type === 'Updated')?.lastTransitionTime, T1);
    assert.deepEqual([done.updatedMachineCount, done.readyMachineCount, done.unavailableMachineCount], [2, 2, 0]);
  });

  it('an updated node that is cordoned keeps the pool from Updated', () => {
    const pool = targetedPool('worker', NEW);
    const status = calculatePoolStatus(pool, [node('w1', { current: NEW, unschedulable: true })], T0);
    assert.deepEqual([status.updatedMachineCount, status.readyMachineCount, status.unavailableMachineCount], [1, 0, 1]);
    assert.equal(cond(status, 'Updated')?.status, 'False');
  });

  it('a paused pool says it will not update', () => {
    const status = calculatePoolStatus(targetedPool('worker', NEW, { paused: true }), [node('w1')], T0);
    assert.deepEqual(cond(status, 'Updating'), { status: 'False', reason: '', message: `Pool is paused; will not update to MachineConfig ${NEW}` });
  });

  it('NodeDegraded names each degraded node and what its daemon reports; Degraded carries it', () => {
    const reason = 'failed to drain node worker-0: Cannot evict pod openshift-ingress/router-default-x: would violate PodDisruptionBudget openshift-ingress/router-default';
    const nodes = [node('worker-0', { desired: NEW, state: 'Degraded', reason, unschedulable: true }), node('worker-1', { desired: NEW, state: 'Unreconcilable', reason: 'can\'t reconcile config A with B: "x"' }), node('worker-2')];
    const status = calculatePoolStatus(targetedPool('worker', NEW), nodes, T0);
    const message = `Node worker-0 is reporting: ${JSON.stringify(reason)}, Node worker-1 is reporting: "can't reconcile config A with B: \\"x\\""`;
    assert.deepEqual(cond(status, 'NodeDegraded'), { status: 'True', reason: '2 nodes are reporting degraded status on sync', message });
    assert.deepEqual(cond(status, 'Degraded'), { status: 'True', reason: '', message });
    assert.equal(status.degradedMachineCount, 2);
  });

  it('a render failure alone makes the pool Degraded with the render\'s message; its clearing clears it', () => {
    const pool: MachineConfigPool = targetedPool('worker', NEW);
    const render = 'Failed to render configuration for pool worker: invalid mode 04755 for /etc/x, cannot exceed 0777';
    pool.status = { conditions: [{ type: 'RenderDegraded', status: 'True', reason: '', message: render, lastTransitionTime: T0 }] };
    const status = calculatePoolStatus(pool, [node('w1', { current: NEW })], T1);
    assert.deepEqual(cond(status, 'Degraded'), { status: 'True', reason: '', message: render });
    assert.deepEqual(cond(status, 'NodeDegraded'), { status: 'False', reason: '', message: '' });
    pool.status = { ...status, conditions: status.conditions!.map((c) => (c.type === 'RenderDegraded' ? { ...c, status: 'False', message: '' } : c)) };
    assert.deepEqual(cond(calculatePoolStatus(pool, [node('w1', { current: NEW })], T1), 'Degraded'), { status: 'False', reason: '', message: '' });
  });

  it('an empty pool is Updated at its target', () => {
    const status = calculatePoolStatus(targetedPool('infra', 'rendered-infra-x'), [], T0);
    assert.equal(status.configuration?.name, 'rendered-infra-x');
    assert.equal(cond(status, 'Updated')?.status, 'True');
  });
});

describe('setPoolCondition', () => {
  it('keeps the transition time while the status stays, and the same array when nothing changes', () => {
    const start = setPoolCondition([], 'Updating', 'True', '', 'a', T0);
    assert.equal(setPoolCondition(start, 'Updating', 'True', '', 'a', T1), start);
    assert.equal(setPoolCondition(start, 'Updating', 'True', '', 'b', T1)[0]?.lastTransitionTime, T0);
    assert.equal(setPoolCondition(start, 'Updating', 'False', '', '', T1)[0]?.lastTransitionTime, T1);
  });
});
