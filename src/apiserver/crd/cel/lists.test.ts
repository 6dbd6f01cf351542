import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { compileExpression, evaluateExpression, newBudget, type EvalResult } from './compile.ts';

function run(rule: string, self: unknown = null): EvalResult {
  const c = compileExpression(rule, 'rule');
  if (!c.ok) throw new Error(c.error);
  return evaluateExpression(c.expression, { self, oldSelf: null }, newBudget());
}

describe('Kubernetes list library and CEL sets', () => {
  const truths: Array<[string, unknown]> = [
    ["[1, 2, 3].isSorted() && ['a', 'b', 'b', 'c'].isSorted() && ![2.0, 1.0].isSorted() && [1].isSorted() && [].isSorted()", null],
    ['[1, 3].sum() == 4 && [1.0, 3.0].sum() == 4.0 && [duration("1m"), duration("1s")].sum() == duration("61s")', null],
    ['[1, 3].min() == 1 && [1, 3].max() == 3 && ["b", "a"].min() == "a" && [timestamp("2020-01-01T00:00:00Z")].max() == timestamp("2020-01-01T00:00:00Z")', null],
    ["[1, 2, 2, 3].indexOf(2) == 1 && ['a', 'b', 'b', 'c'].lastIndexOf('b') == 2 && [1.0].indexOf(1.1) == -1", null],
    ['self.items.sum() == 6 && self.items.max() == 3 && self.items.min() + 1 == 2 && self.items.indexOf(3) == 2', { items: [1n, 2n, 3n] }],
    ['self.objs.map(o, o.n).max() == 2 && self.objs.filter(o, o.n > 1).size() == 1', { objs: [{ n: 1n }, { n: 2n }] }],
    ['sets.contains([1, 2, 3, 4], [2, 3]) && !sets.contains([1, 2, 3], [3, 4]) && sets.contains([1], [])', null],
    ['sets.equivalent([1, 2, 3], [3, 2, 1, 1]) && !sets.equivalent([1, 2], [1, 2, 3])', null],
    ['sets.intersects([1, 2], [2, 3]) && !sets.intersects([1], [2]) && !sets.intersects([], [1])', null],
    ['sets.contains(self.a, self.b) && sets.equivalent(self.b, [1])', { a: [1n, 2n], b: [1n] }],
    ["b'abc' < b'abd' && b'b' >= b'a'", null],
  ];
  for (const [rule, self] of truths) it(rule, () => assert.deepEqual(run(rule, self), { kind: 'value', value: true }));

  it('fails min and max of an empty list as Kubernetes does', () => {
    assert.deepEqual(run('self.max() == 1', []), { kind: 'error', message: 'max called on empty list' });
    assert.deepEqual(run('self.min() == 1', []), { kind: 'error', message: 'min called on empty list' });
  });
});
