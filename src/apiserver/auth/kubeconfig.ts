/** Writes the admin kubeconfig: the https URL, the CA inline, and the admin bearer token. */
import { writeFileSync } from 'node:fs';
import { stringify } from 'yaml';

export interface KubeconfigOptions {
  readonly server: string;
  readonly caCertPem: string;
  readonly token: string;
  readonly clusterName?: string;
  readonly user?: string;
}

export function renderKubeconfig(o: KubeconfigOptions): string {
  const cluster = o.clusterName ?? 'shipyard';
  const user = o.user ?? 'admin';
  return stringify({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: cluster, cluster: { server: o.server, 'certificate-authority-data': Buffer.from(o.caCertPem).toString('base64') } }],
    users: [{ name: user, user: { token: o.token } }],
    contexts: [{ name: `${user}@${cluster}`, context: { cluster, user, namespace: 'default' } }],
    'current-context': `${user}@${cluster}`,
    preferences: {},
  });
}

export function writeKubeconfig(path: string, o: KubeconfigOptions): void {
  writeFileSync(path, renderKubeconfig(o), { mode: 0o600 });
}
