import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { compileExpression, evaluateExpression, newBudget, type EvalResult } from './compile.ts';

function run(rule: string, self: unknown = null): EvalResult {
  const c = compileExpression(rule, 'rule');
  if (!c.ok) throw new Error(c.error);
  return evaluateExpression(c.expression, { self, oldSelf: null }, newBudget());
}

describe("CEL's string extensions as Kubernetes 1.32 enables them", () => {
  const truths = [
    "'hello'.charAt(4) == 'o' && 'hello'.charAt(5) == '' && 'héllo'.charAt(1) == 'é'",
    "'hello mellow'.indexOf('') == 0 && 'hello mellow'.indexOf('ello') == 1 && 'hello mellow'.indexOf('jello') == -1 && 'hello mellow'.indexOf('ello', 2) == 7",
    "'😀a'.indexOf('a') == 1 && '😀a😀a'.lastIndexOf('a') == 3",
    "'hello mellow'.lastIndexOf('') == 12 && 'hello mellow'.lastIndexOf('ello') == 7 && 'hello mellow'.lastIndexOf('ello', 6) == 1",
    "'TacoCÆt Xii'.lowerAscii() == 'tacocÆt xii' && 'TacoCÆt Xii'.upperAscii() == 'TACOCÆT XII'",
    "'hello hello'.replace('he', 'we') == 'wello wello' && 'hello hello'.replace('he', 'we', 1) == 'wello hello' && 'hello hello'.replace('he', 'we', 0) == 'hello hello'",
    "'ab'.replace('', '-') == '-a-b-' && 'ab'.replace('', '-', 2) == '-a-b'",
    "'a b c'.split(' ') == ['a', 'b', 'c'] && 'a b c'.split(' ', 0) == [] && 'a b c'.split(' ', 1) == ['a b c'] && 'a b c'.split(' ', 2) == ['a', 'b c'] && 'é😀'.split('') == ['é', '😀']",
    "'tacocat'.substring(4) == 'cat' && 'tacocat'.substring(0, 4) == 'taco' && '😀abc'.substring(1, 2) == 'a'",
    "'  \\ttrim\\n    '.trim() == 'trim' && '\\u00a0x\\u3000'.trim() == 'x'",
    "['hello', 'mellow'].join() == 'hellomellow' && ['hello', 'mellow'].join(' ') == 'hello mellow' && [].join('/') == ''",
    "strings.quote('single-quote with \"double quote\"') == '\"single-quote with \\\\\"double quote\\\\\"\"' && strings.quote('two escape sequences \\a\\n') == '\"two escape sequences \\\\a\\\\n\"'",
  ];
  for (const rule of truths) it(rule, () => assert.deepEqual(run(rule), { kind: 'value', value: true }));

  it('formats printf-style clauses (arguments of mixed types come from data: literals must be homogeneous)', () => {
    assert.deepEqual(run("'%s and %d, %.2f, %e, %b, %x, %X, %o, 100%%'.format(self) == 'a and 42, 3.14, 2.718280e+00, 101, 1a, 1A, 36, 100%'", ['a', 42n, 3.14159, 2.71828, 5n, 26n, 26n, 30n]), { kind: 'value', value: true });
    assert.deepEqual(run(`'%s %s %s %s'.format(self) == '[1, "a"] {"a":true, "b":2} null 1e+06'`, [[1n, 'a'], { b: 2n, a: true }, null, 1e6]), { kind: 'value', value: true });
  });

  it('words errors as cel-go does', () => {
    assert.deepEqual(run("'hello'.charAt(-1) == ''"), { kind: 'error', message: 'index out of range: -1' });
    assert.deepEqual(run("'hello mellow'.indexOf('ello', 20) == 0"), { kind: 'error', message: 'index out of range: 20' });
    assert.deepEqual(run("'tacocat'.substring(2, 1) == ''"), { kind: 'error', message: 'invalid substring range. start: 2, end: 1' });
    assert.deepEqual(run("'%d'.format(['a']) == ''"), { kind: 'error', message: 'decimal clause can only be used on integers, was given string' });
    assert.deepEqual(run("'%s %s'.format(['a']) == ''"), { kind: 'error', message: 'index 1 out of range' });
  });

  it('matches in the RE2 dialect', () => {
    assert.deepEqual(run("self.matches('^[[:alpha:]]+$') && !self.matches('\\\\d')", 'abc'), { kind: 'value', value: true });
  });
});
