/**
 * Runs a component's controllers the way every Kubernetes controller binary does: build one
 * client, one set of shared informers, one event recorder, one metrics registry; then, if
 * asked, wait to become leader of a Lease; then start the informers, wait for their caches,
 * and run every controller's workers until the signal aborts or leadership is lost.
 *
 * Losing the lease stops the controllers: two replicas must never reconcile at once, and a
 * former leader's caches may be stale, so it stops rather than carrying on (kube components
 * exit; here the host decides whether to exit or campaign again).
 */
import { hostname } from 'node:os';
import type { Logger } from 'pino';
import { ApiClient } from './client.ts';
import { realClock, type Clock } from './clock.ts';
import type { ControllerContext } from './context.ts';
import type { Controller } from './controller.ts';
import { createEventRecorder, type EventRecorderOptions } from './events.ts';
import { InformerFactory } from './informer-factory.ts';
import type { KubeAccess } from './kubeconfig.ts';
import { candidateIdentity, runLeaderElection } from './leader-election.ts';
import { createLogger } from './logger.ts';
import { createComponentMetrics, type ComponentMetrics } from './metrics.ts';

export interface LeaderElectionConfig {
  namespace: string;
  name: string;
  identity?: string;
  leaseDurationMs?: number;
  renewDeadlineMs?: number;
  retryPeriodMs?: number;
}

export interface ManagerOptions {
  /** Component name: the event source, the metrics prefix, the logger's `component`. */
  component: string;
  kubeConfig: KubeAccess;
  signal: AbortSignal;
  /** Builds the controllers once the context exists (and, with leader election, once leading). */
  controllers: (ctx: ControllerContext) => Controller[] | Promise<Controller[]>;
  leaderElection?: LeaderElectionConfig;
  logger?: Logger;
  metrics?: ComponentMetrics;
  clock?: Clock;
  /** Workers per controller unless the controller says otherwise. */
  informerBackoff?: { initialMs?: number; maxMs?: number };
  /** The event recorder's spam filter, client-go's unless given (an operator telling a rollout's story needs more). */
  events?: Pick<EventRecorderOptions, 'spamBurst' | 'spamRefillMs'>;
}

export interface RunningManager {
  readonly metrics: ComponentMetrics;
  readonly logger: Logger;
  /** Whether this instance's controllers are running (it leads, or needs no election). */
  isLeading(): boolean;
  /** Resolves once everything has stopped. */
  readonly done: Promise<void>;
}

export function startManager(options: ManagerOptions): RunningManager {
  const logger = options.logger ?? createLogger({ component: options.component });
  const metrics = options.metrics ?? createComponentMetrics(options.component);
  const clock = options.clock ?? realClock;
  let leading = false;

  async function runControllers(signal: AbortSignal): Promise<void> {
    const client = new ApiClient(options.kubeConfig, { userAgent: options.component });
    const informers = new InformerFactory({
      client,
      signal,
      backoff: options.informerBackoff,
      onError: (resource, err) => logger.debug({ resource, err: String(err) }, 'informer reconnecting'),
    });
    const recorder = createEventRecorder({ kubeConfig: options.kubeConfig, component: options.component, host: hostname(), signal, ...options.events });
    const ctx: ControllerContext = { client, informers, recorder, logger, metrics, clock };
    try {
      const controllers = await options.controllers(ctx);
      await informers.waitForSync();
      logger.info({ controllers: controllers.map((c) => c.name) }, 'caches synced; starting controllers');
      await Promise.all(controllers.map((c) => c.run(signal)));
    } catch (err) {
      // waitForSync rejects when the signal aborts first: that is a normal stop.
      if (!signal.aborted) throw err;
    } finally {
      await recorder.flush().catch(() => {});
      client.close();
    }
  }

  const done = (async () => {
    const le = options.leaderElection;
    if (!le) {
      leading = true;
      await runControllers(options.signal);
      return;
    }
    await runLeaderElection({
      kubeConfig: options.kubeConfig,
      namespace: le.namespace,
      name: le.name,
      identity: le.identity ?? candidateIdentity({}),
      leaseDurationMs: le.leaseDurationMs,
      renewDeadlineMs: le.renewDeadlineMs,
      retryPeriodMs: le.retryPeriodMs,
      signal: options.signal,
      logger,
      onStartedLeading: async (leadingSignal) => {
        leading = true;
        logger.info({ lease: `${le.namespace}/${le.name}` }, 'became leader');
        try {
          await runControllers(leadingSignal);
        } finally {
          leading = false;
        }
      },
      onStoppedLeading: () => logger.info({ lease: `${le.namespace}/${le.name}` }, 'stopped leading'),
    });
  })();

  return { metrics, logger, isLeading: () => leading, done };
}
