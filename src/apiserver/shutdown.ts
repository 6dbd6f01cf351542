/**
 * Graceful termination of one API server replica, in kube-apiserver's order (k8s.io/apiserver
 * `RunWithContext`), so a replica leaves a load-balanced group without a failed request:
 *
 * 1. ShutdownInitiated: `/readyz` fails (`shutdown` check, health.ts) while everything else is
 *    served as before; the pre-shutdown hooks run (the replica leaves the `kubernetes`
 *    Endpoints); from here every response carries `Connection: close`, so keep-alive clients
 *    open their next connection through the load balancer, which by then sends it elsewhere.
 * 2. After the shutdown delay (and the hooks): NotAcceptingNewRequest, the listener closes.
 * 3. Watches end cleanly (a final bookmark, then the end of the stream), spread over the watch
 *    termination grace period at 200 a second at least, as kube drains them; their clients
 *    re-watch from where they were, through the load balancer.
 * 4. InFlightRequestsDrained: every request that is not long-running (watch, proxy, exec,
 *    attach, port-forward, log) has been answered, or the request timeout has passed.
 *
 * Beyond upstream, which answers 503 "apiserver is shutting down" to a request that arrives on
 * an open connection after step 2, such a request is still served (with `Connection: close`):
 * the store is open until step 4, and a client's last request on a kept-alive connection
 * should not fail because of the moment it was sent. The server speaks HTTP/1.1 only, so there
 * is no HTTP/2 GOAWAY to send.
 */
import type { ServerResponse } from 'node:http';
import type { Logger } from 'pino';

export interface ShutdownTimings {
  /** How long the replica keeps serving, not ready, before it stops listening (kube's --shutdown-delay-duration). */
  readonly delayMs: number;
  /** Over how long active watches are ended (kube's --shutdown-watch-termination-grace-period); 0 ends them all at once. */
  readonly watchGraceMs: number;
  /** The longest wait for in-flight requests once the listener is closed (kube's request timeout, 60 s). */
  readonly requestTimeoutMs: number;
}

export interface ShutdownSteps {
  /** Run as shutdown begins, beside the delay; the listener closes only once they are done. */
  readonly preShutdown: () => Promise<void>;
  readonly stopListening: () => void;
}

/** kube-apiserver's long-running requests: verbs watch and proxy; subresources attach, exec, proxy, log, portforward. */
export function isLongRunning(verb: string, resource: string): boolean {
  return verb === 'watch' || verb === 'proxy' || /\/(attach|exec|proxy|log|portforward)$/.test(resource);
}

/** The longest wait for ended watches' last bytes to leave (see endWatches). */
const FLUSH_WAIT_MS = 5_000;

/** Kube drains at least this many watches a second, however long the grace period. */
const MIN_WATCH_DRAIN_PER_SECOND = 200;

export class GracefulShutdown {
  private initiated = false;
  private listening = true;
  private readonly inFlight = new Set<ServerResponse>();
  private readonly watches = new Set<() => void | Promise<void>>();
  private readonly cut = new AbortController();
  private onIdle: (() => void) | undefined;
  private running: Promise<void> | undefined;

  constructor(
    private readonly timings: ShutdownTimings,
    private readonly log: Logger,
  ) {}

  /** True from the moment shutdown begins: readyz fails. */
  get shuttingDown(): boolean {
    return this.initiated;
  }

  /** Every request as it arrives: counted in flight until its response is done. */
  admit(res: ServerResponse): void {
    if (this.initiated) res.setHeader('Connection', 'close');
    this.inFlight.add(res);
    res.once('close', () => this.done(res));
  }

  /** A request found to be long-running: the drain does not wait for it. */
  longRunning(res: ServerResponse): void {
    this.done(res);
  }

  /**
   * A watch that has started, with the way to end it cleanly; returns its deregistration. A
   * watch that starts once watches have been ended is ended at once.
   */
  addWatch(end: () => void | Promise<void>): () => void {
    if (!this.listening) {
      queueMicrotask(() => void end());
      return () => {};
    }
    this.watches.add(end);
    return () => this.watches.delete(end);
  }

  /** Runs the sequence once; later calls share it. */
  run(steps: ShutdownSteps): Promise<void> {
    this.running ??= this.sequence(steps);
    return this.running;
  }

  /** Cuts every wait of a shutdown under way short (a stop that must not wait). */
  cutShort(): void {
    this.cut.abort();
    this.onIdle?.();
  }

  private async sequence(steps: ShutdownSteps): Promise<void> {
    const t = this.timings;
    this.initiated = true;
    this.log.info({ shutdownDelay: t.delayMs }, '[graceful-termination] ShutdownInitiated: /readyz fails, requests are still served');
    for (const res of this.inFlight) if (!res.headersSent) res.setHeader('Connection', 'close');
    const hooks = steps.preShutdown().catch((err: unknown) => this.log.warn({ err: err instanceof Error ? err.message : String(err) }, '[graceful-termination] pre-shutdown hook failed'));
    await this.sleep(t.delayMs);
    await hooks;
    this.listening = false;
    steps.stopListening();
    this.log.info({ inFlight: this.inFlight.size, watches: this.watches.size }, '[graceful-termination] NotAcceptingNewRequest: listener closed');
    await this.endWatches();
    if (!(await this.drained(t.requestTimeoutMs))) this.log.warn({ inFlight: this.inFlight.size }, '[graceful-termination] requests still in flight at the request timeout');
    this.log.info('[graceful-termination] InFlightRequestsDrained');
  }

  /**
   * Ends every watch, then waits (at most FLUSH_WAIT_MS) until each ended stream has been handed
   * to its socket: the connections are cut right after the drain, and on a busy machine a
   * stream's last chunk could still be in its buffer, which the client sees as an aborted watch.
   */
  private async endWatches(): Promise<void> {
    const ends = [...this.watches];
    this.watches.clear();
    const gapMs = ends.length ? Math.min(this.timings.watchGraceMs / ends.length, 1000 / MIN_WATCH_DRAIN_PER_SECOND) : 0;
    const flushed: Promise<void>[] = [];
    for (const end of ends) {
      const done = end();
      if (done) flushed.push(done);
      if (this.timings.watchGraceMs > 0) await this.sleep(gapMs);
    }
    if (!flushed.length || this.cut.signal.aborted) return;
    let timer: NodeJS.Timeout | undefined;
    const cut = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, FLUSH_WAIT_MS);
      this.cut.signal.addEventListener('abort', () => resolve(), { once: true });
    });
    await Promise.race([Promise.all(flushed), cut]);
    clearTimeout(timer);
  }

  private done(res: ServerResponse): void {
    if (this.inFlight.delete(res) && this.inFlight.size === 0) this.onIdle?.();
  }

  /** Whether every in-flight request finished within `ms`. */
  private drained(ms: number): Promise<boolean> {
    if (this.inFlight.size === 0) return Promise.resolve(true);
    return new Promise((resolve) => {
      const timer = setTimeout(() => finish(), ms);
      const finish = (): void => {
        clearTimeout(timer);
        this.onIdle = undefined;
        resolve(this.inFlight.size === 0);
      };
      this.onIdle = finish;
      if (this.cut.signal.aborted) finish();
    });
  }

  private sleep(ms: number): Promise<void> {
    if (ms <= 0 || this.cut.signal.aborted) return Promise.resolve();
    return new Promise((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        this.cut.signal.removeEventListener('abort', done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.cut.signal.addEventListener('abort', done, { once: true });
    });
  }
}
