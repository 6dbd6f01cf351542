import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { formatMicroTime, formatTimestamp } from './time.ts';

describe('formatTimestamp', () => {
  it('writes whole seconds in UTC, as metav1.Time does', () => {
    assert.equal(formatTimestamp(Date.UTC(2024, 4, 1, 12, 0, 0, 999)), '2024-05-01T12:00:00Z');
    assert.equal(formatTimestamp(new Date(Date.UTC(1999, 11, 31, 23, 59, 59, 1))), '1999-12-31T23:59:59Z');
    assert.equal(formatTimestamp(0), '1970-01-01T00:00:00Z');
  });

  it('keeps the extended years of dates past 9999', () => {
    assert.equal(formatTimestamp(Date.UTC(10000, 0, 1, 0, 0, 0, 500)), '+010000-01-01T00:00:00Z');
  });

  it('gives each second its own text, whatever was formatted before', () => {
    const base = Date.UTC(2024, 4, 1, 12, 0, 0);
    for (const [at, text] of [
      [base + 999, '2024-05-01T12:00:00Z'],
      [base + 1000, '2024-05-01T12:00:01Z'],
      [base + 1, '2024-05-01T12:00:00Z'],
      [base - 1, '2024-05-01T11:59:59Z'],
      [-0.5, '1970-01-01T00:00:00Z'],
      [-500, '1969-12-31T23:59:59Z'],
      [-0.5, '1970-01-01T00:00:00Z'],
    ] as const) assert.equal(formatTimestamp(at), text, String(at));
    assert.equal(formatTimestamp(new Date(base + 1500)), '2024-05-01T12:00:01Z');
  });

  it('refuses an invalid time', () => {
    assert.throws(() => formatTimestamp(NaN), RangeError);
    assert.throws(() => formatTimestamp(new Date('no')), RangeError);
  });

  it('formats now when given no time', () => {
    assert.match(formatTimestamp(), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
  });
});

describe('formatMicroTime', () => {
  it('writes six fractional digits', () => {
    assert.equal(formatMicroTime(Date.UTC(2024, 4, 1, 12, 0, 0, 123)), '2024-05-01T12:00:00.123000Z');
  });
});
