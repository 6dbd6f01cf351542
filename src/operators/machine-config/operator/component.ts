/**
 * The machine-config-operator component: `start [--kubeconfig K] [--v=N] [--images-json F]
 * [--release-image R] [--metrics-bind-address HOST:PORT]`, under leader election on the Lease
 * `openshift-machine-config-operator/machine-config` (OpenShift's lock). Its version is the
 * release's (RELEASE_VERSION in its Deployment); the operand images come from the payload's
 * `images.json`, mounted from the ConfigMap `machine-config-operator-images`. `/metrics` is
 * served on the pod's IP (POD_IP) at port 9001 unless the flag says otherwise.
 */
import { readFileSync } from 'node:fs';
import type { ComponentContext } from '../../../runtime/component.ts';
import { leaderElectionFor, parseComponentFlags } from '../../../runtime/component-flags.ts';
import { containerPath } from '../../../runtime/container-path.ts';
import { loadKubeConfig } from '../../../runtime/kubeconfig.ts';
import { startManager } from '../../../runtime/manager.ts';
import { createComponentMetrics } from '../../../runtime/metrics.ts';
import { serveMetrics } from '../../../runtime/metrics-server.ts';
import { parseImagesJson } from './images.ts';
import { MCO_NAMESPACE, OPERATOR_LEASE, operands } from './names.ts';
import { createMachineConfigOperator } from './operator.ts';

const COMPONENT = operands.operator;
export const METRICS_PORT = 9001;
export const defaultImagesJson = '/etc/mco/images/images.json';

export async function start(ctx: ComponentContext): Promise<void> {
  const [command, ...rest] = ctx.args;
  if (command !== 'start') throw new Error(`${COMPONENT}: unknown command "${command ?? ''}" (expected start)`);
  const { common, values } = parseComponentFlags(COMPONENT, rest, {
    v: { type: 'string' },
    'images-json': { type: 'string', default: defaultImagesJson },
    'release-image': { type: 'string' },
    'metrics-bind-address': { type: 'string' },
  });
  const releaseVersion = ctx.env.RELEASE_VERSION;
  if (!releaseVersion) throw new Error(`${COMPONENT}: RELEASE_VERSION is not set (the payload sets it in the Deployment)`);
  const releaseImage = values['release-image'] as string | undefined;
  if (!releaseImage) throw new Error(`${COMPONENT}: --release-image is required (the payload's Deployment passes the release image)`);
  const imagesFile = containerPath(String(values['images-json']), ctx.rootfs);
  let text: string;
  try {
    text = readFileSync(imagesFile, 'utf8');
  } catch (err) {
    throw new Error(`${COMPONENT}: cannot read ${String(values['images-json'])} (the ConfigMap machine-config-operator-images, mounted): ${(err as Error).message}`);
  }
  const images = parseImagesJson(text, String(values['images-json']));
  if (images.releaseVersion !== releaseVersion) throw new Error(`${COMPONENT}: ${String(values['images-json'])} is release ${images.releaseVersion}, but RELEASE_VERSION is ${releaseVersion}`);

  const kubeConfig = loadKubeConfig({ kubeconfig: common.kubeconfig, env: ctx.env, rootfs: ctx.rootfs });
  const metrics = createComponentMetrics(COMPONENT, undefined, { collectDefaults: true });
  const metricsAddress = (values['metrics-bind-address'] as string | undefined) ?? (ctx.env.POD_IP ? `${ctx.env.POD_IP}:${METRICS_PORT}` : undefined);
  const stopMetrics = new AbortController();
  ctx.signal.addEventListener('abort', () => stopMetrics.abort(), { once: true });
  const metricsServer = metricsAddress ? await serveMetrics({ registry: metrics.registry, address: metricsAddress, signal: stopMetrics.signal }) : undefined;
  const manager = startManager({
    component: COMPONENT,
    kubeConfig,
    signal: ctx.signal,
    metrics,
    leaderElection: leaderElectionFor(MCO_NAMESPACE, OPERATOR_LEASE, common, ctx.env),
    controllers: (c) => [createMachineConfigOperator(c, { images, releaseVersion, releaseImage })],
  });
  if (metricsServer) manager.logger.info({ address: metricsServer.address }, 'serving metrics');
  try {
    await manager.done;
  } finally {
    stopMetrics.abort();
    await metricsServer?.closed;
  }
}
