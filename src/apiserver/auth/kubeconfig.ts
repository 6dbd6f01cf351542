/**
 * Kubeconfigs: the admin's (the https URL, the CA inline, and the admin bearer token), and
 * those of identities that authenticate with a client certificate (the control plane's
 * components, each kubelet).
 */
import { stringify } from 'yaml';
import { writeFileAtomic } from '../../api/files.ts';

export interface KubeconfigOptions {
  readonly server: string;
  readonly caCertPem: string;
  /** A bearer token, or else a client certificate and its key. */
  readonly token?: string;
  readonly clientCertificate?: { readonly certPem: string; readonly keyPem: string };
  readonly clusterName?: string;
  readonly user?: string;
}

const b64 = (s: string): string => Buffer.from(s).toString('base64');

export function renderKubeconfig(o: KubeconfigOptions): string {
  const cluster = o.clusterName ?? 'shipyard';
  const user = o.user ?? 'admin';
  return stringify({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: cluster, cluster: { server: o.server, 'certificate-authority-data': Buffer.from(o.caCertPem).toString('base64') } }],
    users: [{ name: user, user: o.clientCertificate ? { 'client-certificate-data': b64(o.clientCertificate.certPem), 'client-key-data': b64(o.clientCertificate.keyPem) } : { token: o.token } }],
    contexts: [{ name: `${user}@${cluster}`, context: { cluster, user, namespace: 'default' } }],
    'current-context': `${user}@${cluster}`,
    preferences: {},
  });
}

export function writeKubeconfig(path: string, o: KubeconfigOptions): void {
  writeFileAtomic(path, renderKubeconfig(o), 0o600);
}
