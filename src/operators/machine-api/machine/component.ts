/**
 * The machine controller component, what the platform's provider image runs in the
 * `machine-controller` container of `machine-api-controllers`: `[/machine-controller-manager]
 * [--namespace NS] [--kubeconfig K] [--v=N] [--metrics-bind-address HOST:PORT]
 * [--leader-elect* ...] [--requeue-after D] [--drain-requeue-after D] [--drain-timeout D]
 * [--max-concurrent-reconciles N]`. The provider is the one for the cluster's platform
 * (`infrastructure.config.openshift.io/cluster` `status.platformStatus.type`); a platform this
 * image has no provider for is refused at start, naming it. Leader election on the Lease
 * `<namespace>/cluster-api-provider-shipyard-leader`; `/metrics` on the pod's IP (POD_IP) at port
 * 9442 unless the flag says otherwise. The delays default to OpenShift's (30 s between looks at
 * an instance, 20 s between drain attempts, 20 s per attempt); tests and benchmarks shorten them.
 */
import { Infrastructure } from '../../../api/config/infrastructure.ts';
import { parseDuration } from '../../../api/duration.ts';
import { machineAPINamespace } from '../../../api/machine/index.ts';
import { ApiClient } from '../../../runtime/client.ts';
import type { ComponentContext } from '../../../runtime/component.ts';
import { leaderElectionFor, parseComponentFlags } from '../../../runtime/component-flags.ts';
import { loadKubeConfig } from '../../../runtime/kubeconfig.ts';
import { createLogger } from '../../../runtime/logger.ts';
import { startManager } from '../../../runtime/manager.ts';
import { createComponentMetrics } from '../../../runtime/metrics.ts';
import { serveMetrics } from '../../../runtime/metrics-server.ts';
import { refOf } from '../../../runtime/resources.ts';
import { assertSupportedPlatform, providerFor } from '../providers/registry.ts';
import { machineControllers } from './controllers.ts';

export const COMPONENT = 'machine-controller';
export const METRICS_PORT = 9442;
export const LEASE_NAME = 'cluster-api-provider-shipyard-leader';
/** The program name OpenShift's provider images run; accepted as a first argument and ignored. */
const PROGRAM = '/machine-controller-manager';

function duration(flag: string, value: unknown): number {
  try {
    return parseDuration(String(value));
  } catch (err) {
    throw new Error(`${COMPONENT}: --${flag}: ${(err as Error).message}`);
  }
}

/** The cluster's platform type, as the Machine API operator reads it. */
export async function clusterPlatform(client: ApiClient): Promise<string | undefined> {
  const infra = await client.get<Infrastructure>(refOf(Infrastructure), undefined, 'cluster');
  return infra.status?.platformStatus?.type || infra.status?.platform || undefined;
}

export async function start(ctx: ComponentContext): Promise<void> {
  const args = ctx.args[0] === PROGRAM ? ctx.args.slice(1) : ctx.args;
  const { common, values } = parseComponentFlags(COMPONENT, args, {
    v: { type: 'string' },
    namespace: { type: 'string', default: machineAPINamespace },
    'metrics-bind-address': { type: 'string' },
    'requeue-after': { type: 'string', default: '30s' },
    'drain-requeue-after': { type: 'string', default: '20s' },
    'drain-timeout': { type: 'string', default: '20s' },
    'max-concurrent-reconciles': { type: 'string', default: '1' },
  });
  const namespace = String(values.namespace) || undefined;
  const requeueAfterMs = duration('requeue-after', values['requeue-after']);
  const drainRequeueAfterMs = duration('drain-requeue-after', values['drain-requeue-after']);
  const drainTimeoutMs = duration('drain-timeout', values['drain-timeout']);
  const workers = Number(values['max-concurrent-reconciles']);
  if (!Number.isInteger(workers) || workers < 1) throw new Error(`${COMPONENT}: --max-concurrent-reconciles must be a positive integer, got "${values['max-concurrent-reconciles']}"`);

  const kubeConfig = loadKubeConfig({ kubeconfig: common.kubeconfig, env: ctx.env, rootfs: ctx.rootfs });
  const logger = createLogger({ component: COMPONENT, level: ctx.env.SHIPYARD_LOG_LEVEL || undefined });
  // Which provider is decided once, before campaigning: a platform this image cannot serve is a configuration error to say at once.
  const probe = new ApiClient(kubeConfig, { userAgent: COMPONENT });
  let platform: string | undefined;
  try {
    platform = await clusterPlatform(probe);
  } catch (err) {
    throw new Error(`${COMPONENT}: reading infrastructure.config.openshift.io/cluster: ${(err as Error).message}`);
  } finally {
    probe.close();
  }
  try {
    assertSupportedPlatform(platform);
  } catch (err) {
    throw new Error(`${COMPONENT}: ${(err as Error).message}`);
  }
  logger.info({ platform, namespace: namespace ?? '(all)' }, 'machine provider chosen');

  const metrics = createComponentMetrics(COMPONENT, undefined, { collectDefaults: true });
  const metricsAddress = (values['metrics-bind-address'] as string | undefined) ?? (ctx.env.POD_IP ? `${ctx.env.POD_IP}:${METRICS_PORT}` : undefined);
  const stopMetrics = new AbortController();
  ctx.signal.addEventListener('abort', () => stopMetrics.abort(), { once: true });
  const metricsServer = metricsAddress ? await serveMetrics({ registry: metrics.registry, address: metricsAddress, signal: stopMetrics.signal }) : undefined;
  if (metricsServer) logger.info({ address: metricsServer.address }, 'serving metrics');
  const manager = startManager({
    component: COMPONENT,
    kubeConfig,
    signal: ctx.signal,
    metrics,
    logger,
    leaderElection: leaderElectionFor(namespace ?? machineAPINamespace, LEASE_NAME, common, ctx.env),
    controllers: (c) =>
      machineControllers(c, { provider: providerFor(platform, { client: c.client, requeueAfterMs }), namespace, requeueAfterMs, workers, drainRequeueAfterMs, drainTimeoutMs }),
  });
  try {
    await manager.done;
  } finally {
    stopMetrics.abort();
    await metricsServer?.closed;
  }
}
