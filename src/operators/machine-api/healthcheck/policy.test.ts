import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { LegacyMachineHealthCheck, MachineHealthCheck } from '../../../api/machine/index.ts';
import { describeRules, legacyPolicyOf, parseUnhealthyConditions, policyOf } from './policy.ts';

const mhc = (spec: MachineHealthCheck['spec']): MachineHealthCheck => ({ apiVersion: 'machine.openshift.io/v1beta1', kind: 'MachineHealthCheck', metadata: { name: 'c', namespace: 'openshift-machine-api' }, spec });
const legacy: LegacyMachineHealthCheck = {
  apiVersion: 'healthchecking.openshift.io/v1alpha1',
  kind: 'MachineHealthCheck',
  metadata: { name: 'example', namespace: 'default' },
  spec: { selector: { matchLabels: { 'machine.openshift.io/cluster-api-machineset': 'cluster-worker-us-east-1a' } } },
};

/** ConfigMap node-unhealthy-conditions' `conditions` key exactly as the Machine API Operator's README shows it. */
const SEED_CONDITIONS = 'items:\n- name: NetworkUnavailable\n  timeout: 5m\n  status: True\n';

describe('MachineHealthCheck policy: v1beta1', () => {
  it('a spec stored without the server\'s defaults gets them: Ready False/Unknown 300s, 100%, 10m', () => {
    const r = policyOf(mhc({}));
    assert.ok(r.ok);
    assert.deepEqual(r.policy, {
      selector: undefined,
      unhealthyConditions: [
        { type: 'Ready', status: 'False', timeoutMs: 300_000 },
        { type: 'Ready', status: 'Unknown', timeoutMs: 300_000 },
      ],
      maxUnhealthy: '100%',
      nodeStartupTimeoutMs: 600_000,
    });
  });

  it('reads what is given: conditions with Go durations, an int maxUnhealthy, nodeStartupTimeout "0" (off)', () => {
    const r = policyOf(mhc({ selector: { matchLabels: { a: 'b' } }, unhealthyConditions: [{ type: 'Ready', status: 'Unknown', timeout: '1m30s' }], maxUnhealthy: 2, nodeStartupTimeout: '0' }));
    assert.ok(r.ok);
    assert.deepEqual(r.policy, { selector: { matchLabels: { a: 'b' } }, unhealthyConditions: [{ type: 'Ready', status: 'Unknown', timeoutMs: 90_000 }], maxUnhealthy: 2, nodeStartupTimeoutMs: 0 });
  });

  it('a duration that cannot be read names its field', () => {
    assert.deepEqual(policyOf(mhc({ unhealthyConditions: [{ type: 'Ready', status: 'False', timeout: '5 minutes' }] })), {
      ok: false,
      field: 'spec.unhealthyConditions[0].timeout',
      message: 'invalid duration "5 minutes" (expected e.g. "40s", "5m", "1m30s")',
    });
    const r = policyOf(mhc({ nodeStartupTimeout: 'soon' }));
    assert.equal(!r.ok && r.field, 'spec.nodeStartupTimeout');
  });
});

describe('MachineHealthCheck policy: v1alpha1 and node-unhealthy-conditions', () => {
  it('a selector only: Ready not True for 5 minutes, 100%, no startup timeout', () => {
    assert.deepEqual(legacyPolicyOf(legacy, []), {
      selector: legacy.spec!.selector,
      unhealthyConditions: [
        { type: 'Ready', status: 'False', timeoutMs: 300_000 },
        { type: 'Ready', status: 'Unknown', timeoutMs: 300_000 },
      ],
      maxUnhealthy: '100%',
      nodeStartupTimeoutMs: 0,
    });
  });

  it('the README\'s ConfigMap verbatim: its unquoted `status: True` is the status "True"; its items are added to Ready\'s', () => {
    const parsed = parseUnhealthyConditions(SEED_CONDITIONS);
    assert.deepEqual(parsed, { ok: true, rules: [{ type: 'NetworkUnavailable', status: 'True', timeoutMs: 300_000 }] });
    const policy = legacyPolicyOf(legacy, parsed.ok ? parsed.rules : []);
    assert.equal(describeRules(policy.unhealthyConditions), 'Ready=False for 5m0s, Ready=Unknown for 5m0s, NetworkUnavailable=True for 5m0s');
  });

  it('quoted statuses, Unknown, false, several items; an empty key or no items adds nothing', () => {
    const text = 'items:\n- name: Ready\n  timeout: 30s\n  status: "Unknown"\n- name: DiskPressure\n  timeout: 1h\n  status: false\n';
    assert.deepEqual(parseUnhealthyConditions(text), {
      ok: true,
      rules: [
        { type: 'Ready', status: 'Unknown', timeoutMs: 30_000 },
        { type: 'DiskPressure', status: 'False', timeoutMs: 3_600_000 },
      ],
    });
    for (const empty of [undefined, '', '   \n', 'items: []\n', 'items:\n', '# nothing\n']) assert.deepEqual(parseUnhealthyConditions(empty), { ok: true, rules: [] }, JSON.stringify(empty));
  });

  it('what cannot be read is refused with the item and field named, never thrown', () => {
    const cases: [string, RegExp][] = [
      ['items: [\n', /^not valid YAML: /],
      ['- name: Ready\n', /^expected a mapping with an "items" list$/],
      ['items: Ready\n', /^"items" must be a list$/],
      ['items:\n- Ready\n', /^items\[0\]: expected a mapping with name, timeout and status$/],
      ['items:\n- timeout: 5m\n  status: True\n', /^items\[0\]\.name: Required value/],
      ['items:\n- name: Ready\n  timeout: 5m\n  status: Maybe\n', /^items\[0\]\.status: Unsupported value: "Maybe": supported values: "True", "False", "Unknown"$/],
      ['items:\n- name: Ready\n  timeout: 5 minutes\n  status: "False"\n', /^items\[0\]\.timeout: invalid duration "5 minutes"/],
      ['items:\n- name: Ready\n  timeout: 300\n  status: "False"\n', /^items\[0\]\.timeout: Invalid value: 300: a duration such as "5m" or "300s"$/],
      ['items:\n- name: Ready\n  status: "False"\n', /^items\[0\]\.timeout: Invalid value: null/],
    ];
    for (const [text, message] of cases) {
      const r = parseUnhealthyConditions(text);
      assert.equal(r.ok, false, text);
      assert.match(!r.ok ? r.message : '', message, text);
    }
  });
});
