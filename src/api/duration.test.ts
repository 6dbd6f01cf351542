import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { formatDuration, parseDuration } from './duration.ts';

describe('parseDuration (Go syntax)', () => {
  it('reads single and compound units', () => {
    assert.equal(parseDuration('40s'), 40_000);
    assert.equal(parseDuration('1m30s'), 90_000);
    assert.equal(parseDuration('300ms'), 300);
    assert.equal(parseDuration('1.5h'), 5_400_000);
    assert.equal(parseDuration('0'), 0);
  });
  it('refuses bare numbers and junk, quoting the input', () => {
    assert.throws(() => parseDuration('40'), /invalid duration "40"/);
    assert.throws(() => parseDuration('4x'), /invalid duration "4x"/);
    assert.throws(() => parseDuration('10s junk'), /invalid duration/);
  });
});

describe('formatDuration (Go time.Duration.String)', () => {
  it('prints as Go does, and reads back to the same value', () => {
    const cases: Array<[number, string]> = [
      [0, '0s'],
      [300, '300ms'],
      [5_000, '5s'],
      [1_500, '1.5s'],
      [90_000, '1m30s'],
      [120_000, '2m0s'],
      [3_600_000, '1h0m0s'],
      [3_661_000, '1h1m1s'],
      [-90_000, '-1m30s'],
    ];
    for (const [ms, text] of cases) {
      assert.equal(formatDuration(ms), text, `${ms} ms`);
      assert.equal(parseDuration(text), ms, text);
    }
  });
});
