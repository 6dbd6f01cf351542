import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { cronScheduleError, parseCronSchedule } from './cron.ts';
import { formatInZone, fromWallClock, timeZoneError, wallClock } from './time-zone.ts';

const at = (iso: string): number => Date.parse(iso);
const iso = (ms: number | undefined): string | undefined => (ms === undefined ? undefined : new Date(ms).toISOString());
const next = (spec: string, after: string, zone = 'UTC'): string | undefined => iso(parseCronSchedule(spec).next(at(after), zone));

describe('cron schedules (robfig/cron ParseStandard)', () => {
  it('finds the next minute, hour, day and month', () => {
    assert.equal(next('*/1 * * * *', '2024-01-01T00:00:00Z'), '2024-01-01T00:01:00.000Z');
    assert.equal(next('*/1 * * * *', '2024-01-01T00:00:30.500Z'), '2024-01-01T00:01:00.000Z');
    assert.equal(next('*/15 * * * *', '2024-01-01T00:14:59Z'), '2024-01-01T00:15:00.000Z');
    assert.equal(next('30 6-16/4 * * 1-5', '2024-01-05T15:00:00Z'), '2024-01-08T06:30:00.000Z', 'Friday 14:30 was the last; next is Monday');
    assert.equal(next('0 0 1 jan *', '2024-03-01T00:00:00Z'), '2025-01-01T00:00:00.000Z');
    assert.equal(next('0 12 * * SUN', '2024-01-01T00:00:00Z'), '2024-01-07T12:00:00.000Z');
    assert.equal(next('@hourly', '2024-01-01T00:59:59Z'), '2024-01-01T01:00:00.000Z');
    assert.equal(next('@weekly', '2024-01-01T00:00:00Z'), '2024-01-07T00:00:00.000Z');
    assert.equal(next('@yearly', '2024-01-01T00:00:00Z'), '2025-01-01T00:00:00.000Z');
    assert.equal(next('@every 90s', '2024-01-01T00:00:00Z'), '2024-01-01T00:01:30.000Z');
  });

  it('takes a restricted day of month and a restricted weekday as alternatives', () => {
    // The 13th, or any Friday: Friday 5 January comes first.
    assert.equal(next('0 0 13 * 5', '2024-01-01T00:00:00Z'), '2024-01-05T00:00:00.000Z');
    // With `*` for the weekday only the 13th counts.
    assert.equal(next('0 0 13 * *', '2024-01-01T00:00:00Z'), '2024-01-13T00:00:00.000Z');
  });

  it('reads the calendar in the given zone, and a TZ= prefix overrides it', () => {
    assert.equal(next('0 9 * * *', '2024-01-01T00:00:00Z', 'Europe/Paris'), '2024-01-01T08:00:00.000Z');
    assert.equal(next('0 9 * * *', '2024-07-01T00:00:00Z', 'Europe/Paris'), '2024-07-01T07:00:00.000Z');
    assert.equal(next('TZ=America/New_York 0 9 * * *', '2024-01-01T00:00:00Z', 'UTC'), '2024-01-01T14:00:00.000Z');
    // 02:30 does not exist in Paris on 31 March 2024: that day is skipped, as robfig's hour walk skips it.
    assert.equal(next('30 2 * * *', '2024-03-30T12:00:00Z', 'Europe/Paris'), '2024-04-01T00:30:00.000Z');
  });

  it('returns nothing for a date that never comes', () => {
    assert.equal(next('0 0 31 2 *', '2024-01-01T00:00:00Z'), undefined);
  });

  it('refuses bad schedules with robfig/cron\'s messages', () => {
    assert.equal(cronScheduleError(''), 'empty spec string');
    assert.equal(cronScheduleError('* * * *'), 'expected exactly 5 fields, found 4: [* * * *]');
    assert.equal(cronScheduleError('61 * * * *'), 'end of range (61) above maximum (59): 61');
    assert.equal(cronScheduleError('* * 0 * *'), 'beginning of range (0) below minimum (1): 0');
    assert.equal(cronScheduleError('5-1 * * * *'), 'beginning of range (5) beyond end of range (1): 5-1');
    assert.equal(cronScheduleError('*/0 * * * *'), 'step of range should be a positive number: */0');
    assert.equal(cronScheduleError('x * * * *'), 'failed to parse int from x: strconv.Atoi: parsing "x": invalid syntax');
    assert.equal(cronScheduleError('1-2-3 * * * *'), 'too many hyphens: 1-2-3');
    assert.equal(cronScheduleError('@fortnightly'), 'unrecognized descriptor: @fortnightly');
    assert.equal(cronScheduleError('TZ=Mars/Base * * * * *'), 'provided bad location Mars/Base: unknown time zone Mars/Base');
    assert.equal(cronScheduleError('*/5 9-17 * JAN-MAR mon-fri'), undefined);
  });
});

describe('time zones', () => {
  it('knows IANA names as Go loads them (case matters)', () => {
    assert.equal(timeZoneError('Europe/Paris'), undefined);
    assert.equal(timeZoneError('UTC'), undefined);
    assert.equal(timeZoneError('europe/paris'), 'unknown time zone europe/paris');
    assert.equal(timeZoneError('Mars/Base'), 'unknown time zone Mars/Base');
  });

  it('converts between instants and wall clocks, and formats with the offset', () => {
    const t = at('2024-01-01T00:05:00Z');
    assert.deepEqual(wallClock(t, 'Asia/Tokyo'), { year: 2024, month: 1, day: 1, hour: 9, minute: 5, second: 0, weekday: 1 });
    assert.equal(fromWallClock('Asia/Tokyo', 2024, 1, 1, 9, 5), t);
    assert.equal(formatInZone(t, 'UTC'), '2024-01-01T00:05:00Z');
    assert.equal(formatInZone(t, 'Europe/Paris'), '2024-01-01T01:05:00+01:00');
    assert.equal(formatInZone(t, 'America/St_Johns'), '2023-12-31T20:35:00-03:30');
  });
});
