/**
 * The machine-api-operator component: `start [--kubeconfig K] [--images-json F] [--v=N]
 * [--metrics-bind-address HOST:PORT] [--deployment-minimum-availability D] [--leader-elect ...]`,
 * under leader election on the Lease `openshift-machine-api/machine-api-operator` (OpenShift's).
 *
 * In its pod (the payload's Deployment) images.json is the mounted ConfigMap
 * `machine-api-operator-images`, RELEASE_VERSION is the release's, and `/metrics` is served on
 * the pod's IP (POD_IP) at 9445. On a host (seed 003's dev loop, `shipyard component
 * machine-api-operator start --kubeconfig K --images-json F`) the kubeconfig and the file are
 * the host's own, a relative path is taken from the working directory, and without POD_IP no
 * metrics are served unless the flag asks; without RELEASE_VERSION it reports no versions.
 */
import { isAbsolute, resolve } from 'node:path';
import { parseDuration } from '../../../api/duration.ts';
import type { ComponentContext } from '../../../runtime/component.ts';
import { leaderElectionFor, parseComponentFlags } from '../../../runtime/component-flags.ts';
import { containerPath } from '../../../runtime/container-path.ts';
import type { Controller } from '../../../runtime/controller.ts';
import { loadKubeConfig } from '../../../runtime/kubeconfig.ts';
import { createLogger } from '../../../runtime/logger.ts';
import { startManager } from '../../../runtime/manager.ts';
import { createComponentMetrics } from '../../../runtime/metrics.ts';
import { serveMetrics } from '../../../runtime/metrics-server.ts';
import { DEFAULT_IMAGES_JSON, MAO_NAMESPACE, metricsPorts, OPERATOR } from './names.ts';
import { createMachineAPIOperator, SYNC_KEY, watchImagesFile } from './operator.ts';

export async function start(ctx: ComponentContext): Promise<void> {
  const [command, ...rest] = ctx.args;
  if (command !== 'start') throw new Error(`${OPERATOR}: unknown command "${command ?? ''}" (expected start)`);
  const { common, values } = parseComponentFlags(OPERATOR, rest, {
    v: { type: 'string' },
    'images-json': { type: 'string', default: DEFAULT_IMAGES_JSON },
    'metrics-bind-address': { type: 'string' },
    'deployment-minimum-availability': { type: 'string', default: '0s' },
  });
  let minimumAvailableMs: number;
  try {
    minimumAvailableMs = parseDuration(String(values['deployment-minimum-availability']));
  } catch (err) {
    throw new Error(`${OPERATOR}: --deployment-minimum-availability: ${(err as Error).message}`);
  }
  const shown = String(values['images-json']);
  // A container path in a pod; on a host, a path like any other command's.
  const imagesFile = isAbsolute(shown) ? containerPath(shown, ctx.rootfs) : resolve(shown);
  const kubeConfig = loadKubeConfig({ kubeconfig: common.kubeconfig, env: ctx.env, rootfs: ctx.rootfs });
  const metrics = createComponentMetrics(OPERATOR, undefined, { collectDefaults: true });
  // The container's environment, not this process's: inline, the two differ.
  const logger = createLogger({ component: OPERATOR, level: ctx.env.SHIPYARD_LOG_LEVEL || undefined });
  const metricsAddress = (values['metrics-bind-address'] as string | undefined) ?? (ctx.env.POD_IP ? `${ctx.env.POD_IP}:${metricsPorts.operator}` : undefined);
  const stopMetrics = new AbortController();
  ctx.signal.addEventListener('abort', () => stopMetrics.abort(), { once: true });
  const metricsServer = metricsAddress ? await serveMetrics({ registry: metrics.registry, address: metricsAddress, signal: stopMetrics.signal }) : undefined;
  let operator: Controller | undefined;
  const stopWatching = watchImagesFile(imagesFile, () => operator?.enqueue(SYNC_KEY));
  const manager = startManager({
    component: OPERATOR,
    kubeConfig,
    signal: ctx.signal,
    metrics,
    logger,
    leaderElection: leaderElectionFor(MAO_NAMESPACE, OPERATOR, common, ctx.env),
    controllers: (c) => {
      operator = createMachineAPIOperator(c, { imagesFile, imagesSource: shown, releaseVersion: ctx.env.RELEASE_VERSION || undefined, minimumAvailableMs });
      return [operator];
    },
  });
  if (metricsServer) logger.info({ address: metricsServer.address }, 'serving metrics');
  logger.info({ imagesJson: imagesFile, releaseVersion: ctx.env.RELEASE_VERSION || 'unknown' }, 'starting');
  try {
    await manager.done;
  } finally {
    stopWatching();
    stopMetrics.abort();
    await metricsServer?.closed;
  }
}
