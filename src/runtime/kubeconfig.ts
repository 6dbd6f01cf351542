/**
 * How a component finds the API server, in client-go's order: an explicit kubeconfig path,
 * then `KUBECONFIG`, then in-cluster configuration (the `kubernetes` Service's
 * `KUBERNETES_SERVICE_HOST/PORT` and the pod's service-account token and `ca.crt`).
 *
 * client-node's own `loadFromCluster` reads the token from its fixed path under /var/run; a
 * process pod's files are under its rootfs instead, so the paths go through `containerPath`.
 */
import { readFileSync, existsSync } from 'node:fs';
import { KubeConfig } from '@kubernetes/client-node';
import { containerPath } from './container-path.ts';

export const SERVICE_ACCOUNT_DIR = '/var/run/secrets/kubernetes.io/serviceaccount';

export interface LoadOptions {
  kubeconfig?: string;
  env?: Readonly<Record<string, string | undefined>>;
  rootfs?: string;
}

export function loadKubeConfig(opts: LoadOptions = {}): KubeConfig {
  const env = opts.env ?? process.env;
  const kc = new KubeConfig();
  const path = opts.kubeconfig ?? env.KUBECONFIG;
  if (path) {
    kc.loadFromFile(path);
    return kc;
  }
  const host = env.KUBERNETES_SERVICE_HOST;
  const port = env.KUBERNETES_SERVICE_PORT;
  const tokenPath = containerPath(`${SERVICE_ACCOUNT_DIR}/token`, opts.rootfs ?? env.SHIPYARD_ROOTFS);
  if (!host || !port || !existsSync(tokenPath)) {
    throw new Error('no kubeconfig: pass --kubeconfig, set KUBECONFIG, or run in a pod (KUBERNETES_SERVICE_HOST/PORT and a service-account token)');
  }
  const caPath = containerPath(`${SERVICE_ACCOUNT_DIR}/ca.crt`, opts.rootfs ?? env.SHIPYARD_ROOTFS);
  const server = `https://${host.includes(':') ? `[${host}]` : host}:${port}`;
  kc.loadFromOptions({
    clusters: [{ name: 'in-cluster', server, caData: Buffer.from(readFileSync(caPath)).toString('base64'), skipTLSVerify: false }],
    users: [{ name: 'in-cluster', token: readFileSync(tokenPath, 'utf8').trim() }],
    contexts: [{ name: 'in-cluster', cluster: 'in-cluster', user: 'in-cluster' }],
    currentContext: 'in-cluster',
  });
  return kc;
}

/**
 * The PEM of the CA the current cluster's server certificate must chain to, from the
 * kubeconfig (`certificate-authority-data` or `certificate-authority`), or undefined when it
 * names none (the system trust store would then apply).
 */
export function clusterCaPem(kc: KubeConfig): string | undefined {
  const cluster = kc.getCurrentCluster();
  if (cluster?.caData) return Buffer.from(cluster.caData, 'base64').toString('utf8');
  if (cluster?.caFile) return readFileSync(cluster.caFile, 'utf8');
  return undefined;
}
