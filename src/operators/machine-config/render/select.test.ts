import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { roleLabel } from '../../../api/machineconfiguration/index.ts';
import { selectMachineConfigs } from './select.ts';
import { machineConfig, pool } from './testing.ts';

const configs = [machineConfig('00-master', 'master'), machineConfig('00-worker', 'worker'), machineConfig('50-infra', 'infra'), { ...machineConfig('no-labels', 'x'), metadata: { name: 'no-labels' } }];
const names = (s: ReturnType<typeof selectMachineConfigs>) => (s.ok ? s.configs.map((c) => c.metadata?.name) : s.error);

describe('selecting a pool\'s MachineConfigs', () => {
  it('takes the configs whose labels the machineConfigSelector matches', () => {
    assert.deepEqual(names(selectMachineConfigs(pool('worker'), configs)), ['00-worker']);
    assert.deepEqual(names(selectMachineConfigs(pool('infra', { roles: ['worker', 'infra'] }), configs)), ['00-worker', '50-infra']);
  });

  it('selects nothing, quietly, when the pool has no selector', () => {
    const p = pool('worker');
    delete p.spec.machineConfigSelector;
    const s = selectMachineConfigs(p, configs);
    assert.deepEqual(s, { ok: true, configs: [] });
  });

  it('selects nothing for {} and warns SelectingAll, as the MCO does', () => {
    const p = pool('worker');
    p.spec.machineConfigSelector = {};
    const s = selectMachineConfigs(p, configs);
    assert.ok(s.ok);
    assert.deepEqual(s.configs, []);
    assert.equal(s.warning?.reason, 'SelectingAll');
    assert.equal(s.warning?.message, 'This machineconfigpool is selecting all machineconfigs. A non-empty selector is required.');
  });

  it('reports an invalid selector instead of guessing', () => {
    const p = pool('worker');
    p.spec.machineConfigSelector = { matchExpressions: [{ key: roleLabel, operator: 'Near', values: ['worker'] }] };
    const s = selectMachineConfigs(p, configs);
    assert.equal(s.ok, false);
    assert.match(names(s) as string, /^invalid machineConfigSelector: .*Near/);
  });
});
