import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { V1Node } from '@kubernetes/client-node';
import { FakeClock } from '../../../runtime/clock.ts';
import { evaluate, maxUnhealthyCount, remediationRestricted, startupClockStart, targetHealth, type Evaluation } from './health.ts';
import type { HealthCheckPolicy } from './policy.ts';
import { defaultPolicy, failed, machine, node } from './testing.ts';

const MIN = 60_000;

/** A clock whose wall time is well past every fixture's creation. */
const clockAt = (): FakeClock => new FakeClock(0, { wall: Date.parse('2026-03-01T12:00:00Z') });
const nodesOf = (...list: V1Node[]) => (name: string) => list.find((n) => n.metadata?.name === name);
const kinds = (e: Evaluation) => e.targets.map((t) => `${t.machine.metadata?.name}:${t.health.kind}`);

describe('MachineHealthCheck: a Machine\'s health', () => {
  it('a Node meeting no rule is healthy and counted', () => {
    const clock = clockAt();
    const t0 = clock.wallNow() - 60 * MIN;
    const e = evaluate(defaultPolicy, [machine('a', { created: t0, provisioned: t0, node: 'n-a' })], nodesOf(node('n-a', { Ready: { status: 'True', since: t0 } })), clock.wallNow());
    assert.deepEqual(kinds(e), ['a:healthy']);
    assert.equal(e.expectedMachines, 1);
    assert.equal(e.currentHealthy, 1);
    assert.equal(e.requeueAfterMs, undefined);
    assert.deepEqual(e.remediationAllowed, { status: 'True' });
    assert.equal(e.remediationsAllowed, 1);
  });

  it('a rule met for less than its timeout is pending, requeued for the moment it runs out, then unhealthy', () => {
    const clock = clockAt();
    const t0 = clock.wallNow() - 60 * MIN;
    const n = node('n-a', { Ready: { status: 'Unknown', since: clock.wallNow() - 2 * MIN } });
    const m = machine('a', { created: t0, provisioned: t0, node: 'n-a' });
    let h = targetHealth(defaultPolicy, m, n, clock.wallNow());
    assert.equal(h.kind, 'pending');
    assert.equal(h.kind === 'pending' && h.checkInMs, 3 * MIN);
    assert.deepEqual(h.kind === 'pending' && h.rule, { type: 'Ready', status: 'Unknown', timeoutMs: 300_000 });
    const e = evaluate(defaultPolicy, [m], nodesOf(n), clock.wallNow());
    assert.equal(e.requeueAfterMs, 3 * MIN);
    assert.equal(e.currentHealthy, 0, 'a Machine about to be unhealthy is not counted healthy, as upstream');
    clock.advance(3 * MIN - 1);
    assert.equal(targetHealth(defaultPolicy, m, n, clock.wallNow()).kind, 'pending');
    clock.advance(1);
    h = targetHealth(defaultPolicy, m, n, clock.wallNow());
    assert.deepEqual(h, { kind: 'unhealthy', reason: 'UnhealthyCondition', message: 'Node n-a has had Ready=Unknown for longer than 5m0s' });
  });

  it('rules are ORed: any one held long enough makes the Machine unhealthy; a status that differs matches nothing', () => {
    const clock = clockAt();
    const t0 = clock.wallNow() - 60 * MIN;
    const policy: HealthCheckPolicy = {
      ...defaultPolicy,
      unhealthyConditions: [
        { type: 'Ready', status: 'False', timeoutMs: 5 * MIN },
        { type: 'NetworkUnavailable', status: 'True', timeoutMs: 1 * MIN },
      ],
    };
    const m = machine('a', { created: t0, provisioned: t0, node: 'n-a' });
    const sick = node('n-a', { Ready: { status: 'True', since: t0 }, NetworkUnavailable: { status: 'True', since: clock.wallNow() - 2 * MIN } });
    assert.equal(targetHealth(policy, m, sick, clock.wallNow()).kind, 'unhealthy');
    const unknown = node('n-a', { Ready: { status: 'Unknown', since: t0 } });
    assert.equal(targetHealth(policy, m, unknown, clock.wallNow()).kind, 'healthy', 'Ready=Unknown is not Ready=False');
  });

  it('Failed is unhealthy at once, with the Machine\'s error', () => {
    const clock = clockAt();
    const h = targetHealth(defaultPolicy, machine('a', { created: clock.wallNow(), ...failed, errorReason: 'InvalidConfiguration', errorMessage: 'spec.providerSpec.value.zone: Unsupported value' }), undefined, clock.wallNow());
    assert.deepEqual(h, { kind: 'unhealthy', reason: 'MachineFailed', message: 'phase is Failed (InvalidConfiguration: spec.providerSpec.value.zone: Unsupported value)' });
  });

  it('a nodeRef naming a Node that does not exist is unhealthy at once', () => {
    const clock = clockAt();
    const h = targetHealth(defaultPolicy, machine('a', { created: clock.wallNow() - MIN, provisioned: clock.wallNow() - MIN, node: 'gone' }), undefined, clock.wallNow());
    assert.deepEqual(h, { kind: 'unhealthy', reason: 'NodeNotFound', message: 'its Node gone does not exist' });
  });

  it('a Machine being deleted is neither healthy nor unhealthy', () => {
    const clock = clockAt();
    const e = evaluate(defaultPolicy, [machine('a', { created: clock.wallNow() - MIN, node: 'n-a', deleting: true, ...failed })], nodesOf(node('n-a', { Ready: { status: 'True', since: 0 } })), clock.wallNow());
    assert.deepEqual(kinds(e), ['a:deleting']);
    assert.equal(e.currentHealthy, 0);
  });
});

