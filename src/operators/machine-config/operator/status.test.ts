import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { MachineConfigPool } from '../../../api/machineconfiguration/index.ts';
import { desiredVersions, formatVersions, operatorStatus, requiredPoolsOutcome, type TaskOutcome } from './status.ts';

const X = '0.1.1';
const IMAGE = 'shipyard.local/machine-config-operator:v0.1.0';
const done = (task: TaskOutcome['task']): TaskOutcome => ({ task, state: 'done' });
const allDone: TaskOutcome[] = [done('MachineConfigPools'), done('MachineConfigController'), done('MachineConfigServer'), done('MachineConfigDaemon'), done('RequiredPools')];
const old = desiredVersions('0.1.0', IMAGE);

function pool(name: string, o: { updated?: boolean; degraded?: string; target?: string; current?: string; generation?: number; observed?: number } = {}): MachineConfigPool {
  const conditions = [
    { type: 'Updated', status: o.updated ? 'True' : 'False' },
    { type: 'Degraded', status: o.degraded ? 'True' : 'False', message: o.degraded ?? '' },
  ] as NonNullable<MachineConfigPool['status']>['conditions'];
  return {
    apiVersion: 'machineconfiguration.openshift.io/v1',
    kind: 'MachineConfigPool',
    metadata: { name, generation: o.generation ?? 1 },
    spec: { configuration: { name: o.target ?? `rendered-${name}-a` } },
    status: { observedGeneration: o.observed ?? 1, configuration: { name: o.current ?? `rendered-${name}-a` }, machineCount: 3, readyMachineCount: o.updated ? 3 : 1, updatedMachineCount: o.updated ? 3 : 1, unavailableMachineCount: 1, degradedMachineCount: o.degraded ? 1 : 0, conditions },
  };
}

describe('machine-config ClusterOperator status', () => {
  it('bringing up: not Available, Progressing "Cluster is bootstrapping", no versions, naming what it waits for', () => {
    const r = operatorStatus({ releaseVersion: X, operatorImage: IMAGE, reported: [], tasks: [done('MachineConfigPools'), { task: 'MachineConfigController', state: 'pending', message: 'deployment x has not yet successfully rolled out' }], pools: [] });
    assert.deepEqual(r.versions, []);
    assert.deepEqual(r.available, { status: 'False', reason: 'Bootstrapping', message: `Cluster is bootstrapping ${X}: deployment x has not yet successfully rolled out` });
    assert.deepEqual(r.progressing, { status: 'True', reason: 'Bootstrapping', message: `Cluster is bootstrapping ${X}` });
    assert.equal(r.degraded.status, 'False');
  });

  it('every task done: the versions move, Available with them, Progressing False', () => {
    const r = operatorStatus({ releaseVersion: X, operatorImage: IMAGE, reported: [], tasks: allDone, pools: [] });
    assert.deepEqual(r.versions, desiredVersions(X, IMAGE));
    assert.deepEqual(r.available, { status: 'True', reason: 'AsExpected', message: `Cluster has deployed [{operator ${X}} {operator-image ${IMAGE}}]` });
    assert.deepEqual(r.progressing, { status: 'False', reason: 'AsExpected', message: `Cluster version is ${X}` });
    assert.deepEqual(r.degraded, { status: 'False', reason: 'AsExpected', message: '' });
    assert.equal(r.upgradeable?.status, 'True');
  });

  it('updating: the old versions stay until the new release is fully out, Working towards it', () => {
    const r = operatorStatus({ releaseVersion: X, operatorImage: IMAGE, reported: old, tasks: [...allDone.slice(0, 4), { task: 'RequiredPools', state: 'pending', message: 'required MachineConfigPool master is not ready' }], pools: [] });
    assert.deepEqual(r.versions, old);
    assert.equal(r.available.status, 'True');
    assert.deepEqual(r.progressing, { status: 'True', reason: 'Updating', message: `Working towards ${X}` });
  });

  it('a failed task: Degraded <Task>Failed, worded as the MCO words it while updating and while resyncing', () => {
    const failed: TaskOutcome = { task: 'RequiredPools', state: 'failed', message: 'timed out: MachineConfigPool worker is not ready' };
    const updating = operatorStatus({ releaseVersion: X, operatorImage: IMAGE, reported: old, tasks: [...allDone.slice(0, 4), failed], pools: [] });
    assert.deepEqual(updating.degraded, { status: 'True', reason: 'RequiredPoolsFailed', message: `Unable to apply ${X}: timed out: MachineConfigPool worker is not ready` });
    assert.deepEqual(updating.progressing, { status: 'True', reason: 'RequiredPoolsFailed', message: `Unable to apply ${X}` });
    const settled = operatorStatus({ releaseVersion: X, operatorImage: IMAGE, reported: desiredVersions(X, IMAGE), tasks: [...allDone.slice(0, 4), failed], pools: [] });
    assert.deepEqual(settled.degraded, { status: 'True', reason: 'RequiredPoolsFailed', message: `Failed to resync ${X} because: timed out: MachineConfigPool worker is not ready` });
    assert.deepEqual(settled.progressing, { status: 'False', reason: 'RequiredPoolsFailed', message: `Error while reconciling ${X}` });
    assert.equal(settled.available.status, 'True', 'a degraded MCO stays Available, as OpenShift\'s does');
  });

  it('a degraded pool: Upgradeable=False DegradedPool', () => {
    const r = operatorStatus({ releaseVersion: X, operatorImage: IMAGE, reported: old, tasks: allDone, pools: [pool('master', { updated: true }), pool('worker', { degraded: 'Node worker-0 is reporting: "failed to drain"' })] });
    assert.deepEqual(r.upgradeable, { status: 'False', reason: 'DegradedPool', message: 'One or more machine config pools are degraded, please see `oc get mcp` for further details and resolve before upgrading' });
  });

  it('formats versions as Go prints a slice of structs', () => {
    assert.equal(formatVersions([{ name: 'operator', version: '1' }]), '[{operator 1}]');
  });
});

describe('RequiredPools', () => {
  it('done once master is Updated at its target and its generation observed', () => {
    assert.deepEqual(requiredPoolsOutcome([pool('master', { updated: true }), pool('worker')], ['master']), { task: 'RequiredPools', state: 'done' });
  });

  it('pending while master is missing, updating, behind its target or its generation', () => {
    assert.deepEqual(requiredPoolsOutcome([], ['master']), { task: 'RequiredPools', state: 'pending', message: 'required MachineConfigPool master does not exist yet' });
    assert.deepEqual(requiredPoolsOutcome([pool('master')], ['master']), {
      task: 'RequiredPools',
      state: 'pending',
      message: 'required MachineConfigPool master is not ready, retrying. Status: (total: 3, ready 1, updated: 1, unavailable: 1, degraded: 0)',
    });
    assert.equal(requiredPoolsOutcome([pool('master', { updated: true, target: 'rendered-master-b' })], ['master']).state, 'pending');
    assert.equal(requiredPoolsOutcome([pool('master', { updated: true, generation: 2 })], ['master']).state, 'pending');
  });

  it('a degraded pool, required or not, holds it with the pool\'s counts and reason', () => {
    assert.deepEqual(requiredPoolsOutcome([pool('master', { updated: true }), pool('worker', { degraded: 'Node worker-0 is reporting: "x"' })], ['master']), {
      task: 'RequiredPools',
      state: 'pending',
      message: 'MachineConfigPool worker is not ready, retrying. Status: (pool degraded: true total: 3, ready 1, updated: 1, unavailable: 1, reason: Node worker-0 is reporting: "x")',
    });
  });
});
