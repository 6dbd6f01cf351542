/**
 * Node Lease renewals on a thread of their own. A kubelet host runs thousands of kubelets and
 * their pods on one event loop; its pauses (a garbage collection of a heap holding 150,000
 * pods, a burst of pod events) lasted up to 2 s, and every renewal due in them waited, so the
 * API server saw healthy nodes renew late. Kubernetes' kubelet renews from a goroutine of its
 * own, with a client of its own, on a runtime whose collector does not stop it for long; a
 * worker thread is Node's equivalent: its own event loop, its own small heap, its own
 * connections.
 *
 * The thread only renews. Everything the renewals depend on (which nodes, their uids, their
 * lease durations) is decided here on the kubelets' thread and sent over, and kept, so that a
 * thread that dies is started again with every Lease it was renewing.
 */
import { Worker } from 'node:worker_threads';
import type { Logger } from 'pino';
import type { KubeAccess } from '../../runtime/kubeconfig.ts';
import type { NodeLeases, Renewal } from './lease-renewals.ts';
import type { NodeLease } from './node-lease.ts';
import { workerEntry } from '../../api/worker-entry.ts';

/** What the thread is started with. */
export interface ThreadInput {
  /** The kubeconfig, serialised (the thread builds its own client and connections from it). */
  readonly kubeConfig: string;
  readonly maxSockets: number;
  readonly userAgent?: string;
  /** Report every renewal; otherwise only failures and the first success after one. */
  readonly reportAll: boolean;
}

export type ToThread = { readonly op: 'set'; readonly lease: NodeLease } | { readonly op: 'delete'; readonly nodeName: string } | { readonly op: 'close' };

export type FromThread = { readonly op: 'renewed'; readonly renewal: Renewal };

export interface HeartbeatThreadOptions {
  /** Exported to the thread, which builds its own client from it. */
  readonly kubeConfig: KubeAccess & { exportConfig(): string };
  /** Connections to the API server (default 64: 500 renewals a second at 100 ms each need 50). */
  readonly maxSockets?: number;
  readonly userAgent?: string;
  readonly logger: Logger;
  /**
   * Renewal outcomes, as timed on the thread: every one with `reportAll` (benchmarks), otherwise
   * only failures and the first success after one, so 500 renewals a second are not 500 messages
   * to a thread that is busy already.
   */
  readonly onRenewal?: (r: Renewal) => void;
  readonly reportAll?: boolean;
  /** Delay before restarting a thread that died, doubled up to 30 s while it keeps dying (default 1 s). */
  readonly restartDelayMs?: number;
}

export interface HeartbeatThread extends NodeLeases {
  /** Times the thread died and was started again. */
  readonly restarts: number;
  /** The live thread (for diagnostics and tests). */
  readonly worker: Worker | undefined;
}

const MAX_RESTART_DELAY_MS = 30_000;
/** A thread that ran this long before dying starts the backoff over. */
const HEALTHY_RUN_MS = 60_000;

export function startHeartbeatThread(o: HeartbeatThreadOptions): HeartbeatThread {
  const leases = new Map<string, NodeLease>();
  const input: ThreadInput = { kubeConfig: o.kubeConfig.exportConfig(), maxSockets: o.maxSockets ?? 64, userAgent: o.userAgent, reportAll: o.reportAll ?? false };
  const baseDelay = o.restartDelayMs ?? 1000;
  let worker: Worker | undefined;
  let closing: Promise<void> | undefined;
  let restarts = 0;
  let delay = baseDelay;
  let restartTimer: NodeJS.Timeout | undefined;

  const send = (m: ToThread): void => worker?.postMessage(m);

  const spawn = (): void => {
    const startedAt = Date.now();
    const w = new Worker(workerEntry(import.meta.url, 'thread-main'), { workerData: input, execArgv: [], name: 'heartbeats' });
    // The kubelets' thread decides when the process ends; this one never holds it open.
    w.unref();
    w.on('message', (m: FromThread) => {
      if (m.op === 'renewed') o.onRenewal?.(m.renewal);
    });
    w.on('error', (err) => o.logger.error({ err: err.message }, 'heartbeat thread failed'));
    w.on('exit', (code) => {
      if (worker !== w) return;
      worker = undefined;
      if (closing) return;
      if (Date.now() - startedAt >= HEALTHY_RUN_MS) delay = baseDelay;
      o.logger.error({ code, restartInMs: delay, leases: leases.size }, 'heartbeat thread exited; starting it again');
      restartTimer = setTimeout(() => {
        restartTimer = undefined;
        restarts++;
        spawn();
      }, delay);
      restartTimer.unref();
      delay = Math.min(delay * 2, MAX_RESTART_DELAY_MS);
    });
    worker = w;
    for (const lease of leases.values()) send({ op: 'set', lease });
  };
  spawn();

  return {
    set(lease) {
      leases.set(lease.nodeName, lease);
      send({ op: 'set', lease });
    },
    delete(nodeName) {
      if (!leases.delete(nodeName)) return;
      send({ op: 'delete', nodeName });
    },
    get restarts() {
      return restarts;
    },
    get worker() {
      return worker;
    },
    close() {
      closing ??= (async () => {
        if (restartTimer) clearTimeout(restartTimer);
        leases.clear();
        const w = worker;
        if (!w) return;
        const exited = new Promise<void>((resolve) => w.once('exit', () => resolve()));
        send({ op: 'close' });
        // A thread stuck in a request gets a moment to finish, then is stopped.
        const timer = setTimeout(() => void w.terminate(), 2000);
        await exited;
        clearTimeout(timer);
      })();
      return closing;
    },
  };
}
