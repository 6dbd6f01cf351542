/**
 * IANA time zones without a time-zone library: validation as Go's `time.LoadLocation` answers
 * it (what kube-apiserver checks a CronJob's `timeZone` against), the wall clock of an instant
 * in a zone, the instant of a wall clock, and RFC 3339 with the zone's offset (the CronJob
 * controller's `batch.kubernetes.io/cronjob-scheduled-timestamp`). The zone database is the
 * one Node's Intl carries.
 */
import { readlinkSync } from 'node:fs';

/** A wall clock reading: month 1–12, weekday 0 (Sunday) – 6. */
export interface WallClock {
  readonly year: number;
  readonly month: number;
  readonly day: number;
  readonly hour: number;
  readonly minute: number;
  readonly second: number;
  readonly weekday: number;
}

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatterFor(zone: string): Intl.DateTimeFormat {
  let f = formatters.get(zone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', { timeZone: zone, hourCycle: 'h23', year: 'numeric', month: 'numeric', day: 'numeric', hour: 'numeric', minute: 'numeric', second: 'numeric', era: 'short' });
    formatters.set(zone, f);
  }
  return f;
}

const isUtc = (zone: string): boolean => zone === 'UTC' || zone === 'Etc/UTC';

/**
 * The process's own zone: what Go's `time.Local` is for a controller that was given none, found
 * as Go finds it: `TZ` (empty means UTC, a leading `:` is dropped, a zone it cannot load falls
 * back to UTC), else the zone `/etc/localtime` links to. Intl is asked only when neither names
 * one: resolving the zone through it loads ICU's formatting data, ~6 MiB of every controller
 * manager that runs the CronJob controller, for the UTC nearly every host has.
 */
export function localTimeZone(env: Readonly<Record<string, string | undefined>> = process.env, localtime = '/etc/localtime'): string {
  const tz = env.TZ;
  if (tz !== undefined) {
    const zone = tz.startsWith(':') ? tz.slice(1) : tz;
    return zone === '' || (!isUtc(zone) && timeZoneError(zone)) ? 'UTC' : zone;
  }
  try {
    const target = readlinkSync(localtime);
    const at = target.lastIndexOf('zoneinfo/');
    // zoneinfo/posix/ and zoneinfo/right/ hold the same zones (the latter counting leap seconds).
    if (at >= 0) return target.slice(at + 'zoneinfo/'.length).replace(/^(posix|right)\//, '');
  } catch {
    // Not a link (a copied file, or none): only Intl can tell.
  }
  return Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';
}

/**
 * Why `zone` is not a zone Go's `time.LoadLocation` would load (`unknown time zone Foo/Bar`),
 * or undefined when it is. Intl matches names case-insensitively and Go (reading files) does
 * not, so a name Intl knows only under other capitals is refused.
 */
export function timeZoneError(zone: string): string | undefined {
  if (zone === 'UTC' || zone === 'Local') return undefined;
  try {
    const resolved = new Intl.DateTimeFormat('en-US', { timeZone: zone }).resolvedOptions().timeZone;
    if (resolved !== zone && resolved.toLowerCase() === zone.toLowerCase()) return `unknown time zone ${zone}`;
    return undefined;
  } catch {
    return `unknown time zone ${zone}`;
  }
}

function weekdayOf(year: number, month: number, day: number): number {
  return new Date(Date.UTC(year, month - 1, day)).getUTCDay();
}

/** The wall clock at `ms` (since the epoch) in `zone`. */
export function wallClock(ms: number, zone: string): WallClock {
  if (isUtc(zone)) {
    const d = new Date(ms);
    return { year: d.getUTCFullYear(), month: d.getUTCMonth() + 1, day: d.getUTCDate(), hour: d.getUTCHours(), minute: d.getUTCMinutes(), second: d.getUTCSeconds(), weekday: d.getUTCDay() };
  }
  const parts: Record<string, string> = {};
  for (const p of formatterFor(zone).formatToParts(new Date(ms))) parts[p.type] = p.value;
  const bc = parts.era === 'BC' || parts.era === 'B';
  const year = bc ? 1 - Number(parts.year) : Number(parts.year);
  const month = Number(parts.month);
  const day = Number(parts.day);
  return { year, month, day, hour: Number(parts.hour), minute: Number(parts.minute), second: Number(parts.second), weekday: weekdayOf(year, month, day) };
}

/** The zone's offset from UTC at `ms`, in ms (east positive). */
export function zoneOffset(ms: number, zone: string): number {
  if (isUtc(zone)) return 0;
  const w = wallClock(ms, zone);
  const asUtc = Date.UTC(w.year, w.month - 1, w.day, w.hour, w.minute, w.second);
  return asUtc - (ms - (((ms % 1000) + 1000) % 1000));
}

/**
 * The instant a wall clock (fields may overflow, as Go's `time.Date` normalises them) reads in
 * `zone`. A clock time skipped by a DST change is taken with the offset before the change, so
 * it lands just after the gap, as Go does; a repeated one is its first occurrence.
 */
export function fromWallClock(zone: string, year: number, month: number, day: number, hour = 0, minute = 0, second = 0): number {
  const asUtc = Date.UTC(year, month - 1, day, hour, minute, second);
  if (isUtc(zone)) return asUtc;
  const before = zoneOffset(asUtc - 86_400_000, zone);
  const after = zoneOffset(asUtc + 86_400_000, zone);
  const candidates = [asUtc - before, asUtc - after].sort((a, b) => a - b);
  for (const c of candidates) if (asUtc - zoneOffset(c, zone) === c) return c;
  return asUtc - before;
}

function pad(n: number, width = 2): string {
  return String(Math.abs(n)).padStart(width, '0');
}

/** RFC 3339 in `zone` (`2024-01-01T01:05:00+01:00`, `Z` for UTC), as Go's `t.In(zone).Format(time.RFC3339)`. */
export function formatInZone(ms: number, zone: string): string {
  const w = wallClock(ms, zone);
  const offsetMin = Math.round(zoneOffset(ms, zone) / 60_000);
  const suffix = offsetMin === 0 ? 'Z' : `${offsetMin < 0 ? '-' : '+'}${pad(Math.trunc(Math.abs(offsetMin) / 60))}:${pad(Math.abs(offsetMin) % 60)}`;
  return `${pad(w.year, 4)}-${pad(w.month)}-${pad(w.day)}T${pad(w.hour)}:${pad(w.minute)}:${pad(w.second)}${suffix}`;
}
