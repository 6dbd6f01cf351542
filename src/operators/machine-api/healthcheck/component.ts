/**
 * The machine-healthcheck program of the machine-api-operator image (`/machine-healthcheck
 * [--kubeconfig K] [--namespace NS] [--v=N] [--metrics-bind-address HOST:PORT]
 * [--leader-elect ...]`): the MachineHealthCheck controller under leader election on the Lease
 * `<namespace>/cluster-api-provider-healthcheck-leader`, as OpenShift's. `--namespace` (default
 * openshift-machine-api) is where it looks for v1beta1 checks, Machines and MachineSets; `""`
 * means every namespace. `/metrics` is served on the pod's IP (POD_IP) at port 9444 unless the
 * flag says otherwise; without either, no metrics are served.
 */
import { machineAPINamespace } from '../../../api/machine/index.ts';
import type { ComponentContext } from '../../../runtime/component.ts';
import { leaderElectionFor, parseComponentFlags } from '../../../runtime/component-flags.ts';
import { loadKubeConfig } from '../../../runtime/kubeconfig.ts';
import { createLogger } from '../../../runtime/logger.ts';
import { startManager } from '../../../runtime/manager.ts';
import { createComponentMetrics } from '../../../runtime/metrics.ts';
import { serveMetrics } from '../../../runtime/metrics-server.ts';
import { createMachineHealthCheckController } from './controller.ts';

/** The event source and metrics prefix, as OpenShift's controller names itself in events. */
export const COMPONENT = 'machinehealthcheck-controller';
export const LEASE_NAME = 'cluster-api-provider-healthcheck-leader';
export const METRICS_PORT = 9444;

export async function start(ctx: ComponentContext): Promise<void> {
  const { common, values } = parseComponentFlags(COMPONENT, ctx.args, {
    v: { type: 'string' },
    namespace: { type: 'string', default: machineAPINamespace },
    'metrics-bind-address': { type: 'string' },
  });
  const namespace = String(values.namespace);
  const kubeConfig = loadKubeConfig({ kubeconfig: common.kubeconfig, env: ctx.env, rootfs: ctx.rootfs });
  const metrics = createComponentMetrics(COMPONENT, undefined, { collectDefaults: true });
  // The container's environment, not this process's: inline, the two differ.
  const logger = createLogger({ component: COMPONENT, level: ctx.env.SHIPYARD_LOG_LEVEL || undefined });
  const metricsAddress = (values['metrics-bind-address'] as string | undefined) ?? (ctx.env.POD_IP ? `${ctx.env.POD_IP}:${METRICS_PORT}` : undefined);
  // Its own signal, so a manager that fails stops it too, not only a stop from outside.
  const stopMetrics = new AbortController();
  ctx.signal.addEventListener('abort', () => stopMetrics.abort(), { once: true });
  // Served by every replica, leader or not: a standby's health is worth seeing too.
  const metricsServer = metricsAddress ? await serveMetrics({ registry: metrics.registry, address: metricsAddress, signal: stopMetrics.signal }) : undefined;
  const manager = startManager({
    component: COMPONENT,
    kubeConfig,
    signal: ctx.signal,
    metrics,
    logger,
    // Watching every namespace, it still holds its Lease where the Machine API lives.
    leaderElection: leaderElectionFor(namespace || machineAPINamespace, LEASE_NAME, common, ctx.env),
    controllers: (c) => [createMachineHealthCheckController(c, { namespace: namespace || undefined })],
  });
  if (metricsServer) logger.info({ address: metricsServer.address }, 'serving metrics');
  try {
    await manager.done;
  } finally {
    stopMetrics.abort();
    await metricsServer?.closed;
  }
}
