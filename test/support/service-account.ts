/**
 * Test support for running a component as its ServiceAccount, as its pod would: a token from
 * TokenRequest (what the pod's projected volume holds) and a kubeconfig of that token on the
 * test server, so the server's RBAC judges the component's own requests. Not a test file itself.
 */
import { writeFileSync } from 'node:fs';
import type { ApiClient } from '../../src/runtime/client.ts';
import { objectPath, resources } from '../../src/runtime/resources.ts';
import type { TestServer } from './server.ts';

/** A token of the ServiceAccount `namespace/name`, with the server's default lifetime. */
export async function serviceAccountToken(admin: ApiClient, namespace: string, name: string): Promise<string> {
  const tr = await admin.request<{ status: { token: string } }>('POST', objectPath(resources.serviceAccounts, namespace, name, 'token'), {
    body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: {} },
  });
  return tr.status.token;
}

/** Writes to `path` a kubeconfig that presents `token` to the test server (its URL, its CA); returns `path`. */
export function tokenKubeconfig(ts: TestServer, token: string, path: string): string {
  writeFileSync(path, JSON.stringify({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: 'c', cluster: { server: ts.server.url, 'certificate-authority-data': Buffer.from(ts.server.caCertPem).toString('base64') } }],
    users: [{ name: 'u', user: { token } }],
    contexts: [{ name: 'c', context: { cluster: 'c', user: 'u' } }],
    'current-context': 'c',
  }));
  return path;
}

/** Writes to `path` a kubeconfig of a fresh token of the ServiceAccount `namespace/name`; returns `path`. */
export async function serviceAccountKubeconfig(ts: TestServer, admin: ApiClient, namespace: string, name: string, path: string): Promise<string> {
  return tokenKubeconfig(ts, await serviceAccountToken(admin, namespace, name), path);
}
