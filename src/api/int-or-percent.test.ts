import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { IntOrPercentError, scaledValue } from './int-or-percent.ts';

describe('scaledValue', () => {
  it('takes integers as they are and scales percentages, rounding as asked', () => {
    assert.equal(scaledValue(3, 10, false), 3);
    assert.equal(scaledValue('25%', 10, true), 3);
    assert.equal(scaledValue('25%', 10, false), 2);
    assert.equal(scaledValue('25%', 1, true), 1);
    assert.equal(scaledValue('25%', 1, false), 0);
    assert.equal(scaledValue('100%', 7, false), 7);
    assert.equal(scaledValue(undefined, 7, true), 0);
  });

  it('refuses what is neither an integer nor a percentage, as kube does', () => {
    assert.throws(() => scaledValue('3', 10, true), IntOrPercentError);
    assert.throws(() => scaledValue('abc%', 10, true), IntOrPercentError);
    assert.throws(() => scaledValue(1.5, 10, true), IntOrPercentError);
  });
});
