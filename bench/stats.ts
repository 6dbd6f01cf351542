/** Latency recording and the figures every benchmark prints. */
export class Latencies {
  private readonly samples: number[] = [];
  add(ms: number): void {
    this.samples.push(ms);
  }
  clear(): void {
    this.samples.length = 0;
  }
  get count(): number {
    return this.samples.length;
  }
  percentile(p: number): number {
    if (!this.samples.length) return NaN;
    const sorted = [...this.samples].sort((a, b) => a - b);
    return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
  }
  /** Every sample, in order (for looking at outliers). */
  all(): readonly number[] {
    return this.samples;
  }
  summary(): string {
    return `p50 ${this.percentile(50).toFixed(2)} ms, p99 ${this.percentile(99).toFixed(2)} ms`;
  }
}

/** The middle value (the mean of the two middle ones for an even count); NaN for none. */
export function median(xs: readonly number[]): number {
  if (!xs.length) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
}

/** Runs `total` operations with `concurrency` workers; returns ops/s and the latencies (added to `latencies` when given). */
export async function loadLoop(
  total: number,
  concurrency: number,
  op: (i: number) => Promise<void>,
  latencies = new Latencies(),
): Promise<{ opsPerSec: number; latencies: Latencies; seconds: number }> {
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      for (;;) {
        const i = next++;
        if (i >= total) return;
        const t = performance.now();
        await op(i);
        latencies.add(performance.now() - t);
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  return { opsPerSec: total / seconds, latencies, seconds };
}
