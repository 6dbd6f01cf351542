import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { V1Deployment } from '@kubernetes/client-node';
import { deploymentRollout, minimumWorkerMachines, type MachineLike, type MachineSetLike } from './checks.ts';

const NOW = Date.parse('2026-01-01T00:10:00Z');

function deployment(o: { generation?: number; observed?: number; replicas?: number; updated?: number; unavailable?: number; available?: 'True' | 'False'; since?: string; deleting?: boolean }): V1Deployment {
  return {
    metadata: { name: 'machine-api-controllers', generation: o.generation ?? 1, ...(o.deleting ? { deletionTimestamp: new Date(NOW) } : {}) },
    status: {
      observedGeneration: o.observed ?? 1,
      replicas: o.replicas ?? 1,
      updatedReplicas: o.updated ?? 1,
      readyReplicas: 1,
      unavailableReplicas: o.unavailable ?? 0,
      ...(o.available ? { conditions: [{ type: 'Available', status: o.available, lastTransitionTime: (o.since ?? '2026-01-01T00:00:00Z') as unknown as Date }] } : {}),
    },
  };
}

describe('the rollout gate', () => {
  it('passes once observed, updated, none unavailable and Available', () => {
    assert.deepEqual(deploymentRollout(deployment({ available: 'True' }), 'machine-api-controllers', NOW, 0), { state: 'passed' });
  });

  it('waits, with OpenShift\'s status line, while the rollout converges', () => {
    assert.deepEqual(deploymentRollout(deployment({ generation: 2 }), 'machine-api-controllers', NOW, 0), {
      state: 'pending',
      message: 'deployment machine-api-controllers is not ready. status: (replicas: 1, updated: 1, ready: 1, unavailable: 0)',
    });
    assert.equal(deploymentRollout(deployment({ replicas: 2, updated: 1 }), 'machine-api-controllers', NOW, 0).state, 'pending');
    assert.equal(deploymentRollout(deployment({ unavailable: 1 }), 'machine-api-controllers', NOW, 0).state, 'pending');
    assert.deepEqual(deploymentRollout(deployment({}), 'machine-api-controllers', NOW, 0), { state: 'pending', message: 'deployment machine-api-controllers is not reporting available yet' });
    assert.deepEqual(deploymentRollout(deployment({ available: 'False' }), 'machine-api-controllers', NOW, 0), { state: 'pending', message: 'deployment machine-api-controllers is reporting available=false' });
  });

  it('with a minimum availability time, waits for it and says when to look again', () => {
    const r = deploymentRollout(deployment({ available: 'True', since: '2026-01-01T00:09:00Z' }), 'machine-api-controllers', NOW, 3 * 60_000);
    assert.deepEqual(r, { state: 'pending', message: 'deployment machine-api-controllers has been available for less than 180s', requeueAfterMs: 2 * 60_000 });
    assert.equal(deploymentRollout(deployment({ available: 'True', since: '2026-01-01T00:07:00Z' }), 'machine-api-controllers', NOW, 3 * 60_000).state, 'passed');
  });

  it('fails when the Deployment is gone or going', () => {
    assert.deepEqual(deploymentRollout(undefined, 'machine-api-controllers', NOW, 0), { state: 'failed', message: 'deployment machine-api-controllers is not found' });
    assert.deepEqual(deploymentRollout(deployment({ deleting: true, available: 'True' }), 'machine-api-controllers', NOW, 0), { state: 'failed', message: 'deployment machine-api-controllers is being deleted' });
  });
});

const set = (name: string, replicas: number): MachineSetLike => ({ metadata: { name }, spec: { replicas, selector: { matchLabels: { 'machine.openshift.io/cluster-api-machineset': name } } } });
const machine = (name: string, setName: string, phase?: string): MachineLike => ({ metadata: { name, labels: { 'machine.openshift.io/cluster-api-machineset': setName } }, status: phase ? { phase } : {} });

describe('the worker Machines gate (a cluster coming up)', () => {
  it('passes with no MachineSets, and with two workers Running of many', () => {
    assert.deepEqual(minimumWorkerMachines([], [machine('master-0', '', 'Running')]), { state: 'passed' });
    const machines = [machine('w-a-1', 'w-a', 'Running'), machine('w-a-2', 'w-a', 'Provisioned'), machine('w-b-1', 'w-b', 'Running')];
    assert.deepEqual(minimumWorkerMachines([set('w-a', 2), set('w-b', 1)], machines), { state: 'passed' });
  });

  it('a MachineSet without all its Machines yet: names it and the counts', () => {
    assert.deepEqual(minimumWorkerMachines([set('w-a', 3)], [machine('w-a-1', 'w-a', 'Running')]), {
      state: 'failed',
      message: 'could not determine running Machines in MachineSet "w-a": replicas not satisfied for MachineSet: expected 3 replicas, got 1 current replicas',
    });
  });

  it('fewer than two Running of more than one wanted: says which it waits for', () => {
    const machines = [machine('w-a-1', 'w-a', 'Running'), machine('w-a-2', 'w-a', 'Provisioning'), machine('w-a-3', 'w-a')];
    assert.deepEqual(minimumWorkerMachines([set('w-a', 3)], machines), {
      state: 'failed',
      message: 'minimum worker replica count (2) not yet met: current running replicas 1, waiting for [w-a-2 w-a-3]',
    });
  });

  it('a single worker need not be Running (the masters take the load)', () => {
    assert.deepEqual(minimumWorkerMachines([set('w-a', 1)], [machine('w-a-1', 'w-a', 'Provisioning')]), { state: 'passed' });
  });
});
