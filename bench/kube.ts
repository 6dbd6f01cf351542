/**
 * What a benchmark does to its cluster from outside, as an installer would: `kubectl` (to apply
 * the payload's manifests as they ship), and a kubeconfig holding a ServiceAccount's token, so a
 * component runs as its pod would, held to the payload's role.
 */
import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import type { KubeConfig } from '@kubernetes/client-node';
import type { ApiClient } from '../src/runtime/client.ts';
import { objectPath, resources } from '../src/runtime/resources.ts';

export function kubectl(kubeconfig: string, args: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const p = spawn('kubectl', [`--kubeconfig=${kubeconfig}`, ...args], { stdio: ['ignore', 'ignore', 'pipe'] });
    let err = '';
    p.stderr.on('data', (d: Buffer) => (err += d.toString()));
    p.once('error', reject);
    p.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`kubectl ${args.join(' ')}: ${err.trim()}`))));
  });
}

/** Writes to `path` a kubeconfig of the ServiceAccount `namespace/name`'s token on the admin kubeconfig's cluster. */
export async function serviceAccountKubeconfig(admin: ApiClient, kc: KubeConfig, namespace: string, name: string, path: string): Promise<void> {
  const tr = await admin.request<{ status: { token: string } }>('POST', objectPath(resources.serviceAccounts, namespace, name, 'token'), {
    body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: { expirationSeconds: 3600 * 6 } },
  });
  const cluster = kc.getCurrentCluster()!;
  const ca = cluster.caData ?? Buffer.from(readFileSync(cluster.caFile!)).toString('base64');
  writeFileSync(path, JSON.stringify({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: 'c', cluster: { server: cluster.server, 'certificate-authority-data': ca } }],
    users: [{ name, user: { token: tr.status.token } }],
    contexts: [{ name: 'c', context: { cluster: 'c', user: name } }],
    'current-context': 'c',
  }));
}
