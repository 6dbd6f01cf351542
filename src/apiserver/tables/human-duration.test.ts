import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ageSince, humanDuration } from './human-duration.ts';

const s = 1000;
const m = 60 * s;
const h = 60 * m;
const d = 24 * h;
const y = 365 * d;

describe('humanDuration', () => {
  const cases: Array<[ms: number, printed: string]> = [
    [-3 * s, '<invalid>'],
    [-2 * s, '<invalid>'],
    [-1999, '0s'],
    [-1, '0s'],
    [0, '0s'],
    [999, '0s'],
    [5 * s, '5s'],
    [119 * s, '119s'],
    [2 * m, '2m'],
    [5 * m + 12 * s, '5m12s'],
    [9 * m + 59 * s, '9m59s'],
    [10 * m + 30 * s, '10m'],
    [179 * m, '179m'],
    [3 * h, '3h'],
    [3 * h + 4 * m + 59 * s, '3h4m'],
    [7 * h + 59 * m, '7h59m'],
    [8 * h + 30 * m, '8h'],
    [47 * h, '47h'],
    [48 * h, '2d'],
    [2 * d + 3 * h, '2d3h'],
    [7 * d + 23 * h, '7d23h'],
    [8 * d + 5 * h, '8d'],
    [729 * d, '729d'],
    [2 * y, '2y'],
    [4 * y, '4y'],
    [4 * y + 10 * d, '4y10d'],
    [7 * y + 364 * d, '7y364d'],
    [8 * y + 100 * d, '8y'],
    [12 * y, '12y'],
  ];
  for (const [ms, printed] of cases) {
    it(`${ms} ms → ${printed}`, () => assert.equal(humanDuration(ms), printed));
  }
});

describe('ageSince', () => {
  const now = Date.parse('2025-01-01T12:00:00Z');
  const cases: Array<[timestamp: unknown, printed: string]> = [
    ['2025-01-01T11:55:00Z', '5m'],
    ['2025-01-01T11:59:58.500Z', '1s'],
    ['2025-01-01T13:00:00+01:00', '0s'],
    ['2024-12-30T09:00:00Z', '2d3h'],
    ['2025-01-01T12:00:05Z', '<invalid>'],
    [undefined, '<unknown>'],
    ['', '<unknown>'],
    ['yesterday', '<unknown>'],
    ['0001-01-01T00:00:00Z', '<unknown>'],
  ];
  for (const [timestamp, printed] of cases) {
    it(`${JSON.stringify(timestamp)} → ${printed}`, () => assert.equal(ageSince(timestamp, now), printed));
  }
});
