/**
 * The machine-approver component (OpenShift's cluster-machine-approver): `[--kubeconfig K]
 * [--machine-namespace NS] [--metrics-bind-address HOST:PORT]` plus the leader election flags,
 * its controllers under leader election on the Lease
 * `openshift-cluster-machine-approver/cluster-machine-approver-leader`. RELEASE_VERSION (set in
 * its Deployment) is the version its ClusterOperator reports. `/metrics`, with OpenShift's
 * `mapi_current_pending_csr` and `mapi_max_pending_csr`, is served on the pod's IP (POD_IP) at
 * port 9192 unless the flag says otherwise; without either, no metrics are served.
 */
import type { ComponentContext } from '../../runtime/component.ts';
import { leaderElectionFor, parseComponentFlags } from '../../runtime/component-flags.ts';
import { loadKubeConfig } from '../../runtime/kubeconfig.ts';
import { createLogger } from '../../runtime/logger.ts';
import { startManager } from '../../runtime/manager.ts';
import { createComponentMetrics } from '../../runtime/metrics.ts';
import { serveMetrics } from '../../runtime/metrics-server.ts';
import { APPROVER_NAMESPACE, COMPONENT, createMachineApprover, createStatusReporter, MACHINE_NAMESPACE, pendingGauges } from './controller.ts';

export const METRICS_PORT = 9192;
export const LEASE_NAME = 'cluster-machine-approver-leader';

export async function start(ctx: ComponentContext): Promise<void> {
  const { common, values } = parseComponentFlags(COMPONENT, ctx.args, {
    'machine-namespace': { type: 'string', default: MACHINE_NAMESPACE },
    'metrics-bind-address': { type: 'string' },
    v: { type: 'string' },
  });
  const releaseVersion = ctx.env.RELEASE_VERSION;
  if (!releaseVersion) throw new Error(`${COMPONENT}: RELEASE_VERSION is not set (its Deployment sets it)`);
  const kubeConfig = loadKubeConfig({ kubeconfig: common.kubeconfig, env: ctx.env, rootfs: ctx.rootfs });
  const metrics = createComponentMetrics(COMPONENT, undefined, { collectDefaults: true });
  const gauges = pendingGauges(metrics.registry);
  // The container's environment, not this process's: inline, the two differ.
  const logger = createLogger({ component: COMPONENT, level: ctx.env.SHIPYARD_LOG_LEVEL || undefined });
  const metricsAddress = (values['metrics-bind-address'] as string | undefined) ?? (ctx.env.POD_IP ? `${ctx.env.POD_IP}:${METRICS_PORT}` : undefined);
  // Its own signal, so a manager that fails stops it too, not only a stop from outside.
  const stopMetrics = new AbortController();
  ctx.signal.addEventListener('abort', () => stopMetrics.abort(), { once: true });
  const metricsServer = metricsAddress ? await serveMetrics({ registry: metrics.registry, address: metricsAddress, signal: stopMetrics.signal }) : undefined;
  const machineNamespace = String(values['machine-namespace']);
  const manager = startManager({
    component: COMPONENT,
    kubeConfig,
    signal: ctx.signal,
    metrics,
    logger,
    leaderElection: leaderElectionFor(APPROVER_NAMESPACE, LEASE_NAME, common, ctx.env),
    controllers: (c) => [createMachineApprover(c, { gauges, machineNamespace }), createStatusReporter(c, { releaseVersion })],
  });
  if (metricsServer) logger.info({ address: metricsServer.address }, 'serving metrics');
  try {
    await manager.done;
  } finally {
    stopMetrics.abort();
    await metricsServer?.closed;
  }
}
