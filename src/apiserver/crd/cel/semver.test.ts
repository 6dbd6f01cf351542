import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { compileExpression, evaluateExpression, newBudget, type EvalResult } from './compile.ts';

function run(rule: string, self: unknown = null): EvalResult {
  const c = compileExpression(rule, 'rule');
  if (!c.ok) throw new Error(c.error);
  return evaluateExpression(c.expression, { self, oldSelf: null }, newBudget());
}

describe('Kubernetes semver library', () => {
  const truths = [
    "isSemver('1.0.0') && isSemver('0.1.0-alpha.1+build.5') && !isSemver('200K') && !isSemver('v1.0') && !isSemver('1.0') && !isSemver('01.0.0')",
    "isSemver('v1.0', true) && isSemver('1.0', true) && isSemver('01.01.01', true) && !isSemver('1.0-rc1', true)",
    "semver('1.2.3').major() == 1 && semver('1.2.3').minor() == 2 && semver('1.2.3').patch() == 3",
    "semver('v1.0', true) == semver('1.0.0') && semver('01.01.01', true) == semver('1.1.1')",
    "semver('1.2.3').compareTo(semver('1.2.3')) == 0 && semver('1.2.3').compareTo(semver('2.0.0')) == -1 && semver('1.2.3').compareTo(semver('0.1.2')) == 1",
    "semver('1.10.0').isGreaterThan(semver('1.9.0')) && semver('1.0.0-alpha').isLessThan(semver('1.0.0')) && semver('1.0.0-alpha.1').isLessThan(semver('1.0.0-alpha.beta'))",
    "semver('1.0.0-2').isLessThan(semver('1.0.0-10')) && semver('1.0.0+a') == semver('1.0.0+b')",
  ];
  for (const rule of truths) it(rule, () => assert.deepEqual(run(rule), { kind: 'value', value: true }));

  it('words parse errors as blang/semver does', () => {
    assert.deepEqual(run("semver('1.0').major() == 1"), { kind: 'error', message: 'No Major.Minor.Patch elements found' });
    assert.deepEqual(run("semver('1.a.0').major() == 1"), { kind: 'error', message: 'Invalid character(s) found in minor number "a"' });
    assert.deepEqual(run("semver('01.0.0').major() == 1"), { kind: 'error', message: 'Major number must not contain leading zeroes "01"' });
  });
});

describe('optional types', () => {
  it('has optional.of, none, ofNonZeroValue, or, orValue, hasValue, value and optional field selection', () => {
    for (const rule of [
      'optional.of(1).hasValue() && !optional.none().hasValue() && optional.of(1).value() == 1',
      "!optional.ofNonZeroValue('').hasValue() && !optional.ofNonZeroValue(0).hasValue() && optional.ofNonZeroValue([1]).hasValue()",
      'optional.none().or(optional.of(2)).value() == 2 && optional.none().orValue(3) == 3',
      "self.?a.orValue('x') == 'y' && !self.?b.hasValue() && self.?c.d.orValue(1) == 1",
    ]) {
      assert.deepEqual(run(rule, { a: 'y' }), { kind: 'value', value: true }, rule);
    }
  });
});
