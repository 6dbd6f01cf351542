/**
 * The oauth-proxy component, OpenShift's authenticating proxy reduced to what guards a metrics
 * endpoint: `--https-address HOST:PORT --upstream unix:///path|http://HOST:PORT --tls-cert F
 * --tls-key F --openshift-delegate-urls JSON [--kubeconfig K] [--reload-interval 30s]`. It serves
 * HTTPS with the mounted certificate (looked at again every reload interval, so a re-issued one
 * is taken up without a restart; runtime/serving-cert.ts) and passes on only requests whose
 * bearer token the API server authenticates and whose access it allows (proxy.ts). It runs as
 * the pod's ServiceAccount, which needs kube's `system:auth-delegator` (TokenReviews and
 * SubjectAccessReviews).
 */
import { createServer } from 'node:https';
import { parseDuration } from '../../../api/duration.ts';
import { ApiClient } from '../../../runtime/client.ts';
import type { ComponentContext } from '../../../runtime/component.ts';
import { parseComponentFlags } from '../../../runtime/component-flags.ts';
import { containerPath } from '../../../runtime/container-path.ts';
import { loadKubeConfig } from '../../../runtime/kubeconfig.ts';
import { createLogger } from '../../../runtime/logger.ts';
import { MIN_TLS_VERSION, readServingPair, reloadServingCert } from '../../../runtime/serving-cert.ts';
import { socketPath } from '../../../runtime/unix-socket.ts';
import { parseDelegateUrls } from './delegate-urls.ts';
import { createProxyHandler, parseUpstream } from './proxy.ts';

const COMPONENT = 'oauth-proxy';

export async function start(ctx: ComponentContext): Promise<void> {
  const { common, values } = parseComponentFlags(COMPONENT, ctx.args, {
    'https-address': { type: 'string' },
    upstream: { type: 'string' },
    'tls-cert': { type: 'string' },
    'tls-key': { type: 'string' },
    'openshift-delegate-urls': { type: 'string' },
    'reload-interval': { type: 'string', default: '30s' },
  });
  const required = (flag: string): string => {
    const v = values[flag];
    if (typeof v !== 'string' || !v) throw new Error(`${COMPONENT}: --${flag} is required`);
    return v;
  };
  const m = /^(127\.\d{1,3}\.\d{1,3}\.\d{1,3}):(\d{1,5})$/.exec(required('https-address'));
  if (!m) throw new Error(`${COMPONENT}: --https-address ${String(values['https-address'])} must be <127.x.y.z>:<port>`);
  let upstream: ReturnType<typeof parseUpstream>;
  let rules: ReturnType<typeof parseDelegateUrls>;
  let reloadMs: number;
  try {
    upstream = parseUpstream(required('upstream'));
    rules = parseDelegateUrls(required('openshift-delegate-urls'));
    reloadMs = parseDuration(String(values['reload-interval']));
  } catch (err) {
    throw new Error(`${COMPONENT}: ${(err as Error).message}`);
  }
  const certFile = containerPath(required('tls-cert'), ctx.rootfs);
  const keyFile = containerPath(required('tls-key'), ctx.rootfs);
  const logger = createLogger({ component: COMPONENT, level: ctx.env.SHIPYARD_LOG_LEVEL || undefined });
  let pair: ReturnType<typeof readServingPair>;
  try {
    pair = readServingPair(certFile, keyFile);
  } catch (err) {
    throw new Error(`${COMPONENT}: cannot read the serving certificate (--tls-cert ${required('tls-cert')}, --tls-key ${required('tls-key')}): ${(err as Error).message}`);
  }

  const kubeConfig = loadKubeConfig({ kubeconfig: common.kubeconfig, env: ctx.env, rootfs: ctx.rootfs });
  const client = new ApiClient(kubeConfig, { userAgent: COMPONENT });
  // The pod's container paths are longer than a socket address holds (runtime/unix-socket.ts).
  const target = 'socketPath' in upstream ? { socketPath: socketPath(containerPath(upstream.socketPath, ctx.rootfs)).path } : upstream;
  const server = createServer({ ...pair, minVersion: MIN_TLS_VERSION }, createProxyHandler({ client, rules, upstream: target, logger }));
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(Number(m[2]), m[1], () => {
        server.off('error', reject);
        resolve();
      });
    });
  } catch (err) {
    client.close();
    throw new Error(`${COMPONENT}: cannot listen on ${m[1]}:${m[2]}: ${(err as Error).message}`);
  }
  const stopReload = reloadServingCert(server, { certFile, keyFile, initial: pair, logger, intervalMs: reloadMs });
  logger.info({ address: `${m[1]}:${m[2]}`, upstream: required('upstream') }, 'oauth-proxy listening');
  try {
    if (!ctx.signal.aborted) await new Promise<void>((done) => ctx.signal.addEventListener('abort', () => done(), { once: true }));
  } finally {
    stopReload();
    await new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
    client.close();
  }
}
