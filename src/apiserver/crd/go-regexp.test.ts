import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { compileGoRegExp, goRegExpError } from './go-regexp.ts';

describe('compileGoRegExp', () => {
  const matches: Array<{ pattern: string; yes: string[]; no: string[] }> = [
    { pattern: '^[a-z0-9\\-]+$', yes: ['a-b'], no: ['A'] },
    { pattern: '(?i)^abc$', yes: ['ABC', 'abc'], no: ['abd'] },
    { pattern: '^foo\\-bar\\.baz$', yes: ['foo-bar.baz'], no: ['foo-barxbaz'] },
    { pattern: '\\Aab\\z', yes: ['ab'], no: ['ab\n'] },
    { pattern: '^[[:alpha:]][[:digit:]]+$', yes: ['a12'], no: ['1a'] },
    { pattern: '^(?P<name>[a-z]+)$', yes: ['abc'], no: ['ab1'] },
    { pattern: '^a{2,3}$', yes: ['aa', 'aaa'], no: ['a', 'aaaa'] },
    { pattern: '^x{$', yes: ['x{'], no: ['x'] },
    { pattern: '^\\pL+$', yes: ['héllo'], no: ['h1'] },
    { pattern: '^\\p{Greek}+$', yes: ['αβ'], no: ['ab'] },
    { pattern: '^[]a]+$', yes: [']a'], no: ['b'] },
    { pattern: '^\\x{41}$', yes: ['A'], no: ['B'] },
    { pattern: '^(?i)(x-[^][ ]+|text)/[a-z]+$', yes: ['TEXT/html', 'x-ab/c'], no: ['x-a[b/c', 'x-a]b/c', 'x-a b/c'] },
  ];
  for (const c of matches) {
    it(c.pattern, () => {
      const rx = compileGoRegExp(c.pattern);
      for (const s of c.yes) assert.ok(rx.test(s), `${c.pattern} should match ${JSON.stringify(s)}`);
      for (const s of c.no) assert.ok(!rx.test(s), `${c.pattern} should not match ${JSON.stringify(s)}`);
    });
  }
});

describe('goRegExpError', () => {
  const cases: Array<{ pattern: string; error: RegExp }> = [
    { pattern: '(?=a)', error: /invalid or unsupported Perl syntax: `\(\?=`/ },
    { pattern: '(?<!a)b', error: /invalid or unsupported Perl syntax/ },
    { pattern: '(a)\\1', error: /invalid escape sequence: `\\1`/ },
    { pattern: '(abc', error: /^error parsing regexp: / },
    { pattern: 'a{1001}', error: /invalid repeat count/ },
    { pattern: '[abc', error: /missing closing \]/ },
  ];
  for (const c of cases) it(c.pattern, () => assert.match(goRegExpError(c.pattern) ?? '', c.error));
  it('is undefined for a valid pattern', () => assert.equal(goRegExpError('^[a-z]+$'), undefined));
});
