import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { MachineSet } from '../../../api/machine/index.ts';
import { FakeClock } from '../../../runtime/clock.ts';
import { targetHealth, type Target } from './health.ts';
import { remediationFor, targetName, type RemediationDecision } from './remediation.ts';
import { defaultPolicy, failed, machine, machineSet, node, NS, providerSpec, skip, type MachineFixture } from './testing.ts';

const clock = new FakeClock(0, { wall: Date.parse('2026-03-01T12:00:00Z') });
const now = clock.wallNow();
const t0 = now - 3_600_000;
const check = { metadata: { namespace: NS, name: 'workers-check' } };
const notReady = node('n-a', { Ready: { status: 'False', since: t0 } });

function decide(f: Partial<MachineFixture>, sets: MachineSet[] = [machineSet()]): RemediationDecision {
  const m = machine('a', { created: t0, provisioned: t0, node: 'n-a', ...f });
  const t: Target = { machine: m, node: notReady, health: targetHealth(defaultPolicy, m, notReady, now) };
  return remediationFor(t, targetName(check, t), (ns, name) => sets.find((s) => s.metadata?.namespace === ns && s.metadata?.name === name));
}

const invalid = { ...failed, errorReason: 'InvalidConfiguration', errorMessage: 'spec.providerSpec.value.zone: Unsupported value: "zone-x"' } as const;

describe('MachineHealthCheck remediation', () => {
  it('an unhealthy Machine its MachineSet controls is deleted', () => {
    assert.deepEqual(decide({}), { action: 'delete' });
    assert.deepEqual(decide({ ...failed, errorReason: 'InstanceMissing' }), { action: 'delete' }, 'a vanished instance is replaced');
  });

  it('nothing to do for a healthy Machine or one already being deleted', () => {
    const m = machine('a', { created: t0, provisioned: t0, node: 'n-a' });
    const healthy = node('n-a', { Ready: { status: 'True', since: t0 } });
    assert.deepEqual(remediationFor({ machine: m, node: healthy, health: targetHealth(defaultPolicy, m, healthy, now) }, 'x', () => undefined), { action: 'none' });
    assert.deepEqual(decide({ deleting: true }), { action: 'none' });
  });

  it('skip-remediation (any value): left alone, and the event says why', () => {
    assert.deepEqual(decide({ annotations: { ...skip } }), {
      action: 'skip',
      event: {
        type: 'Normal',
        reason: 'RemediationSkipped',
        message: 'Machine openshift-machine-api/workers-check/a/n-a is unhealthy (Node n-a has had Ready=False for longer than 5m0s) but has annotation machine.openshift.io/skip-remediation, skipping remediation',
      },
    });
  });

  it('no controller, or one that is not a MachineSet: SkippedNoController', () => {
    assert.deepEqual(decide({ owner: null }), {
      action: 'skip',
      event: { type: 'Normal', reason: 'SkippedNoController', message: 'Machine openshift-machine-api/workers-check/a/n-a has no controller owner, skipping remediation' },
    });
    const d = decide({ owner: { kind: 'ControlPlaneMachineSet', name: 'cluster', uid: 'u', apiVersion: 'machine.openshift.io/v1' } });
    assert.equal(d.action === 'skip' && d.event.reason, 'SkippedNoController');
    assert.equal(d.action === 'skip' && d.event.message, 'Machine openshift-machine-api/workers-check/a/n-a is controlled by ControlPlaneMachineSet cluster, not a MachineSet, skipping remediation');
  });

  it('Failed with InvalidConfiguration while its MachineSet would recreate it from the same providerSpec: not deleted, a Warning says why', () => {
    const d = decide(invalid);
    assert.equal(d.action, 'skip');
    assert.deepEqual(d.action === 'skip' && { type: d.event.type, reason: d.event.reason }, { type: 'Warning', reason: 'RemediationSkipped' });
    assert.equal(
      d.action === 'skip' && d.event.message,
      'Machine openshift-machine-api/workers-check/a/n-a failed with InvalidConfiguration (spec.providerSpec.value.zone: Unsupported value: "zone-x") and MachineSet workers ' +
        'would replace it from the same providerSpec, so its replacement would fail the same way: not deleting it. ' +
        'Fix spec.template.spec.providerSpec of MachineSet workers (the Machine is then replaced), or delete the Machine',
    );
  });

  it('once the template is fixed, or the MachineSet is gone or another, the invalid Machine is deleted and replaced', () => {
    const fixed = machineSet({ providerSpec: { value: { ...providerSpec.value, zone: 'zone-b' } } });
    assert.deepEqual(decide(invalid, [fixed]), { action: 'delete' });
    assert.deepEqual(decide(invalid, []), { action: 'delete' });
    assert.deepEqual(decide(invalid, [machineSet({ uid: 'a-namesake' })]), { action: 'delete' });
  });

  it('a Machine whose own providerSpec was edited away from the template is deleted too: its replacement differs', () => {
    assert.deepEqual(decide({ ...invalid, providerSpec: { value: { ...providerSpec.value, instanceType: 'nope' } } }), { action: 'delete' });
  });
});
