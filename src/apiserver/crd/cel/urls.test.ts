import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { compileExpression, evaluateExpression, newBudget, type EvalResult } from './compile.ts';

function run(rule: string, self: unknown = null): EvalResult {
  const c = compileExpression(rule, 'rule');
  if (!c.ok) throw new Error(c.error);
  return evaluateExpression(c.expression, { self, oldSelf: null }, newBudget());
}

describe('Kubernetes URL library, read as Go reads URLs', () => {
  const truths = [
    "isURL('https://user:pass@example.com:80/path?query=val#fragment') && isURL('/absolute-path') && !isURL('../relative-path') && !isURL('example.com') && !isURL('')",
    "url('https://example.com:80/').getScheme() == 'https' && url('HTTPS://example.com/').getScheme() == 'https' && url('/path').getScheme() == ''",
    "url('https://example.com:80/').getHost() == 'example.com:80' && url('https://Example.COM/').getHost() == 'Example.COM' && url('https://[::1]:80/').getHost() == '[::1]:80'",
    "url('https://example.com:80/').getHostname() == 'example.com' && url('https://[::1]:80/').getHostname() == '::1' && url('/path').getHostname() == ''",
    "url('https://example.com:80/').getPort() == '80' && url('https://example.com/').getPort() == ''",
    "url('https://example.com/path with spaces/').getEscapedPath() == '/path%20with%20spaces/' && url('https://example.com/a/../b').getEscapedPath() == '/a/../b' && url('https://e.com/x#frag').getEscapedPath() == '/x'",
    "url('https://example.com/a%2Fb').getEscapedPath() == '/a%2Fb'",
    "url('https://example.com/?k=v&k=v2&x=a+b&y=%20').getQuery() == {'k': ['v', 'v2'], 'x': ['a b'], 'y': [' ']} && url('https://example.com/').getQuery() == {}",
    "url('https://example.com/') == url('https://example.com/')",
  ];
  for (const rule of truths) it(rule, () => assert.deepEqual(run(rule), { kind: 'value', value: true }));

  it('words parse errors as Kubernetes does', () => {
    assert.deepEqual(run("url('../relative').getScheme() == ''"), { kind: 'error', message: 'URL parse error during conversion from string: parse "../relative": invalid URI for request' });
    assert.deepEqual(run("url('https://example.com:8x/').getScheme() == ''"), { kind: 'error', message: 'URL parse error during conversion from string: parse "https://example.com:8x/": invalid port ":8x" after host' });
    assert.deepEqual(run("url(':foo').getScheme() == ''"), { kind: 'error', message: 'URL parse error during conversion from string: parse ":foo": missing protocol scheme' });
  });
});
