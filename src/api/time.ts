/**
 * Timestamps as Kubernetes writes them, in UTC: metav1.Time (RFC 3339, whole seconds) on
 * conditions, creation and transition times; metav1.MicroTime (six fractional digits) on
 * Leases. The one place that turns a time into either string (issue 13): callers pass the
 * time they mean, from their clock, so a test can fix it.
 */

/** The last second formatted, and its text: a create formats two timestamps, and a busy server thousands a second. */
let cachedSecond = NaN;
let cachedText = '';

/** metav1.Time: `2024-05-01T12:00:00Z`. */
export function formatTimestamp(at: Date | number = Date.now()): string {
  const ms = typeof at === 'number' ? Math.trunc(at) : at.getTime(); // as Date truncates
  const second = Math.floor(ms / 1000);
  if (second === cachedSecond) return cachedText;
  // toISOString always ends in `.sssZ` (and throws for an invalid time, which is never cached).
  const iso = new Date(ms).toISOString();
  cachedText = `${iso.slice(0, -5)}Z`;
  cachedSecond = second;
  return cachedText;
}

/** metav1.MicroTime: `2024-05-01T12:00:00.123000Z` (a JavaScript time has milliseconds; the rest are zeros). */
export function formatMicroTime(at: Date | number = new Date()): string {
  return new Date(at).toISOString().replace(/Z$/, '000Z');
}