describe('MachineHealthCheck: the node startup clock', () => {
  it('runs from when the instance came to exist (InstanceExists=True), not from lastUpdated', () => {
    const clock = clockAt();
    const created = clock.wallNow() - 30 * MIN;
    const provisioned = clock.wallNow() - 4 * MIN;
    // The machine controller rewrote the status a second ago: upstream's clock (lastUpdated) would start over.
    const m = machine('a', { created, provisioned, lastUpdated: clock.wallNow() - 1000 });
    assert.deepEqual(startupClockStart(m), { at: provisioned, from: 'instance' });
    assert.deepEqual(targetHealth(defaultPolicy, m, undefined, clock.wallNow()), { kind: 'starting', checkInMs: 6 * MIN });
    clock.advance(6 * MIN);
    assert.deepEqual(targetHealth(defaultPolicy, m, undefined, clock.wallNow()), {
      kind: 'unhealthy',
      reason: 'NodeStartupTimeout',
      message: 'no Node 10m0s after its instance was provisioned (nodeStartupTimeout 10m0s)',
    });
  });

  it('runs from creation while the instance does not exist (a Machine stuck Provisioning times out too)', () => {
    const clock = clockAt();
    const created = clock.wallNow() - 10 * MIN;
    const m = machine('a', { created, phase: 'Provisioning' });
    assert.deepEqual(startupClockStart(m), { at: created, from: 'creation' });
    assert.deepEqual(targetHealth(defaultPolicy, m, undefined, clock.wallNow()), {
      kind: 'unhealthy',
      reason: 'NodeStartupTimeout',
      message: 'no Node 10m0s after it was created (nodeStartupTimeout 10m0s)',
    });
  });

  it('off ("0"): a Machine without a Node waits for ever, is not healthy, and sets no requeue', () => {
    const clock = clockAt();
    const policy = { ...defaultPolicy, nodeStartupTimeoutMs: 0 };
    const e = evaluate(policy, [machine('a', { created: clock.wallNow() - 600 * MIN })], nodesOf(), clock.wallNow());
    assert.deepEqual(kinds(e), ['a:starting']);
    assert.equal(e.currentHealthy, 0);
    assert.equal(e.requeueAfterMs, undefined);
  });

  it('the requeue is the soonest of every Machine\'s expiry', () => {
    const clock = clockAt();
    const now = clock.wallNow();
    const e = evaluate(
      defaultPolicy,
      [
        machine('starting', { created: now - 8 * MIN, provisioned: now - 7 * MIN }),
        machine('pending', { created: now - 60 * MIN, provisioned: now - 60 * MIN, node: 'n' }),
      ],
      nodesOf(node('n', { Ready: { status: 'False', since: now - 4 * MIN } })),
      now,
    );
    assert.deepEqual(kinds(e), ['starting:starting', 'pending:pending']);
    assert.equal(e.requeueAfterMs, 1 * MIN);
  });
});

