/**
 * Timestamps as Kubernetes writes them, in UTC: metav1.Time (RFC 3339, whole seconds) on
 * conditions, creation and transition times; metav1.MicroTime (six fractional digits) on
 * Leases. The one place that turns a time into either string (issue 13): callers pass the
 * time they mean, from their clock, so a test can fix it.
 */

/** metav1.Time: `2024-05-01T12:00:00Z`. */
export function formatTimestamp(at: Date | number = new Date()): string {
  return new Date(at).toISOString().replace(/\.\d+Z$/, 'Z');
}

/** metav1.MicroTime: `2024-05-01T12:00:00.123000Z` (a JavaScript time has milliseconds; the rest are zeros). */
export function formatMicroTime(at: Date | number = new Date()): string {
  return new Date(at).toISOString().replace(/Z$/, '000Z');
}
