import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseDuration } from './duration.ts';

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
