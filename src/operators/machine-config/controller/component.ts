/**
 * The machine-config-controller component: `start [--kubeconfig K] [--v=N]
 * [--metrics-bind-address HOST:PORT] [--rendered-config-gc-grace-period D]`, its controllers
 * under leader election on the Lease `openshift-machine-config-operator/machine-config-controller`.
 * Its version is the release's (RELEASE_VERSION, set by the operator that deploys it, which
 * stamps the same version on the ControllerConfig). `/metrics` is served on the pod's IP
 * (POD_IP, from the downward API) at port 9001, as OpenShift's controller serves them, unless
 * the flag says otherwise; without either, no metrics are served.
 */
import { parseDuration } from '../../../api/duration.ts';
import type { ComponentContext } from '../../../runtime/component.ts';
import { leaderElectionFor, parseComponentFlags } from '../../../runtime/component-flags.ts';
import { loadKubeConfig } from '../../../runtime/kubeconfig.ts';
import { createLogger } from '../../../runtime/logger.ts';
import { startManager } from '../../../runtime/manager.ts';
import { createComponentMetrics } from '../../../runtime/metrics.ts';
import { serveMetrics } from '../../../runtime/metrics-server.ts';
import { COMPONENT, machineConfigControllers, MCO_NAMESPACE } from './controllers.ts';

export const METRICS_PORT = 9001;

export async function start(ctx: ComponentContext): Promise<void> {
  const [command, ...rest] = ctx.args;
  if (command !== 'start') throw new Error(`${COMPONENT}: unknown command "${command ?? ''}" (expected start)`);
  const { common, values } = parseComponentFlags(COMPONENT, rest, {
    v: { type: 'string' },
    'metrics-bind-address': { type: 'string' },
    'rendered-config-gc-grace-period': { type: 'string', default: '10m' },
  });
  const controllerVersion = ctx.env.RELEASE_VERSION;
  if (!controllerVersion) throw new Error(`${COMPONENT}: RELEASE_VERSION is not set (the operator sets it in the Deployment)`);
  let renderedConfigGracePeriodMs: number;
  try {
    renderedConfigGracePeriodMs = parseDuration(String(values['rendered-config-gc-grace-period']));
  } catch (err) {
    throw new Error(`${COMPONENT}: --rendered-config-gc-grace-period: ${(err as Error).message}`);
  }
  const kubeConfig = loadKubeConfig({ kubeconfig: common.kubeconfig, env: ctx.env, rootfs: ctx.rootfs });
  const metrics = createComponentMetrics(COMPONENT, undefined, { collectDefaults: true });
  // The container's environment, not this process's: inline, the two differ.
  const logger = createLogger({ component: COMPONENT, level: ctx.env.SHIPYARD_LOG_LEVEL || undefined });
  const metricsAddress = (values['metrics-bind-address'] as string | undefined) ?? (ctx.env.POD_IP ? `${ctx.env.POD_IP}:${METRICS_PORT}` : undefined);
  // Its own signal, so a manager that fails stops it too, not only a stop from outside.
  const stopMetrics = new AbortController();
  ctx.signal.addEventListener('abort', () => stopMetrics.abort(), { once: true });
  // Served by every replica, leader or not, as kube components do: a standby's health is worth seeing too.
  const metricsServer = metricsAddress ? await serveMetrics({ registry: metrics.registry, address: metricsAddress, signal: stopMetrics.signal }) : undefined;
  const manager = startManager({
    component: COMPONENT,
    kubeConfig,
    signal: ctx.signal,
    metrics,
    logger,
    leaderElection: leaderElectionFor(MCO_NAMESPACE, COMPONENT, common, ctx.env),
    controllers: (c) => machineConfigControllers(c, { controllerVersion, renderedConfigGracePeriodMs }),
  });
  if (metricsServer) logger.info({ address: metricsServer.address }, 'serving metrics');
  try {
    await manager.done;
  } finally {
    stopMetrics.abort();
    await metricsServer?.closed;
  }
}
