/**
 * The kubeconfig a joining node gets in `/etc/kubernetes/kubeconfig`: the API server's
 * internal URL, the cluster CA, and a token of the `node-bootstrapper` ServiceAccount, whose
 * role lets it create and read CertificateSigningRequests and nothing else (kube's
 * `system:node-bootstrapper`). The token is minted per served config by a TokenRequest and
 * expires (a day by default), so a config that leaks carries no lasting key to the cluster,
 * and deleting the ServiceAccount revokes every one at once. The admin's credential never
 * comes near it: the server holds only its own ServiceAccount's token.
 */
import { stringify } from 'yaml';
import type { ApiClient } from '../../../runtime/client.ts';
import { objectPath, resources } from '../../../runtime/resources.ts';

export interface NodeKubeconfigInput {
  readonly server: string;
  readonly caPem: string;
  readonly token: string;
}

export function nodeBootstrapKubeconfig(input: NodeKubeconfigInput): string {
  return stringify({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: 'local', cluster: { server: input.server, 'certificate-authority-data': Buffer.from(input.caPem).toString('base64') } }],
    users: [{ name: 'kubelet', user: { token: input.token } }],
    contexts: [{ name: 'kubelet', context: { cluster: 'local', user: 'kubelet' } }],
    'current-context': 'kubelet',
    preferences: {},
  });
}

export interface MintOptions {
  readonly namespace: string;
  readonly serviceAccount: string;
  readonly expirationSeconds: number;
  readonly signal?: AbortSignal;
}

/** A fresh token for the ServiceAccount, for the API server's own audience. */
export async function mintServiceAccountToken(client: ApiClient, options: MintOptions): Promise<string> {
  const answer = await client.request<{ status?: { token?: string } }>('POST', objectPath(resources.serviceAccounts, options.namespace, options.serviceAccount, 'token'), {
    body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: { expirationSeconds: options.expirationSeconds } },
    signal: options.signal,
  });
  const token = answer?.status?.token;
  if (!token) throw new Error(`TokenRequest for ServiceAccount ${options.namespace}/${options.serviceAccount} returned no token`);
  return token;
}
