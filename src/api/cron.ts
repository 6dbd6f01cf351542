/**
 * Cron schedules as Kubernetes reads a CronJob's `spec.schedule`: the standard five fields
 * (minute, hour, day of month, month, day of week, with `*`, `?`, lists, ranges, steps and
 * month and weekday names), the descriptors `@yearly` … `@hourly` and `@every <duration>`, and
 * the `TZ=`/`CRON_TZ=` prefix, with the error messages of robfig/cron's ParseStandard (which
 * kube-apiserver returns as the field error). `next` walks the calendar as that library does:
 * month, then day, then hour, then minute, in the schedule's zone, looking at most five years
 * ahead. Shared by the API server (validation) and the CronJob controller (scheduling).
 */
import { parseDuration } from './duration.ts';
import { fromWallClock, timeZoneError, wallClock } from './time-zone.ts';

interface Bounds {
  readonly min: number;
  readonly max: number;
  readonly names?: Readonly<Record<string, number>>;
}

const minutes: Bounds = { min: 0, max: 59 };
const hours: Bounds = { min: 0, max: 23 };
const dom: Bounds = { min: 1, max: 31 };
const months: Bounds = { min: 1, max: 12, names: { jan: 1, feb: 2, mar: 3, apr: 4, may: 5, jun: 6, jul: 7, aug: 8, sep: 9, oct: 10, nov: 11, dec: 12 } };
const dow: Bounds = { min: 0, max: 6, names: { sun: 0, mon: 1, tue: 2, wed: 3, thu: 4, fri: 5, sat: 6 } };

/** A field's allowed values, and whether it was written as `*` or `?` (which changes how days combine). */
interface FieldSet {
  readonly values: ReadonlySet<number>;
  readonly star: boolean;
}

export class CronParseError extends Error {}

export interface CronSchedule {
  /** The zone named by a `TZ=` prefix, if any; otherwise the caller's zone applies. */
  readonly zone?: string;
  /** The first activation strictly after `afterMs` (whole seconds), in `zone`; undefined if none within five years. */
  next(afterMs: number, zone: string): number | undefined;
}

/** Go's strconv.Atoi as robfig's mustParseInt reports it. */
function parseUint(expr: string): number {
  if (!/^[+-]?\d+$/.test(expr)) throw new CronParseError(`failed to parse int from ${expr}: strconv.Atoi: parsing ${JSON.stringify(expr)}: invalid syntax`);
  const n = Number(expr);
  if (!Number.isSafeInteger(n) || Math.abs(n) > 2 ** 63 - 1) throw new CronParseError(`failed to parse int from ${expr}: strconv.Atoi: parsing ${JSON.stringify(expr)}: value out of range`);
  if (n < 0) throw new CronParseError(`negative number (${n}) not allowed: ${expr}`);
  return n;
}

function parseIntOrName(expr: string, b: Bounds): number {
  const named = b.names?.[expr.toLowerCase()];
  return named ?? parseUint(expr);
}

function parseRange(expr: string, b: Bounds, into: Set<number>): boolean {
  const rangeAndStep = expr.split('/');
  const lowAndHigh = rangeAndStep[0]!.split('-');
  const single = lowAndHigh.length === 1;
  let start: number;
  let end: number;
  let star = false;
  if (lowAndHigh[0] === '*' || lowAndHigh[0] === '?') {
    start = b.min;
    end = b.max;
    star = true;
  } else {
    start = parseIntOrName(lowAndHigh[0]!, b);
    if (lowAndHigh.length === 1) end = start;
    else if (lowAndHigh.length === 2) end = parseIntOrName(lowAndHigh[1]!, b);
    else throw new CronParseError(`too many hyphens: ${expr}`);
  }
  let step = 1;
  if (rangeAndStep.length === 2) {
    step = parseUint(rangeAndStep[1]!);
    // "N/step" means "N-max/step".
    if (single) end = b.max;
    if (step > 1) star = false;
  } else if (rangeAndStep.length > 2) throw new CronParseError(`too many slashes: ${expr}`);
  if (start < b.min) throw new CronParseError(`beginning of range (${start}) below minimum (${b.min}): ${expr}`);
  if (end > b.max) throw new CronParseError(`end of range (${end}) above maximum (${b.max}): ${expr}`);
  if (start > end) throw new CronParseError(`beginning of range (${start}) beyond end of range (${end}): ${expr}`);
  if (step === 0) throw new CronParseError(`step of range should be a positive number: ${expr}`);
  for (let v = start; v <= end; v += step) into.add(v);
  return star;
}

function parseField(field: string, b: Bounds): FieldSet {
  const values = new Set<number>();
  let star = false;
  for (const expr of field.split(',').filter((e) => e !== '')) if (parseRange(expr, b, values)) star = true;
  return { values, star };
}

const all = (b: Bounds): FieldSet => ({ values: new Set(Array.from({ length: b.max - b.min + 1 }, (_, i) => b.min + i)), star: true });
const one = (v: number): FieldSet => ({ values: new Set([v]), star: false });

interface Spec {
  readonly minute: FieldSet;
  readonly hour: FieldSet;
  readonly dom: FieldSet;
  readonly month: FieldSet;
  readonly dow: FieldSet;
}

function dayMatches(s: Spec, day: number, weekday: number): boolean {
  const domMatch = s.dom.values.has(day);
  const dowMatch = s.dow.values.has(weekday);
  // A restricted day of month and a restricted weekday are alternatives; a `*` on either makes them both required.
  return s.dom.star || s.dow.star ? domMatch && dowMatch : domMatch || dowMatch;
}

