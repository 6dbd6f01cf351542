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

/**
 * A duration as Go's time.Duration prints it ("5s", "1m30s", "1h0m0s", "300ms"): messages
 * that Kubernetes tools word with a Go duration (kubectl drain's "global timeout reached:
 * 1m30s") read the same here. Precision stops at the millisecond.
 */
export function formatDuration(ms: number): string {
  if (ms === 0) return '0s';
  const sign = ms < 0 ? '-' : '';
  let rest = Math.abs(ms);
  if (rest < 1000) return `${sign}${Number(rest.toFixed(3))}ms`;
  const h = Math.floor(rest / 3_600_000);
  rest -= h * 3_600_000;
  const m = Math.floor(rest / 60_000);
  rest -= m * 60_000;
  const s = Number((rest / 1000).toFixed(3));
  return `${sign}${h ? `${h}h${m}m` : m ? `${m}m` : ''}${s}s`;
}

export function formatDurationSeconds(ms: number): string {
  return `${Math.round(ms / 1000)}s`;
}
