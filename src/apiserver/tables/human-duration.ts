/**
 * Ages as kubectl prints them: Kubernetes' `duration.HumanDuration` (`5s`, `5m12s`, `3h4m`,
 * `2d3h`, `4y`), keeping two or three significant figures, plus the printers' handling of
 * missing timestamps (`<unknown>`). Timestamps come from JSON (RFC 3339); `now` is passed in
 * so tests and a whole table share one clock.
 */

/**
 * `duration.HumanDuration` for a duration in milliseconds. Up to 2 s in the future still
 * counts as now (`0s`), to tolerate clock skew; further in the future is `<invalid>`.
 */
export function humanDuration(ms: number): string {
  const seconds = Math.trunc(ms / 1000);
  if (seconds < -1) return '<invalid>';
  if (seconds < 0) return '0s';
  if (seconds < 60 * 2) return `${seconds}s`;
  const minutes = Math.trunc(ms / 60_000);
  if (minutes < 10) {
    const s = seconds % 60;
    return s === 0 ? `${minutes}m` : `${minutes}m${s}s`;
  }
  if (minutes < 60 * 3) return `${minutes}m`;
  const hours = Math.trunc(ms / 3_600_000);
  if (hours < 8) {
    const m = minutes % 60;
    return m === 0 ? `${hours}h` : `${hours}h${m}m`;
  }
  if (hours < 48) return `${hours}h`;
  if (hours < 24 * 8) {
    const h = hours % 24;
    return h === 0 ? `${Math.trunc(hours / 24)}d` : `${Math.trunc(hours / 24)}d${h}h`;
  }
  if (hours < 24 * 365 * 2) return `${Math.trunc(hours / 24)}d`;
  if (hours < 24 * 365 * 8) {
    const years = Math.trunc(hours / 24 / 365);
    const days = Math.trunc(hours / 24) % 365;
    return days === 0 ? `${years}y` : `${years}y${days}d`;
  }
  return `${Math.trunc(hours / 24 / 365)}y`;
}

const rfc3339 = /^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;

/** Milliseconds since the epoch of an RFC 3339 timestamp, or undefined if it is not one. */
export function parseTimestamp(value: unknown): number | undefined {
  if (typeof value !== 'string' || !rfc3339.test(value)) return undefined;
  const t = Date.parse(value);
  return Number.isNaN(t) ? undefined : t;
}

/** Go's zero `time.Time`, which a Kubernetes timestamp holds when it is unset. */
export const zeroTime = Date.parse('0001-01-01T00:00:00Z');

/** The printers' `translateTimestampSince`: the age of `timestamp` at `now`, `<unknown>` if unset. */
export function ageSince(timestamp: unknown, now: number): string {
  const t = parseTimestamp(timestamp);
  return t === undefined || t === zeroTime ? '<unknown>' : humanDuration(now - t);
}
