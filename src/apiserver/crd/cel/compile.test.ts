import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { compileExpression, evaluateExpression, newBudget, perCallCostLimit, type EvalResult } from './compile.ts';

function run(rule: string, self: unknown = {}, oldSelf: unknown = null): EvalResult {
  const c = compileExpression(rule, 'rule');
  if (!c.ok) throw new Error(c.error);
  return evaluateExpression(c.expression, { self, oldSelf }, newBudget());
}

function value(rule: string, self?: unknown): unknown {
  const r = run(rule, self);
  if (r.kind !== 'value') throw new Error(`${rule}: ${JSON.stringify(r)}`);
  return r.value;
}

describe('CEL library', () => {
  const truths: Array<[string, unknown]> = [
    // Native CEL: macros, has(), sizes, strings.
    ['has(self.a) && !has(self.b)', { a: 1n }],
    ['self.l.all(x, x > 0) && self.l.exists(x, x == 2) && self.l.exists_one(x, x == 2)', { l: [1n, 2n] }],
    ['self.l.map(x, x * 2) == [2, 4] && self.l.filter(x, x > 1) == [2]', { l: [1n, 2n] }],
    ['size(self.s) == 3 && self.s.size() == 3 && size(self.l) == 2', { s: 'abc', l: [1n, 2n] }],
    ["self.s.startsWith('a') && self.s.endsWith('c') && self.s.contains('b')", { s: 'abc' }],
    ['self.replicas + 1 == 4', { replicas: 3n }],
    ['self.ratio > 1 && self.ratio < 2', { ratio: 1.5 }],
    ['self.?missing.orValue("dflt") == "dflt"', {}],
    // Kubernetes' regex library, in Go's dialect.
    ["self.s.matches('^[a-z]+$') && !self.s.matches('^[0-9]+$')", { s: 'abc' }],
    ["self.s.matches('(?i)^ABC$')", { s: 'abc' }],
    ["matches(self.s, 'b')", { s: 'abc' }],
    ["self.l.all(x, x.matches('^[a-z]+$'))", { l: ['a', 'b'] }],
    ["self.s.find('[0-9]+') == '12' && self.s.findAll('[0-9]+') == ['12', '34'] && self.s.findAll('[0-9]+', 1) == ['12']", { s: 'ab12c34' }],
    // Kubernetes' string and list extensions.
    ["self.s.charAt(1) == 'b' && self.s.replace('b', 'x') == 'axc'", { s: 'abc' }],
    ["'aaa'.replace('a', 'b', 2) == 'bba'", {}],
    ['self.l.isSorted() && !self.u.isSorted()', { l: [1n, 2n, 3n], u: [2n, 1n] }],
    ["['a', 'b'].isSorted()", {}],
    ['self.l.sum() == 6 && self.l.min() == 1 && self.l.max() == 3', { l: [1n, 2n, 3n] }],
    ['self.l.indexOf(2) == 1 && self.l.lastIndexOf(9) == -1', { l: [1n, 2n, 2n] }],
    // URLs and quantities.
    ["isURL(self.u) && url(self.u).getScheme() == 'https' && url(self.u).getHost() == 'example.com:8080'", { u: 'https://example.com:8080/x?a=b' }],
    ["url(self.u).getHostname() == 'example.com' && url(self.u).getPort() == '8080' && url(self.u).getEscapedPath() == '/x'", { u: 'https://example.com:8080/x?a=b' }],
    ["url(self.u).getQuery()['a'] == ['b', 'c']", { u: 'https://e.com/?a=b&a=c' }],
    ["isURL('/just/a/path') && !isURL('not a url') && !isURL('relative/path')", {}],
    ["isQuantity(self.q) && quantity(self.q).isLessThan(quantity('1Gi')) && !isQuantity('1x')", { q: '500Mi' }],
    ["quantity('1') == quantity('1000m') && quantity('1.5').add(1).compareTo(quantity('2500m')) == 0", {}],
    ["quantity('2').sub(quantity('500m')).asApproximateFloat() == 1.5 && quantity('2k').asInteger() == 2000 && quantity('-1').sign() == -1", {}],
    ["quantity('1.5').isInteger() == false && quantity('3').isInteger()", {}],
    // Timestamps, as date-time fields arrive.
    ["self.t > timestamp('2020-01-01T00:00:00Z')", { t: new Date() }],
  ];
  for (const [rule, self] of truths) it(rule, () => assert.equal(value(rule, self), true));

  it('reports evaluation errors as Kubernetes words them', () => {
    assert.deepEqual(run('self.a.b == 1', { a: {} }), { kind: 'error', message: 'No such key: b' });
    const bad = run("self.s.matches('(')", { s: 'x' });
    assert.equal(bad.kind, 'error');
    assert.match((bad as { message: string }).message, /invalid regular expression/);
    assert.match(JSON.stringify(run('[].min() == 1')), /min called on empty list/);
  });

  it('refuses functions Kubernetes 1.32 does not have (string reverse, cel-go list extensions)', () => {
    for (const rule of ["'abc'.reverse() == 'cba'", '[[1], [2]].flatten() == [1, 2]', '[1, 1].distinct() == [1]', '[2, 1].sort() == [1, 2]', '[1, 2].slice(0, 1) == [1]', 'lists.range(2) == [0, 1]']) {
      const c = compileExpression(rule, 'rule');
      assert.equal(c.ok, false, rule);
    }
  });

  it('names overridden functions as the rule wrote them in errors', () => {
    const c = compileExpression("'abc'.indexOf(1) == 0", 'rule');
    assert.equal(c.ok, false);
    assert.match((c as { error: string }).error, /'string\.indexOf\(int\)'/);
    assert.deepEqual(run("self.s.substring(5) == ''", { s: 'abc' }), { kind: 'error', message: 'index out of range: 5' });
  });

  it('refuses rules that do not compile, with the position', () => {
    assert.deepEqual(compileExpression('self.a ==', 'rule'), { ok: false, error: 'compilation failed: ERROR: <input>:1:10: Unexpected token: EOF' });
    assert.deepEqual(compileExpression('1 + "a" == 1', 'rule'), { ok: false, error: 'compilation failed: ERROR: <input>:1:1: no such overload: int + string' });
    assert.deepEqual(compileExpression('1 + 2', 'rule'), { ok: false, error: 'cel expression must evaluate to a bool' });
    assert.deepEqual(compileExpression('1 == 2', 'message'), { ok: false, error: 'messageExpression must evaluate to a string' });
    assert.equal(compileExpression("'x: ' + self.name", 'message').ok, true);
  });

  it('tells transition rules by their use of oldSelf', () => {
    const uses = (rule: string) => {
      const c = compileExpression(rule, 'rule');
      return c.ok && c.expression.usesOldSelf;
    };
    assert.equal(uses('has(oldSelf.featureSet) ? has(self.featureSet) : true'), true);
    assert.equal(uses('self.l.all(x, x in oldSelf.l)'), true);
    assert.equal(uses("self.oldSelf == 'x'"), false);
  });

  it('stops a runaway rule at the per-expression limit, even one whose result would swallow the error', () => {
    // Run to the end, these rules would take 10^9 steps: one the limit did not stop would run into the test's deadline.
    const l = Array.from({ length: 1000 }, (_, i) => BigInt(i));
    for (const rule of ['self.l.all(x, self.l.all(y, self.l.all(z, x + y + z >= 0)))', 'self.l.all(x, self.l.all(y, self.l.all(z, x + y + z >= 0))) || true']) {
      const budget = newBudget();
      const c = compileExpression(rule, 'rule');
      assert.ok(c.ok);
      assert.deepEqual(evaluateExpression(c.expression, { self: { l } }, budget), { kind: 'exceeded', limit: 'call' });
      assert.ok(budget.remaining <= 10_000_000 - perCallCostLimit);
    }
  });

  it('charges string work by length: building a huge string runs out of budget', () => {
    const r = run("self.l.map(x, self.s + self.s + self.s).all(y, size(y) > 0)", { l: Array.from({ length: 2000 }, () => 1n), s: 'x'.repeat(100_000) });
    assert.equal(r.kind, 'exceeded');
  });

  it('shares one request budget between rules', () => {
    const budget = newBudget();
    budget.remaining = 50;
    const c = compileExpression('self.l.all(x, x >= 0)', 'rule');
    assert.ok(c.ok);
    assert.deepEqual(evaluateExpression(c.expression, { self: { l: Array.from({ length: 100 }, () => 1n) } }, budget), { kind: 'exceeded', limit: 'budget' });
    assert.deepEqual(evaluateExpression(c.expression, { self: { l: [] } }, budget), { kind: 'exceeded', limit: 'budget' });
  });
});
