/**
 * The machine-config-daemon component: `start [--kubeconfig K] [--v=N] [--node-name N]
 * [--root-mount /rootfs] [--drain-timeout 1m30s] [--metrics-socket PATH]
 * [--metrics-bind-address HOST:PORT [--tls-cert-file F --tls-private-key-file F]]`, one per node (a DaemonSet pod). The node is NODE_NAME
 * (the downward API's `spec.nodeName`) unless the flag names it; the node's root is the
 * container path `--root-mount` (the pod's hostPath volume of `/`), mapped to this host as every
 * component maps its volumes (runtime/container-path.ts). Its log is klog text, as OpenShift's
 * daemon writes it, so `kubectl logs ... -c machine-config-daemon` reads as the seed shows.
 *
 * `/metrics` is served unguarded on the Unix socket METRICS_SOCKET names (the operator's
 * DaemonSet: a volume shared with its oauth-proxy container, which guards them on the node's
 * address, port 9001), or on `--metrics-bind-address`: with a serving certificate, over HTTPS to
 * callers the API server authenticates and allows to GET /metrics (runtime/delegated-auth.ts),
 * for a daemon run without the proxy. With neither, none are served.
 */
import { parseDuration } from '../../../api/duration.ts';
import type { ComponentContext } from '../../../runtime/component.ts';
import { parseComponentFlags } from '../../../runtime/component-flags.ts';
import { containerPath } from '../../../runtime/container-path.ts';
import { klogDestination } from '../../../runtime/klog.ts';
import { loadKubeConfig } from '../../../runtime/kubeconfig.ts';
import { createLogger } from '../../../runtime/logger.ts';
import { ApiClient } from '../../../runtime/client.ts';
import { createDelegatedAuth } from '../../../runtime/delegated-auth.ts';
import { serveMetrics } from '../../../runtime/metrics-server.ts';
import { COMPONENT, runDaemon } from './daemon.ts';
import { createDaemonMetrics } from './metrics.ts';

export async function start(ctx: ComponentContext): Promise<void> {
  const [command, ...rest] = ctx.args;
  if (command !== 'start') throw new Error(`${COMPONENT}: unknown command "${command ?? ''}" (expected start)`);
  const { common, values } = parseComponentFlags(COMPONENT, rest, {
    v: { type: 'string' },
    'node-name': { type: 'string' },
    'root-mount': { type: 'string', default: '/rootfs' },
    'drain-timeout': { type: 'string', default: '1m30s' },
    'metrics-socket': { type: 'string' },
    'metrics-bind-address': { type: 'string' },
    'tls-cert-file': { type: 'string' },
    'tls-private-key-file': { type: 'string' },
  });
  const nodeName = (values['node-name'] as string | undefined) || ctx.env.NODE_NAME;
  if (!nodeName) throw new Error(`${COMPONENT}: no node: set NODE_NAME (the DaemonSet takes it from spec.nodeName) or --node-name`);
  let drainTimeoutMs: number;
  try {
    drainTimeoutMs = parseDuration(String(values['drain-timeout']));
  } catch (err) {
    throw new Error(`${COMPONENT}: --drain-timeout: ${(err as Error).message}`);
  }
  const root = containerPath(String(values['root-mount']), ctx.rootfs);
  const kubeConfig = loadKubeConfig({ kubeconfig: common.kubeconfig, env: ctx.env, rootfs: ctx.rootfs });
  // The container's environment, not this process's: inline, the two differ.
  const logger = createLogger({ component: COMPONENT, level: ctx.env.SHIPYARD_LOG_LEVEL || undefined, destination: klogDestination() });
  const socket = (values['metrics-socket'] as string | undefined) || ctx.env.METRICS_SOCKET;
  const address = values['metrics-bind-address'] as string | undefined;
  const certFile = values['tls-cert-file'] as string | undefined;
  const keyFile = values['tls-private-key-file'] as string | undefined;
  if (!certFile !== !keyFile) throw new Error(`${COMPONENT}: --tls-cert-file and --tls-private-key-file go together`);
  if (certFile && !address) throw new Error(`${COMPONENT}: --tls-cert-file needs --metrics-bind-address`);
  const metrics = createDaemonMetrics(COMPONENT, { collectDefaults: !!(socket || address) });
  // Its own signal, so a daemon that fails stops it too, not only a stop from outside.
  const stopMetrics = new AbortController();
  ctx.signal.addEventListener('abort', () => stopMetrics.abort(), { once: true });
  // Its own client: the reviews must not queue behind the daemon's watches and drains.
  const reviewer = certFile ? new ApiClient(kubeConfig, { userAgent: `${COMPONENT}-metrics` }) : undefined;
  const secure = certFile && keyFile && reviewer
    ? { tls: { certFile: containerPath(certFile, ctx.rootfs), keyFile: containerPath(keyFile, ctx.rootfs) }, auth: createDelegatedAuth({ client: reviewer }), logger }
    : {};
  const metricsServer = await Promise.resolve(address
    ? serveMetrics({ registry: metrics.registry, address, signal: stopMetrics.signal, ...secure })
    : socket
      ? serveMetrics({ registry: metrics.registry, socketPath: containerPath(socket, ctx.rootfs), signal: stopMetrics.signal })
      : undefined,
  ).catch((err: unknown) => {
    reviewer?.close();
    throw err;
  });
  if (metricsServer) logger.info(`Serving metrics on ${metricsServer.address}`);
  try {
    await runDaemon({ nodeName, root, kubeConfig, signal: ctx.signal, logger, metrics, drainTimeoutMs }).done;
  } finally {
    stopMetrics.abort();
    await metricsServer?.closed;
    reviewer?.close();
  }
}
