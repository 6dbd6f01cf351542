/**
 * Go's duration syntax ("40s", "1m30s", "300ms", "1.5h"), which Kubernetes flags and
 * configuration files (KubeletConfiguration, --leader-elect-lease-duration) use. A bare number
 * is refused: "40" could be seconds or nanoseconds, and guessing wrong is a silent bug.
 */
const UNITS: Record<string, number> = { ns: 1e-6, us: 1e-3, 'µs': 1e-3, ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** Milliseconds, or throws an Error whose message quotes the input. */
export function parseDuration(text: string): number {
  const s = text.trim();
  if (s === '0') return 0;
  const re = /(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|ms|s|m|h)/gy;
  let total = 0;
  let matched = 0;
  let neg = false;
  let i = 0;
  if (s.startsWith('-') || s.startsWith('+')) {
    neg = s.startsWith('-');
    i = 1;
  }
  re.lastIndex = i;
  let m: RegExpExecArray | null;
  while ((m = re.exec(s)) !== null) {
    total += Number(m[1]) * UNITS[m[2]!]!;
    matched = re.lastIndex;
  }
  if (matched === 0 || matched !== s.length) throw new Error(`invalid duration "${text}" (expected e.g. "40s", "5m", "1m30s")`);
  return neg ? -total : total;
}

export function formatDurationSeconds(ms: number): string {
  return `${Math.round(ms / 1000)}s`;
}
