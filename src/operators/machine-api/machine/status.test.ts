import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Machine, MachineStatus } from '../../../api/machine/index.ts';
import { machinePatch } from './object-patch.ts';
import { falseCondition, lifecycleHookConditions, nextStatus, setCondition, trueCondition } from './status.ts';

const T0 = '2024-01-01T00:00:00Z';
const T1 = '2024-01-01T00:01:00Z';

type Hooks = { preDrain?: { name: string; owner: string }[]; preTerminate?: { name: string; owner: string }[] };

function machine(o: { hooks?: Hooks; labels?: Record<string, string>; providerID?: string } = {}): Machine {
  return {
    apiVersion: 'machine.openshift.io/v1beta1',
    kind: 'Machine',
    metadata: { name: 'm', namespace: 'ns', labels: o.labels ?? {} },
    spec: { ...(o.hooks ? { lifecycleHooks: o.hooks } : {}), ...(o.providerID ? { providerID: o.providerID } : {}) },
  } as Machine;
}

describe('machine status: conditions', () => {
  it('keeps lastTransitionTime while nothing about a condition changes, and moves it when anything does', () => {
    const first = setCondition([], falseCondition('Drained', 'DrainError', 'Warning', 'blocked'), T0);
    assert.deepEqual(first, [{ type: 'Drained', status: 'False', reason: 'DrainError', severity: 'Warning', message: 'blocked', lastTransitionTime: T0 }]);
    assert.equal(setCondition(first, falseCondition('Drained', 'DrainError', 'Warning', 'blocked'), T1)[0]!.lastTransitionTime, T0);
    assert.equal(setCondition(first, falseCondition('Drained', 'DrainError', 'Warning', 'still blocked'), T1)[0]!.lastTransitionTime, T1);
    assert.deepEqual(setCondition(first, trueCondition('Drained', 'done'), T1), [{ type: 'Drained', status: 'True', message: 'done', lastTransitionTime: T1 }]);
  });

  it('Drainable and Terminable are False with reason HookPresent while a hook is present', () => {
    const hooked = machine({ hooks: { preDrain: [{ name: 'Backup', owner: 'backup-controller' }], preTerminate: [] } });
    assert.deepEqual(lifecycleHookConditions(hooked), [
      { type: 'Drainable', status: 'False', reason: 'HookPresent', severity: 'Warning', message: 'Drain operation currently blocked by: [{Name:Backup Owner:backup-controller}]' },
      { type: 'Terminable', status: 'True' },
    ]);
  });
});

describe('machine status: nextStatus', () => {
  it('records Failed with its reason and message, and the instance state as Unknown', () => {
    const s = nextStatus(machine(), { phase: 'Provisioning', providerStatus: { instanceState: 'running', instanceId: 'i-1' } } as MachineStatus, { phase: 'Failed', failure: { reason: 'InvalidConfiguration', message: 'spec.providerSpec.value.instanceType: Required value' } }, T1);
    assert.equal(s.phase, 'Failed');
    assert.equal(s.errorReason, 'InvalidConfiguration');
    assert.equal(s.errorMessage, 'spec.providerSpec.value.instanceType: Required value');
    assert.deepEqual(s.providerStatus, { instanceState: 'Unknown', instanceId: 'i-1' });
    assert.equal(s.lastUpdated, T1);
  });

  it('clears the error fields on every other phase, and keeps them when no phase is given (a drain write)', () => {
    const failed = { phase: 'Failed', errorReason: 'InvalidConfiguration', errorMessage: 'x' } as MachineStatus;
    const deleting = nextStatus(machine(), failed, { phase: 'Deleting' }, T1);
    assert.equal(deleting.errorReason, undefined);
    assert.equal(deleting.errorMessage, undefined);
    const drained = nextStatus(machine(), failed, { conditions: [trueCondition('Drained')] }, T1);
    assert.equal(drained.errorMessage, 'x');
    assert.equal(drained.phase, 'Failed');
  });

  it('moves lastUpdated only when something else changed', () => {
    const once = nextStatus(machine(), undefined, { phase: 'Provisioned', update: { addresses: [{ type: 'InternalIP', address: '127.1.0.9' }], providerStatus: { instanceState: 'running' } } }, T0);
    assert.equal(once.lastUpdated, T0);
    assert.deepEqual(once.addresses, [{ type: 'InternalIP', address: '127.1.0.9' }]);
    const again = nextStatus(machine(), once, { phase: 'Provisioned', update: { addresses: [{ type: 'InternalIP', address: '127.1.0.9' }], providerStatus: { instanceState: 'running' } } }, T1);
    assert.deepEqual(again, once);
    assert.equal(nextStatus(machine(), once, { phase: 'Running' }, T1).lastUpdated, T1);
  });
});

describe('machine object patch', () => {
  it('patches only what differs: providerID, labels and annotations merged', () => {
    const m = machine({ labels: { 'machine.openshift.io/zone': 'local-a', keep: 'me' }, providerID: 'shipyard://local/local-a/i-0123456789abcdef0' });
    assert.equal(machinePatch(m, { providerID: 'shipyard://local/local-a/i-0123456789abcdef0', labels: { 'machine.openshift.io/zone': 'local-a' } }), undefined);
    assert.deepEqual(machinePatch(m, { labels: { 'machine.openshift.io/zone': 'local-a', 'machine.openshift.io/region': 'local' }, annotations: { 'machine.openshift.io/instance-state': 'running' } }), {
      metadata: { labels: { 'machine.openshift.io/region': 'local' }, annotations: { 'machine.openshift.io/instance-state': 'running' } },
    });
    assert.deepEqual(machinePatch(machine(), { providerID: 'p' }), { spec: { providerID: 'p' } });
  });
});
