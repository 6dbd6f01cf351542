/**
 * A controller binary in controller-runtime's mould (OpenShift's Machine API controllers:
 * `/machineset-controller`, `/nodelink-controller`, ...), as a component: the shared flags
 * (component-flags.ts) plus the ones such a binary takes — `--namespace` (what it watches; an
 * empty value means every namespace, as upstream), `--leader-elect-resource-namespace` (where its
 * Lease lives; default the namespace, else `defaultNamespace`), `--metrics-bind-address` and
 * klog's `--v`/`--logtostderr`, accepted for the Deployments that pass them (the log level comes
 * from SHIPYARD_LOG_LEVEL), and for a component that names a default, `--max-concurrent-reconciles`
 * (controller-runtime's MaxConcurrentReconciles) — then one manager under leader election, and `/metrics` on the pod's
 * IP (POD_IP) at the component's port unless the flag says otherwise; without either, none.
 * One place for what each such component would otherwise repeat.
 */
import type { ParseArgsConfig } from 'node:util';
import type { ComponentContext } from './component.ts';
import { leaderElectionFor, parseComponentFlags } from './component-flags.ts';
import type { ControllerContext } from './context.ts';
import type { Controller } from './controller.ts';
import { loadKubeConfig, type KubeAccess } from './kubeconfig.ts';
import { createLogger } from './logger.ts';
import { startManager } from './manager.ts';
import { createComponentMetrics } from './metrics.ts';
import { serveMetrics } from './metrics-server.ts';

export interface ManagerComponentOptions {
  /** The component's name: metrics prefix, logger, event source, User-Agent. */
  readonly component: string;
  /** The Lease's name (its namespace: see the module header). */
  readonly leaseName: string;
  /** `--namespace`'s default, and the Lease's namespace when neither flag names one. */
  readonly defaultNamespace: string;
  /** The port `/metrics` is served on at POD_IP. */
  readonly metricsPort: number;
  /** Flags of this component alone, parsed in the same pass (a typo is an error naming it). */
  readonly flags?: NonNullable<ParseArgsConfig['options']>;
  /**
   * Runs once before campaigning, e.g. to refuse at start a configuration the component cannot
   * serve (the machine controller's platform); a rejection stops the component with its error.
   */
  readonly prepare?: (o: { kubeConfig: KubeAccess; values: Readonly<Record<string, unknown>> }) => Promise<void>;
  /** `--max-concurrent-reconciles`'s default; without one the flag is not accepted and `workers` is 1. */
  readonly defaultWorkers?: number;
  /** Builds the controllers once leading; `namespace` is undefined for every namespace, `workers` the reconciles each controller runs at once. */
  readonly controllers: (ctx: ControllerContext, o: { namespace: string | undefined; values: Readonly<Record<string, unknown>>; workers: number }) => Controller[];
}

/** `--max-concurrent-reconciles`, refused at start unless a positive integer. */
function workersFrom(component: string, value: unknown): number {
  const workers = Number(value);
  if (!Number.isInteger(workers) || workers < 1) throw new Error(`${component}: --max-concurrent-reconciles must be a positive integer, got "${String(value)}"`);
  return workers;
}

export async function runManagerComponent(ctx: ComponentContext, o: ManagerComponentOptions): Promise<void> {
  const { common, values } = parseComponentFlags(o.component, ctx.args, {
    namespace: { type: 'string', default: o.defaultNamespace },
    'leader-elect-resource-namespace': { type: 'string' },
    'metrics-bind-address': { type: 'string' },
    v: { type: 'string' },
    logtostderr: { type: 'string' },
    ...(o.defaultWorkers !== undefined ? { 'max-concurrent-reconciles': { type: 'string', default: String(o.defaultWorkers) } } : {}),
    ...o.flags,
  });
  const workers = o.defaultWorkers !== undefined ? workersFrom(o.component, values['max-concurrent-reconciles']) : 1;
  const namespace = String(values.namespace) || undefined;
  const leaseNamespace = (values['leader-elect-resource-namespace'] as string | undefined) || namespace || o.defaultNamespace;
  const kubeConfig = loadKubeConfig({ kubeconfig: common.kubeconfig, env: ctx.env, rootfs: ctx.rootfs });
  await o.prepare?.({ kubeConfig, values });
  const metrics = createComponentMetrics(o.component, undefined, { collectDefaults: true });
  // The container's environment, not this process's: inline, the two differ.
  const logger = createLogger({ component: o.component, level: ctx.env.SHIPYARD_LOG_LEVEL || undefined });
  const metricsAddress = (values['metrics-bind-address'] as string | undefined) ?? (ctx.env.POD_IP ? `${ctx.env.POD_IP}:${o.metricsPort}` : undefined);
  // Its own signal, so a manager that fails stops it too, not only a stop from outside.
  const stopMetrics = new AbortController();
  ctx.signal.addEventListener('abort', () => stopMetrics.abort(), { once: true });
  // Served by every replica, leader or not: a standby's health is worth seeing too.
  const metricsServer = metricsAddress ? await serveMetrics({ registry: metrics.registry, address: metricsAddress, signal: stopMetrics.signal }) : undefined;
  const manager = startManager({
    component: o.component,
    kubeConfig,
    signal: ctx.signal,
    metrics,
    logger,
    leaderElection: leaderElectionFor(leaseNamespace, o.leaseName, common, ctx.env),
    controllers: (c) => o.controllers(c, { namespace, values, workers }),
  });
  if (metricsServer) logger.info({ address: metricsServer.address }, 'serving metrics');
  try {
    await manager.done;
  } finally {
    stopMetrics.abort();
    await metricsServer?.closed;
  }
}
