/**
 * Test support for endpoints guarded by delegated authentication and authorization (the
 * daemon's own metrics guard, the oauth-proxy): the callers, a serving certificate, a GET.
 * Not a test file itself.
 */
import { writeFileSync } from 'node:fs';
import { request } from 'node:https';
import { join } from 'node:path';
import { issueCertificate } from '../../src/api/x509.ts';
import type { ApiClient } from '../../src/runtime/client.ts';
import type { TestServer } from './server.ts';
import { serviceAccountToken } from './service-account.ts';

/**
 * Namespace `ns` with a ServiceAccount per name in `accounts`, and a token each. Whatever the
 * rest are: `reviewer` may review tokens and access (system:auth-delegator), `scraper` may GET
 * /metrics (system:monitoring), `reader` may get namespaces; any other has no grant.
 */
export async function metricsCallers<A extends string>(ts: TestServer, admin: ApiClient, ns: string, accounts: readonly A[]): Promise<Record<A, string>> {
  const binding = (role: string, account: string) => ({ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRoleBinding', metadata: { name: `${ns}-${account}` }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: role }, subjects: [{ kind: 'ServiceAccount', name: account, namespace: ns }] });
  const applied = await ts.kubectl(['apply', '-f', '-'], {
    input: JSON.stringify({
      apiVersion: 'v1',
      kind: 'List',
      items: [
        { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } },
        ...accounts.map((name) => ({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name, namespace: ns } })),
        binding('system:auth-delegator', 'reviewer'),
        binding('system:monitoring', 'scraper'),
        { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: `${ns}-namespace-reader` }, rules: [{ apiGroups: [''], resources: ['namespaces'], verbs: ['get'] }] },
        binding(`${ns}-namespace-reader`, 'reader'),
      ],
    }),
  });
  if (applied.code !== 0) throw new Error(`applying the callers of ${ns}: ${applied.stderr}`);
  const tokens = {} as Record<A, string>;
  for (const name of accounts) tokens[name] = await serviceAccountToken(admin, ns, name);
  return tokens;
}

/** A CA and a serving certificate for `ip`, written to `dir`/tls.crt and tls.key; returns the CA's PEM. */
export async function writeServingPair(dir: string, commonName: string, ip: string): Promise<string> {
  const now = Date.now();
  const ca = await issueCertificate({ subject: 'CN=test-ca', ca: {}, notBefore: new Date(now - 60_000), notAfter: new Date(now + 3600_000) });
  const leaf = await issueCertificate({ subject: `CN=${commonName}`, issuer: ca, extendedKeyUsages: ['serverAuth'], ipAddresses: [ip], notBefore: new Date(now - 60_000), notAfter: new Date(now + 3600_000) });
  writeFileSync(join(dir, 'tls.crt'), leaf.certPem);
  writeFileSync(join(dir, 'tls.key'), leaf.keyPem);
  return ca.certPem;
}

/** GET over HTTPS, verified against `caPem`, with the bearer token when given. */
export function httpsGet(host: string, port: number, path: string, caPem: string, token?: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host, port, path, ca: caPem, agent: false, headers: token ? { authorization: `Bearer ${token}` } : {} }, (res) => {
      let body = '';
      res.setEncoding('utf8').on('data', (c: string) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}
