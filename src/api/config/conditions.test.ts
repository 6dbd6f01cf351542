import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ClusterOperatorStatusCondition, Condition } from './common.ts';
import { findCondition, isConditionFalse, isConditionTrue, removeCondition, setCondition, setConditions } from './conditions.ts';

const t0 = '2026-01-01T00:00:00Z';
const t1 = '2026-01-01T00:05:00Z';

describe('setCondition', () => {
  it('adds a new condition with now as its transition time', () => {
    const out = setCondition<ClusterOperatorStatusCondition>(undefined, { type: 'Available', status: 'False', reason: 'Initializing' }, t0);
    assert.deepEqual(out, [{ type: 'Available', status: 'False', reason: 'Initializing', lastTransitionTime: t0 }]);
  });

  it('keeps the transition time when only reason or message change', () => {
    const before: ClusterOperatorStatusCondition[] = [{ type: 'Progressing', status: 'True', reason: 'A', message: 'a', lastTransitionTime: t0 }];
    const out = setCondition(before, { type: 'Progressing', status: 'True', reason: 'B' }, t1);
    assert.deepEqual(out, [{ type: 'Progressing', status: 'True', reason: 'B', lastTransitionTime: t0 }]);
  });

  it('moves the transition time when the status changes, and keeps the list order', () => {
    const before: ClusterOperatorStatusCondition[] = [
      { type: 'Available', status: 'False', lastTransitionTime: t0 },
      { type: 'Degraded', status: 'False', lastTransitionTime: t0 },
    ];
    const out = setCondition(before, { type: 'Available', status: 'True', reason: 'AsExpected', message: 'Done' }, new Date(t1));
    assert.deepEqual(out.map((c) => [c.type, c.status, c.lastTransitionTime]), [['Available', 'True', t1], ['Degraded', 'False', t0]]);
  });

  it('never modifies its input', () => {
    const before = Object.freeze([Object.freeze<ClusterOperatorStatusCondition>({ type: 'Available', status: 'False', lastTransitionTime: t0 })]);
    const out = setCondition(before, { type: 'Available', status: 'True' }, t1);
    assert.equal(before[0]!.status, 'False');
    assert.notEqual(out, before);
  });

  it('works on metav1.Condition lists too, and in sequence', () => {
    const out = setConditions<Condition>([], [{ type: 'Ready', status: 'True', reason: 'Ok', message: '' }, { type: 'Ready', status: 'True', reason: 'Ok', message: 'x' }], t0);
    assert.deepEqual(out, [{ type: 'Ready', status: 'True', reason: 'Ok', message: 'x', lastTransitionTime: t0 }]);
  });
});

describe('condition lookups', () => {
  const list: ClusterOperatorStatusCondition[] = [
    { type: 'Available', status: 'True', lastTransitionTime: t0 },
    { type: 'Degraded', status: 'False', lastTransitionTime: t0 },
  ];
  it('find, true, false, remove', () => {
    assert.equal(findCondition(list, 'Degraded')?.status, 'False');
    assert.equal(findCondition(list, 'Upgradeable'), undefined);
    assert.equal(isConditionTrue(list, 'Available'), true);
    assert.equal(isConditionTrue(list, 'Degraded'), false);
    assert.equal(isConditionFalse(list, 'Degraded'), true);
    assert.equal(isConditionFalse(list, 'Upgradeable'), false);
    assert.deepEqual(removeCondition(list, 'Available').map((c) => c.type), ['Degraded']);
    assert.equal(list.length, 2);
  });
});
