/**
 * The machine-config-server component: `start [--kubeconfig K] [--v=N] [--bind-address IP]
 * [--secure-port 22623] [--tls-cert-file F] [--tls-key-file F] [--bootstrap-token-file F]
 * [--apiserver-url URL] [--bootstrap-kubeconfig-expiration 24h]`. It runs on every master of
 * a hostNetwork DaemonSet and binds the node's own address, which the pod gets from the
 * downward API (`status.hostIP` as `HOST_IP`, as the kube-apiserver static pod does); no
 * leader election, every replica serves. Paths are container paths (the mounted Secrets).
 */
import { Infrastructure } from '../../../api/config/infrastructure.ts';
import { parseDuration } from '../../../api/duration.ts';
import { machineConfigOperatorNamespace, machineConfigServer } from '../../../api/machineconfiguration/index.ts';
import { ApiClient } from '../../../runtime/client.ts';
import type { ComponentContext } from '../../../runtime/component.ts';
import { parseComponentFlags } from '../../../runtime/component-flags.ts';
import { containerPath } from '../../../runtime/container-path.ts';
import { clusterCaPem, loadKubeConfig, type KubeAccess } from '../../../runtime/kubeconfig.ts';
import { createLogger } from '../../../runtime/logger.ts';
import { refOf } from '../../../runtime/resources.ts';
import { readBootstrapToken } from './bootstrap-token.ts';
import { createConfigHandler } from './handler.ts';
import { listenConfigServer } from './listen.ts';

const component = 'machine-config-server';
const loopback = /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/;

const defaultPaths = {
  tlsCert: `${machineConfigServer.mountPaths.tls}/tls.crt`,
  tlsKey: `${machineConfigServer.mountPaths.tls}/tls.key`,
  bootstrapToken: `${machineConfigServer.mountPaths.bootstrapToken}/${machineConfigServer.bootstrapTokenKey}`,
} as const;

export async function start(ctx: ComponentContext): Promise<void> {
  const [command, ...rest] = ctx.args;
  if (command !== 'start') throw new Error(`${component}: unknown command "${command ?? ''}" (expected start)`);
  const { common, values } = parseComponentFlags(component, rest, {
    v: { type: 'string' },
    'bind-address': { type: 'string' },
    'secure-port': { type: 'string', default: String(machineConfigServer.securePort) },
    'tls-cert-file': { type: 'string', default: defaultPaths.tlsCert },
    'tls-key-file': { type: 'string', default: defaultPaths.tlsKey },
    'bootstrap-token-file': { type: 'string', default: defaultPaths.bootstrapToken },
    'apiserver-url': { type: 'string' },
    'bootstrap-kubeconfig-expiration': { type: 'string', default: '24h' },
  });
  const bind = (values['bind-address'] as string | undefined) ?? ctx.env.HOST_IP;
  if (!bind) throw new Error(`${component}: --bind-address is required (or HOST_IP from the downward API's status.hostIP)`);
  if (!loopback.test(bind)) throw new Error(`${component}: --bind-address ${bind} is not a loopback address (127.0.0.0/8)`);
  const port = Number(values['secure-port']);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`${component}: --secure-port ${String(values['secure-port'])} is not a port number`);
  let expirationMs: number;
  try {
    expirationMs = parseDuration(String(values['bootstrap-kubeconfig-expiration']));
  } catch (err) {
    throw new Error(`${component}: --bootstrap-kubeconfig-expiration: ${(err as Error).message}`);
  }
  // TokenRequest refuses less than ten minutes.
  if (expirationMs < 600_000) throw new Error(`${component}: --bootstrap-kubeconfig-expiration must be at least 10m`);
  const apiServerUrl = values['apiserver-url'] as string | undefined;
  if (apiServerUrl !== undefined && !/^https:\/\/127\.\d{1,3}\.\d{1,3}\.\d{1,3}(:\d+)?\/?$/.test(apiServerUrl)) {
    throw new Error(`${component}: --apiserver-url ${apiServerUrl} is not an https URL on a loopback address (127.0.0.0/8)`);
  }

  const logger = createLogger({ component });
  const kubeConfig = loadKubeConfig({ kubeconfig: common.kubeconfig, env: ctx.env, rootfs: ctx.rootfs });
  const client = new ApiClient(kubeConfig, { userAgent: component });
  const path = (p: unknown) => containerPath(String(p), ctx.rootfs);
  const tokenFile = path(values['bootstrap-token-file']);
  const listener = await listenConfigServer({
    bindAddress: bind,
    port,
    certFile: path(values['tls-cert-file']),
    keyFile: path(values['tls-key-file']),
    logger,
    handler: createConfigHandler({
      client,
      logger,
      bootstrapToken: () => readBootstrapToken(tokenFile),
      apiServer: apiServerFor(client, kubeConfig, apiServerUrl),
      namespace: machineConfigOperatorNamespace,
      nodeTokenExpirationSeconds: Math.floor(expirationMs / 1000),
    }),
  });
  try {
    if (!ctx.signal.aborted) await new Promise<void>((done) => ctx.signal.addEventListener('abort', () => done(), { once: true }));
  } finally {
    await listener.close();
    client.close();
  }
}

/**
 * Where a joining node reaches the API server: the flag, else the Infrastructure singleton's
 * `apiServerInternalURI` (the load balancer), read once it is there. The CA is the one this
 * server trusts the API server with, the cluster CA.
 */
export function apiServerFor(client: ApiClient, kubeConfig: KubeAccess, flagUrl: string | undefined): () => Promise<{ url: string; caPem: string }> {
  let url = flagUrl;
  return async () => {
    const caPem = clusterCaPem(kubeConfig);
    if (!caPem) throw new Error('the kubeconfig names no cluster CA to give joining nodes');
    if (!url) {
      const infra = await client.get<Infrastructure>(refOf(Infrastructure), undefined, 'cluster');
      const internal = infra.status?.apiServerInternalURI;
      if (!internal) throw new Error('Infrastructure "cluster" has no status.apiServerInternalURI yet');
      url = internal;
    }
    return { url, caPem };
  };
}