/** robfig's SpecSchedule.Next over instants, reading the calendar in `zone`. */
function nextOfSpec(s: Spec, afterMs: number, zone: string): number | undefined {
  let t = Math.floor(afterMs / 1000) * 1000 + 1000;
  let added = false;
  const yearLimit = wallClock(t, zone).year + 5;
  wrap: for (;;) {
    let w = wallClock(t, zone);
    if (w.year > yearLimit) return undefined;
    while (!s.month.values.has(w.month)) {
      if (!added) {
        added = true;
        t = fromWallClock(zone, w.year, w.month, 1);
      }
      w = wallClock(t, zone);
      t = fromWallClock(zone, w.year, w.month + 1, 1);
      w = wallClock(t, zone);
      if (w.month === 1) continue wrap;
    }
    while (!dayMatches(s, w.day, w.weekday)) {
      if (!added) {
        added = true;
        t = fromWallClock(zone, w.year, w.month, w.day);
      }
      w = wallClock(t, zone);
      t = fromWallClock(zone, w.year, w.month, w.day + 1, w.hour);
      w = wallClock(t, zone);
      // A DST change can leave the new day starting off midnight; robfig rounds back to it.
      if (w.hour !== 0) {
        t += (w.hour > 12 ? 24 - w.hour : -w.hour) * 3_600_000;
        w = wallClock(t, zone);
      }
      if (w.day === 1) continue wrap;
    }
    while (!s.hour.values.has(w.hour)) {
      if (!added) {
        added = true;
        t = fromWallClock(zone, w.year, w.month, w.day, w.hour);
      }
      t += 3_600_000;
      w = wallClock(t, zone);
      if (w.hour === 0) continue wrap;
    }
    while (!s.minute.values.has(w.minute)) {
      if (!added) {
        added = true;
        t = Math.floor(t / 60_000) * 60_000;
      }
      t += 60_000;
      w = wallClock(t, zone);
      if (w.minute === 0) continue wrap;
    }
    if (w.second !== 0) {
      // Seconds are always 0 in the standard format: move to the next minute and check again.
      added = true;
      t = Math.floor(t / 60_000) * 60_000 + 60_000;
      continue wrap;
    }
    return t;
  }
}

function specSchedule(s: Spec, zone: string | undefined): CronSchedule {
  return { zone, next: (afterMs, callerZone) => nextOfSpec(s, afterMs, zone ?? callerZone) };
}

function parseDescriptor(descriptor: string, zone: string | undefined): CronSchedule {
  switch (descriptor) {
    case '@yearly':
    case '@annually':
      return specSchedule({ minute: one(0), hour: one(0), dom: one(1), month: one(1), dow: all(dow) }, zone);
    case '@monthly':
      return specSchedule({ minute: one(0), hour: one(0), dom: one(1), month: all(months), dow: all(dow) }, zone);
    case '@weekly':
      return specSchedule({ minute: one(0), hour: one(0), dom: all(dom), month: all(months), dow: one(0) }, zone);
    case '@daily':
    case '@midnight':
      return specSchedule({ minute: one(0), hour: one(0), dom: all(dom), month: all(months), dow: all(dow) }, zone);
    case '@hourly':
      return specSchedule({ minute: one(0), hour: all(hours), dom: all(dom), month: all(months), dow: all(dow) }, zone);
  }
  const every = '@every ';
  if (descriptor.startsWith(every)) {
    let ms: number;
    try {
      ms = parseDuration(descriptor.slice(every.length));
    } catch {
      throw new CronParseError(`failed to parse duration ${descriptor}: time: invalid duration ${JSON.stringify(descriptor.slice(every.length))}`);
    }
    // As robfig's Every: at least a second, in whole seconds, counted from the instant given.
    const delay = Math.max(1000, ms - (ms % 1000));
    return { zone, next: (afterMs) => Math.floor(afterMs / 1000) * 1000 + delay };
  }
  throw new CronParseError(`unrecognized descriptor: ${descriptor}`);
}

/** Parses a schedule as cron.ParseStandard does; throws CronParseError with its message. */
export function parseCronSchedule(input: string): CronSchedule {
  let spec = input;
  if (spec.length === 0) throw new CronParseError('empty spec string');
  let zone: string | undefined;
  if (spec.startsWith('TZ=') || spec.startsWith('CRON_TZ=')) {
    const space = spec.indexOf(' ');
    const eq = spec.indexOf('=');
    const name = space < 0 ? spec.slice(eq + 1) : spec.slice(eq + 1, space);
    const err = name === '' ? undefined : timeZoneError(name);
    if (err || name === 'Local') throw new CronParseError(`provided bad location ${name}: ${err ?? 'unknown time zone Local'}`);
    zone = name === '' ? 'UTC' : name;
    spec = space < 0 ? '' : spec.slice(space).trim();
  }
  if (spec.startsWith('@')) return parseDescriptor(spec, zone);
  const fields = spec.split(/\s+/).filter((f) => f !== '');
  if (fields.length !== 5) throw new CronParseError(`expected exactly 5 fields, found ${fields.length}: [${fields.join(' ')}]`);
  const [minute, hour, dayOfMonth, month, dayOfWeek] = fields as [string, string, string, string, string];
  return specSchedule({ minute: parseField(minute, minutes), hour: parseField(hour, hours), dom: parseField(dayOfMonth, dom), month: parseField(month, months), dow: parseField(dayOfWeek, dow) }, zone);
}

/** The parse error's message, or undefined for a valid schedule. */
export function cronScheduleError(spec: string): string | undefined {
  try {
    parseCronSchedule(spec);
    return undefined;
  } catch (err) {
    if (err instanceof CronParseError) return err.message;
    throw err;
  }
}