describe('MachineHealthCheck: maxUnhealthy', () => {
  const clock = clockAt();
  const now = clock.wallNow();
  const t0 = now - 60 * MIN;
  /** `healthy` healthy Machines and `sick` ones whose Node has been NotReady for an hour. */
  const fleet = (healthy: number, sick: number) => {
    const machines = [];
    const nodes: V1Node[] = [];
    for (let i = 0; i < healthy + sick; i++) {
      machines.push(machine(`m${i}`, { created: t0, provisioned: t0, node: `n${i}` }));
      nodes.push(node(`n${i}`, { Ready: { status: i < healthy ? 'True' : 'False', since: t0 } }));
    }
    return { machines, nodeOf: nodesOf(...nodes) };
  };
  const run = (maxUnhealthy: number | string, healthy: number, sick: number) => {
    const f = fleet(healthy, sick);
    return evaluate({ ...defaultPolicy, maxUnhealthy }, f.machines, f.nodeOf, now);
  };

  it('as a count: allowed up to it, short-circuited past it with OpenShift\'s condition', () => {
    const ok = run(2, 3, 2);
    assert.deepEqual([ok.expectedMachines, ok.currentHealthy, ok.unhealthyCount, ok.maxUnhealthy, ok.remediationsAllowed], [5, 3, 2, 2, 0]);
    assert.equal(ok.remediationAllowed.status, 'True');
    const over = run(1, 3, 2);
    assert.deepEqual(over.remediationAllowed, {
      status: 'False',
      severity: 'Warning',
      reason: 'TooManyUnhealthy',
      message: 'Remediation is not allowed, the number of not started or unhealthy machines exceeds maxUnhealthy (total: 5, unhealthy: 2, maxUnhealthy: 1)',
    });
    assert.equal(over.remediationsAllowed, 0);
  });

  it('as a percentage of the selected Machines, rounded down; a string of digits is a count', () => {
    assert.equal(maxUnhealthyCount('40%', 5), 2);
    assert.equal(maxUnhealthyCount('40%', 3), 1);
    assert.equal(maxUnhealthyCount('100%', 7), 7);
    assert.equal(maxUnhealthyCount('3', 10), 3);
    assert.equal(run('40%', 3, 2).remediationAllowed.status, 'True');
    const over = run('40%', 1, 2);
    assert.equal(over.remediationAllowed.status, 'False');
    assert.match(over.remediationAllowed.message ?? '', /\(total: 3, unhealthy: 2, maxUnhealthy: 40%\)$/);
    assert.equal(run('1', 1, 1).remediationsAllowed, 0);
    assert.equal(run('3', 4, 1).remediationsAllowed, 2);
  });

  it('0 (or 0%) blocks every remediation; the default 100% blocks none', () => {
    for (const zero of [0, '0', '0%']) {
      const e = run(zero, 4, 1);
      assert.equal(e.remediationAllowed.status, 'False', String(zero));
      assert.equal(e.remediationAllowed.reason, 'TooManyUnhealthy');
      assert.equal(e.maxUnhealthy, 0);
    }
    assert.equal(run(0, 5, 0).remediationAllowed.status, 'True', 'nothing unhealthy: nothing to hold back');
    const all = run('100%', 0, 5);
    assert.equal(all.remediationAllowed.status, 'True');
    assert.equal(all.remediationsAllowed, 0);
  });

  it('an unreadable value allows nothing and says which field', () => {
    const e = run('lots', 4, 1);
    assert.equal(e.maxUnhealthy, undefined);
    assert.deepEqual(e.remediationAllowed, {
      status: 'False',
      severity: 'Warning',
      reason: 'InvalidMaxUnhealthy',
      message: 'Remediation is not allowed: spec.maxUnhealthy: Invalid value: "lots": must be an integer or a percentage such as "40%"',
    });
  });

  it('Machines still starting count as unhealthy, but only a sick Node (past its timeout or not) warns RemediationRestricted', () => {
    const starting = machine('new', { created: now - MIN });
    const e = evaluate({ ...defaultPolicy, maxUnhealthy: 0 }, [starting], nodesOf(), now);
    assert.equal(e.unhealthyCount, 1);
    assert.equal(e.remediationAllowed.status, 'False');
    assert.equal(remediationRestricted(e, 0), undefined);
    const pending = evaluate({ ...defaultPolicy, maxUnhealthy: 0 }, [machine('p', { created: t0, provisioned: t0, node: 'n' })], nodesOf(node('n', { Ready: { status: 'Unknown', since: now - MIN } })), now);
    assert.equal(remediationRestricted(pending, 0), 'Remediation restricted due to exceeded number of unhealthy machines (total: 1, unhealthy: 1, maxUnhealthy: 0)');
    assert.equal(remediationRestricted(run(1, 3, 1), 1), undefined, 'allowed: no warning');
    assert.match(remediationRestricted(run('lots', 3, 1), 'lots') ?? '', /^Remediation is not allowed: spec\.maxUnhealthy: Invalid value/);
  });
});
