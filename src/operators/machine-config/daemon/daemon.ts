/**
 * The machine-config daemon of one node, wired: a client, an informer on this node's Node
 * alone, an event recorder, one work-queue key (the node's name) reconciled by the Updater,
 * and the drift poll. The key is queued whenever the Node changes, whenever a managed file
 * changes on disk, and whenever a step asks to look again (a reboot being waited for); a failed
 * sync is retried with the MCO daemon's backoff (5 s doubling to 1 min). Everything waits on the
 * given clock, so tests drive a daemon with a FakeClock against a real API server.
 */
import type { V1Node } from '@kubernetes/client-node';
import type { Logger } from 'pino';
import { ApiClient } from '../../../runtime/client.ts';
import { realClock, sleep, type Clock } from '../../../runtime/clock.ts';
import { Controller } from '../../../runtime/controller.ts';
import { createEventRecorder } from '../../../runtime/events.ts';
import { InformerFactory } from '../../../runtime/informer-factory.ts';
import type { KubeAccess } from '../../../runtime/kubeconfig.ts';
import { ExponentialFailureRateLimiter } from '../../../runtime/rate-limiter.ts';
import type { DeepReadonly } from '../../../runtime/readonly.ts';
import { resources } from '../../../runtime/resources.ts';
import { DriftWatch } from './drift.ts';
import type { DaemonMetrics } from './metrics.ts';
import { Updater, type UpdateCheckpoint } from './updater.ts';

export const COMPONENT = 'machine-config-daemon';
/** The event source, as the MCO's daemon names itself in events. */
const EVENT_COMPONENT = 'machineconfigdaemon';

export interface DaemonOptions {
  readonly nodeName: string;
  /** The node root, as a path on this host. */
  readonly root: string;
  readonly kubeConfig: KubeAccess;
  readonly signal: AbortSignal;
  readonly logger: Logger;
  readonly clock?: Clock;
  readonly metrics?: DaemonMetrics;
  /** How long one drain may take before the node is marked Degraded (and the drain tried again); default 1m30s, the seed's. */
  readonly drainTimeoutMs?: number;
  /** How often the managed files are looked at for hand edits; default 2 s. */
  readonly driftPollMs?: number;
  /** See UpdaterOptions.rebootSettleMs; default 30 s. */
  readonly rebootSettleMs?: number;
  /** Test seam: called between the recorded steps of an update. */
  readonly onStep?: (step: UpdateCheckpoint, signal: AbortSignal) => Promise<void> | void;
}

export interface RunningDaemon {
  /** Resolves once the daemon has stopped (after the signal aborted); rejects if it could not start. */
  readonly done: Promise<void>;
}

/** Numeric resourceVersions (this API server's, etcd's) tell which of two copies is newer; anything else trusts the informer. */
function newer(a: DeepReadonly<V1Node> | undefined, b: DeepReadonly<V1Node> | undefined): DeepReadonly<V1Node> | undefined {
  if (!a || !b) return a ?? b;
  const ra = Number(a.metadata?.resourceVersion);
  const rb = Number(b.metadata?.resourceVersion);
  if (!Number.isFinite(ra) || !Number.isFinite(rb)) return a;
  return rb > ra ? b : a;
}

export function runDaemon(o: DaemonOptions): RunningDaemon {
  const clock = o.clock ?? realClock;
  const logger = o.logger;
  const client = new ApiClient(o.kubeConfig, { userAgent: COMPONENT });
  const informers = new InformerFactory({ client, signal: o.signal, onError: (resource, err) => logger.debug({ resource, err: String(err) }, 'informer reconnecting') });
  const nodes = informers.informer<V1Node>(resources.nodes, { fieldSelector: `metadata.name=${o.nodeName}` });
  const recorder = createEventRecorder({ kubeConfig: o.kubeConfig, component: EVENT_COMPONENT, host: o.nodeName, signal: o.signal, clock });
  const drift = new DriftWatch(o.root);
  let written: DeepReadonly<V1Node> | undefined;
  const updater = new Updater({
    nodeName: o.nodeName,
    root: o.root,
    client,
    recorder,
    logger,
    clock,
    metrics: o.metrics,
    drainTimeoutMs: o.drainTimeoutMs ?? 90_000,
    rebootSettleMs: o.rebootSettleMs ?? 30_000,
    node: () => newer(nodes.store.get(o.nodeName), written),
    wrote: (n) => {
      written = newer(written, n as DeepReadonly<V1Node>);
    },
    drift,
    onStep: o.onStep,
  });
  const controller = new Controller({
    name: 'daemon',
    reconcile: (_key, signal) => updater.sync(signal),
    // The MCO daemon's queue: 5 s after a failure, doubling to a minute, for ever.
    rateLimiter: new ExponentialFailureRateLimiter({ baseMs: 5000, maxMs: 60_000 }),
    clock,
    observer: o.metrics?.component.forController('daemon'),
    onError: (r) => logger.debug({ err: String(r.error) }, 'sync failed; retrying'),
  });
  const onNode = (n: DeepReadonly<V1Node>): void => {
    updater.nodeChanged(n);
    controller.enqueue(o.nodeName);
  };
  nodes.on('add', onNode);
  nodes.on('update', onNode);
  nodes.on('delete', () => controller.enqueue(o.nodeName));

  const pollDrift = async (): Promise<void> => {
    const every = o.driftPollMs ?? 2000;
    while (!o.signal.aborted) {
      await sleep(every, o.signal, clock);
      if (o.signal.aborted) return;
      try {
        if (await drift.changed()) controller.enqueue(o.nodeName);
      } catch (err) {
        logger.debug({ err: String(err) }, 'could not look at the managed files');
      }
    }
  };

  const done = (async () => {
    try {
      logger.info(`Starting MachineConfigDaemon on node ${o.nodeName}, node root ${o.root}`);
      try {
        await nodes.waitForSync();
      } catch (err) {
        if (o.signal.aborted) return;
        throw err;
      }
      await Promise.all([controller.run(o.signal), pollDrift()]);
    } finally {
      await recorder.flush().catch(() => {});
      client.close();
      await informers.done();
    }
  })();
  return { done };
}
