/** Kubernetes timestamps (metav1.Time): RFC 3339 in UTC, whole seconds. */
export function formatTimestamp(at: Date | number = new Date()): string {
  return new Date(at).toISOString().replace(/\.\d+Z$/, 'Z');
}
