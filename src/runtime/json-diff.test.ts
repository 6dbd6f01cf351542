/**
 * The unified diff of two JSON values: sorted keys so key order is no change, `-` before `+`
 * for a changed line, hunks with two lines of context and their line ranges, nothing for equal
 * values.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { jsonDiff } from './json-diff.ts';

describe('runtime/json-diff', () => {
  it('is empty for values that print the same, whatever their key order', () => {
    assert.equal(jsonDiff({ a: 1, b: [1, 2] }, { b: [1, 2], a: 1 }), '');
  });

  it('shows an added field with the lines around it', () => {
    assert.equal(jsonDiff({}, { servicesSubnet: '127.64.0.0/16' }), ['@@ -1,1 +1,3 @@', '-{}', '+{', '+  "servicesSubnet": "127.64.0.0/16"', '+}'].join('\n'));
  });

  it('a changed value is one - and one + line; distant changes are separate hunks', () => {
    const before = { a: 1, b: { c: ['x', 'y'] }, e: 5, f: 6, g: 7, h: 8, i: 9, j: 10 };
    const after = { a: 1, b: { c: ['x', 'z'] }, e: 5, f: 6, g: 7, h: 8, i: 9, j: 11 };
    assert.equal(
      jsonDiff(before, after),
      [
        '@@ -4,5 +4,5 @@',
        '     "c": [',
        '       "x",',
        '-      "y"',
        '+      "z"',
        '     ]',
        '   },',
        '@@ -12,4 +12,4 @@',
        '   "h": 8,',
        '   "i": 9,',
        '-  "j": 10',
        '+  "j": 11',
        ' }',
      ].join('\n'),
    );
  });

  it('context is settable', () => {
    assert.equal(jsonDiff({ a: 1, b: 2, c: 3 }, { a: 1, b: 4, c: 3 }, { context: 0 }), ['@@ -3,1 +3,1 @@', '-  "b": 2,', '+  "b": 4,'].join('\n'));
  });
});
