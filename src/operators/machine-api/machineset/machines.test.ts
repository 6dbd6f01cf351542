import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Machine, MachineSet } from '../../../api/machine/index.ts';
import { checkSelector, countMachines, machineFromTemplate } from './machines.ts';

const SET_LABEL = 'machine.openshift.io/cluster-api-machineset';

function set(o: { selector?: MachineSet['spec']['selector']; labels?: Record<string, string> } = {}): MachineSet {
  return {
    metadata: { name: 'w', namespace: 'ns', uid: 'u-w' },
    spec: {
      replicas: 2,
      selector: 'selector' in o ? o.selector : { matchLabels: { [SET_LABEL]: 'w' } },
      template: {
        metadata: { labels: o.labels ?? { [SET_LABEL]: 'w', role: 'worker' }, annotations: { note: 'n' } },
        spec: { providerSpec: { value: { instanceType: 's.large' } }, taints: [{ key: 'k', effect: 'NoSchedule' }] },
      },
    },
  };
}

function machine(name: string, o: { labels?: Record<string, string>; owner?: string; ownerKind?: string; deleting?: boolean; namespace?: string } = {}): Machine {
  return {
    metadata: {
      name,
      namespace: o.namespace ?? 'ns',
      uid: `u-${name}`,
      labels: o.labels ?? { [SET_LABEL]: 'w' },
      ...(o.owner ? { ownerReferences: [{ apiVersion: 'machine.openshift.io/v1beta1', kind: o.ownerKind ?? 'MachineSet', name: 'x', uid: o.owner, controller: true }] } : {}),
      ...(o.deleting ? { deletionTimestamp: '2024-01-01T00:00:00Z' as never } : {}),
    },
    spec: {},
  };
}

describe('checkSelector', () => {
  it('accepts a selector that selects the template', () => {
    const check = checkSelector(set());
    assert.ok(check.ok);
    assert.equal(check.matches({ [SET_LABEL]: 'w' }), true);
    assert.equal(check.matches({ [SET_LABEL]: 'v' }), false);
  });

  it('refuses a selector that does not select the template, in upstream\'s words', () => {
    const check = checkSelector(set({ labels: { [SET_LABEL]: 'other' } }));
    assert.deepEqual(check, { ok: false, message: 'failed validation on MachineSet "w" label selector, cannot match any machines' });
  });

  it('refuses an empty or missing selector, which would select every Machine of the namespace', () => {
    for (const selector of [{}, undefined]) {
      const check = checkSelector(set({ selector }));
      assert.equal(check.ok, false);
      assert.match(!check.ok ? check.message : '', /spec\.selector: Required value/);
    }
  });

  it('refuses an invalid selector, naming the field', () => {
    const check = checkSelector(set({ selector: { matchExpressions: [{ key: SET_LABEL, operator: 'Near', values: ['w'] }] } }));
    assert.equal(check.ok, false);
    assert.match(!check.ok ? check.message : '', /spec\.selector/);
  });
});

describe('countMachines', () => {
  it('counts its own and the matching orphans (to adopt), sorted by name; leaves out the rest', () => {
    const ms = set();
    const check = checkSelector(ms);
    assert.ok(check.ok);
    const own = machine('w-b', { owner: 'u-w' });
    const orphan = machine('w-a');
    const candidates = [
      own,
      orphan,
      machine('w-c', { owner: 'u-other' }),
      machine('w-d', { owner: 'u-w', deleting: true }),
      machine('w-e', { labels: { [SET_LABEL]: 'v' } }),
      machine('w-f', { namespace: 'elsewhere' }),
      own,
    ];
    const { counted, adopt } = countMachines(ms, check.matches, candidates);
    assert.deepEqual(counted.map((m) => m.metadata?.name), ['w-a', 'w-b']);
    assert.deepEqual(adopt.map((m) => m.metadata?.name), ['w-a']);
  });

  it('an orphan being deleted is not adopted', () => {
    const ms = set();
    const check = checkSelector(ms);
    assert.ok(check.ok);
    assert.deepEqual(countMachines(ms, check.matches, [machine('w-a', { deleting: true })]), { counted: [], adopt: [] });
  });
});

describe('machineFromTemplate', () => {
  it('copies the template\'s labels, annotations and spec, with a generated name and the set as controller', () => {
    const ms = set();
    const m = machineFromTemplate(ms);
    assert.deepEqual(m, {
      apiVersion: 'machine.openshift.io/v1beta1',
      kind: 'Machine',
      metadata: {
        generateName: 'w-',
        namespace: 'ns',
        labels: { [SET_LABEL]: 'w', role: 'worker' },
        annotations: { note: 'n' },
        ownerReferences: [{ apiVersion: 'machine.openshift.io/v1beta1', kind: 'MachineSet', name: 'w', uid: 'u-w', controller: true, blockOwnerDeletion: true }],
      },
      spec: { providerSpec: { value: { instanceType: 's.large' } }, taints: [{ key: 'k', effect: 'NoSchedule' }] },
    });
    // A copy: the cached set is frozen and must stay untouched.
    m.metadata!.labels!.role = 'changed';
    assert.equal(ms.spec.template!.metadata!.labels!.role, 'worker');
  });
});
