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
import { sleep } from '../../../runtime/clock.ts';
import { containerPath } from '../../../runtime/container-path.ts';
import { loadKubeConfig } from '../../../runtime/kubeconfig.ts';
import { startManager } from '../../../runtime/manager.ts';
import { createComponentMetrics } from '../../../runtime/metrics.ts';
import { serveMetrics } from '../../../runtime/metrics-server.ts';
import { parseImagesJson, type OperatorImages } from './images.ts';
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
  const images = await readImages(containerPath(String(values['images-json']), ctx.rootfs), String(values['images-json']), releaseVersion, ctx.signal);
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

/**
 * The release's images.json. During an update the new Deployment (RELEASE_VERSION) and the
 * new ConfigMap land in either order, and the kubelet rewrites a mounted ConfigMap only every
 * half minute: a file still naming the previous release is waited for, not fatal.
 */
async function readImages(file: string, shown: string, releaseVersion: string, signal: AbortSignal): Promise<OperatorImages> {
  const deadline = Date.now() + 120_000;
  for (;;) {
    let images: OperatorImages;
    try {
      images = parseImagesJson(readFileSync(file, 'utf8'), shown);
    } catch (err) {
      throw new Error(`${COMPONENT}: cannot read ${shown} (the ConfigMap machine-config-operator-images, mounted): ${(err as Error).message}`);
    }
    // Stopping while it waits: nothing will run with these images.
    if (images.releaseVersion === releaseVersion || signal.aborted) return images;
    if (Date.now() > deadline) throw new Error(`${COMPONENT}: ${shown} is release ${images.releaseVersion}, but RELEASE_VERSION is ${releaseVersion}`);
    await sleep(2000, signal);
  }
}
