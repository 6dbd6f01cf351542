/**
 * A small de-duplicating work queue for the controllers that live inside the API server
 * (CRD establishing, garbage collection, namespace cleanup, disruption budgets). A key is
 * never processed by two workers at once; a failure is retried with exponential backoff.
 * (Controllers outside the server use the client-side runtime instead.)
 */
export interface QueueOptions {
  readonly concurrency?: number;
  readonly baseDelayMs?: number;
  readonly maxDelayMs?: number;
  readonly onError?: (key: string, err: unknown) => void;
}

export class KeyedQueue {
  private readonly pending = new Set<string>();
  private readonly order: string[] = [];
  private readonly active = new Set<string>();
  private readonly dirtyWhileActive = new Set<string>();
  private readonly failures = new Map<string, number>();
  private readonly timers = new Map<string, NodeJS.Timeout>();
  private running = 0;
  private stopped = false;
  private idleWaiters: Array<() => void> = [];

  constructor(
    private readonly process: (key: string) => Promise<void>,
    private readonly options: QueueOptions = {},
  ) {}

  add(key: string): void {
    if (this.stopped) return;
    if (this.active.has(key)) {
      this.dirtyWhileActive.add(key);
      return;
    }
    if (this.pending.has(key)) return;
    this.pending.add(key);
    this.order.push(key);
    this.pump();
  }

  addAfter(key: string, delayMs: number): void {
    if (this.stopped || this.timers.has(key)) return;
    const t = setTimeout(() => {
      this.timers.delete(key);
      this.add(key);
    }, delayMs);
    t.unref();
    this.timers.set(key, t);
  }

  stop(): void {
    this.stopped = true;
    for (const t of this.timers.values()) clearTimeout(t);
    this.timers.clear();
  }

  /** Resolves when nothing is queued or running (tests and shutdown). */
  idle(): Promise<void> {
    if (this.running === 0 && this.order.length === 0) return Promise.resolve();
    return new Promise((r) => this.idleWaiters.push(r));
  }

  private pump(): void {
    const concurrency = this.options.concurrency ?? 4;
    while (!this.stopped && this.running < concurrency && this.order.length > 0) {
      const key = this.order.shift()!;
      this.pending.delete(key);
      this.active.add(key);
      this.running++;
      void this.run(key);
    }
    if (this.running === 0 && this.order.length === 0) {
      const waiters = this.idleWaiters;
      this.idleWaiters = [];
      for (const w of waiters) w();
    }
  }

  private async run(key: string): Promise<void> {
    try {
      await this.process(key);
      this.failures.delete(key);
    } catch (err) {
      const n = (this.failures.get(key) ?? 0) + 1;
      this.failures.set(key, n);
      this.options.onError?.(key, err);
      const delay = Math.min((this.options.baseDelayMs ?? 10) * 2 ** (n - 1), this.options.maxDelayMs ?? 10_000);
      this.addAfter(key, delay);
    } finally {
      this.active.delete(key);
      this.running--;
      if (this.dirtyWhileActive.delete(key)) this.add(key);
      this.pump();
    }
  }
}
