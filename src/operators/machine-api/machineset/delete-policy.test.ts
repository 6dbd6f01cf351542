import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { machineAnnotations, type Machine } from '../../../api/machine/index.ts';
import { formatTimestamp } from '../../../api/time.ts';
import { deletePriority, machinesToDelete } from './delete-policy.ts';

const NOW = Date.parse('2024-06-01T00:00:00Z');
const DAY = 24 * 3600_000;

function machine(name: string, o: { ageDays?: number; annotations?: Record<string, string>; nodeRef?: boolean; errorReason?: string; deleting?: boolean } = {}): Machine {
  return {
    metadata: {
      name,
      namespace: 'openshift-machine-api',
      creationTimestamp: (o.ageDays === undefined ? undefined : formatTimestamp(NOW - o.ageDays * DAY)) as never,
      ...(o.annotations ? { annotations: o.annotations } : {}),
      ...(o.deleting ? { deletionTimestamp: formatTimestamp(NOW) as never } : {}),
    },
    spec: {},
    status: { ...(o.nodeRef ? { nodeRef: { kind: 'Node', name: `node-${name}` } } : {}), ...(o.errorReason ? { errorReason: o.errorReason } : {}) },
  };
}

const names = (ms: readonly Machine[]) => ms.map((m) => m.metadata?.name);

describe('deletePriority', () => {
  const annotated = machine('a', { ageDays: 1, annotations: { [machineAnnotations.deleteMachine]: 'true' }, nodeRef: true });
  const legacy = machine('l', { ageDays: 1, annotations: { [machineAnnotations.legacyDeleteMachine]: 'yes' }, nodeRef: true });
  const emptyValue = machine('e', { ageDays: 1, annotations: { [machineAnnotations.deleteMachine]: '' }, nodeRef: true });
  const failed = machine('f', { ageDays: 1, errorReason: 'InvalidConfiguration' });
  const deleting = machine('d', { ageDays: 1, deleting: true, nodeRef: true });
  const running = machine('r', { ageDays: 1, nodeRef: true });
  const pending = machine('p', { ageDays: 1 });
  const cases: Array<[string, Machine, Record<'Random' | 'Oldest' | 'Newest', number | ((p: number) => boolean)>]> = [
    ['being deleted', deleting, { Random: 100, Oldest: 100, Newest: 100 }],
    ['annotated', annotated, { Random: 50, Oldest: 100, Newest: 100 }],
    ['annotated (the older key)', legacy, { Random: 50, Oldest: 100, Newest: 100 }],
    ['failed (errorReason)', failed, { Random: 50, Oldest: 100, Newest: 100 }],
    ['annotated with an empty value: not marked', emptyValue, { Random: 20, Oldest: (p) => p > 0 && p < 1, Newest: (p) => p > 99 && p < 100 }],
    ['running, a day old', running, { Random: 20, Oldest: (p) => Math.abs(p - 50 * (1 - Math.exp(-1 / 100))) < 1e-9, Newest: (p) => Math.abs(p - (100 - 50 * (1 - Math.exp(-1 / 100)))) < 1e-9 }],
    ['no Node yet', pending, { Random: 40, Oldest: (p) => p < 1, Newest: (p) => p > 99 }],
  ];
  for (const [what, m, want] of cases) {
    for (const policy of ['Random', 'Oldest', 'Newest'] as const) {
      it(`${what} under ${policy}`, () => {
        const p = deletePriority(policy, m, NOW);
        const expected = want[policy];
        if (typeof expected === 'number') assert.equal(p, expected);
        else assert.ok(expected(p), `priority ${p}`);
      });
    }
  }

  it('an unset or empty policy is Random', () => {
    assert.equal(deletePriority(undefined, pending, NOW), 40);
    assert.equal(deletePriority('', running, NOW), 20);
  });

  it('no creation time, or one in the future, is age 0 (Oldest 0, Newest 100)', () => {
    const noTime = machine('n');
    const future = machine('x', { ageDays: -1 });
    for (const m of [noTime, future]) {
      assert.equal(deletePriority('Oldest', m, NOW), 0);
      assert.equal(deletePriority('Newest', m, NOW), 100);
    }
  });

  it('Oldest never reaches a marked machine\'s 100, however old', () => {
    assert.ok(deletePriority('Oldest', machine('old', { ageDays: 10_000 }), NOW) <= 50);
  });
});

describe('machinesToDelete', () => {
  const set = [
    machine('m-c', { ageDays: 3, nodeRef: true }),
    machine('m-a', { ageDays: 1, nodeRef: true }),
    machine('m-b', { ageDays: 2, nodeRef: true }),
    machine('m-d', { ageDays: 5, nodeRef: true }),
  ];

  it('Oldest takes the oldest, Newest the newest', () => {
    assert.deepEqual(names(machinesToDelete(set, 2, 'Oldest', NOW)), ['m-d', 'm-c']);
    assert.deepEqual(names(machinesToDelete(set, 2, 'Newest', NOW)), ['m-a', 'm-b']);
  });

  it('Random breaks its ties by name, so the same state picks the same victims', () => {
    assert.deepEqual(names(machinesToDelete(set, 2, 'Random', NOW)), ['m-a', 'm-b']);
    assert.deepEqual(names(machinesToDelete([...set].reverse(), 2, 'Random', NOW)), ['m-a', 'm-b']);
  });

  it('Random prefers a Machine without a Node', () => {
    const withPending = [...set, machine('m-z', { ageDays: 4 })];
    assert.deepEqual(names(machinesToDelete(withPending, 1, 'Random', NOW)), ['m-z']);
  });

  it('an annotated Machine goes first under every policy, whatever its age', () => {
    for (const policy of ['Random', 'Oldest', 'Newest'] as const) {
      const marked = machine('m-m', { ageDays: 2.5, annotations: { [machineAnnotations.deleteMachine]: 'true' }, nodeRef: true });
      assert.deepEqual(names(machinesToDelete([...set, marked], 1, policy, NOW)), ['m-m'], policy);
    }
  });

  it('under Newest, an annotated Machine beats one created this very second (both score 100)', () => {
    const brandNew = machine('a-new', { ageDays: 0, nodeRef: true });
    const marked = machine('z-marked', { ageDays: 3, annotations: { [machineAnnotations.deleteMachine]: '1' }, nodeRef: true });
    assert.equal(deletePriority('Newest', brandNew, NOW), 100);
    assert.deepEqual(names(machinesToDelete([brandNew, marked], 1, 'Newest', NOW)), ['z-marked']);
  });

  it('a failed Machine goes before healthy ones', () => {
    const failed = machine('m-f', { ageDays: 1, errorReason: 'InvalidConfiguration', nodeRef: true });
    for (const policy of ['Random', 'Oldest', 'Newest'] as const) assert.deepEqual(names(machinesToDelete([...set, failed], 1, policy, NOW)), ['m-f'], policy);
  });

  it('returns nothing for a count of 0 and everything for a count past the size', () => {
    assert.deepEqual(machinesToDelete(set, 0, 'Random', NOW), []);
    assert.equal(machinesToDelete(set, 9, 'Oldest', NOW).length, 4);
  });
});
