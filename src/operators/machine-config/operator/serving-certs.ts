/**
 * The serving certificates of the operands: the config server's (every master's address and the
 * load balancer's) and the daemon metrics proxy's (every node's address, the daemon being on the
 * host network). Both are issued from the signer `shipyard up` keeps in the Secret
 * `machine-config-operator-signer`: a CA below the cluster CA that may sign serving
 * certificates and nothing else (extended key usage serverAuth, path length 0). So a client that
 * trusts the cluster CA, as every node does, trusts the config server, while the key the operator
 * holds cannot mint a client certificate the API server would accept: the operator never holds
 * the cluster CA's key. `tls.crt` carries the signer after the leaf, so the chain reaches the root.
 *
 * A certificate is issued again when it is missing, is not the current signer's, names other
 * addresses than needed (a master joined or left), or ends within 30 days.
 */
import { X509Certificate } from 'node:crypto';
import type { V1Secret } from '@kubernetes/client-node';
import { issueCertificate, splitPemBundle, type CertificateAndKey } from '../../../api/x509.ts';
import type { DeepReadonly } from '../../../runtime/readonly.ts';
import { MCO_NAMESPACE, secretNames } from './names.ts';

const oneYearMs = 365 * 24 * 3600 * 1000;
const renewBeforeMs = 30 * 24 * 3600 * 1000;

export interface ServingCertificate {
  readonly secretName: string;
  /** The CN: the workload it is for. */
  readonly commonName: string;
  readonly ipAddresses: readonly string[];
  readonly dnsNames?: readonly string[];
}

/** The signer from its Secret, or why it cannot be used. */
export function signerFrom(secret: DeepReadonly<V1Secret> | undefined, name: string): { signer: CertificateAndKey } | { problem: string } {
  if (!secret) return { problem: `Secret ${MCO_NAMESPACE}/${name} not found (shipyard up writes it at install)` };
  const crt = secret.data?.['tls.crt'];
  const key = secret.data?.['tls.key'];
  if (!crt || !key) return { problem: `Secret ${MCO_NAMESPACE}/${name} lacks tls.crt or tls.key` };
  const signer = { certPem: Buffer.from(crt, 'base64').toString('utf8'), keyPem: Buffer.from(key, 'base64').toString('utf8') };
  try {
    if (!new X509Certificate(signer.certPem).ca) return { problem: `Secret ${MCO_NAMESPACE}/${name}: tls.crt is not a CA certificate` };
  } catch (err) {
    return { problem: `Secret ${MCO_NAMESPACE}/${name}: tls.crt is not a certificate: ${(err as Error).message}` };
  }
  return { signer };
}

/** Why the Secret's certificate must be issued again, or undefined when it still fits. */
export function servingCertProblem(secret: DeepReadonly<V1Secret> | undefined, signerPem: string, want: ServingCertificate, nowMs: number): string | undefined {
  const crt = secret?.data?.['tls.crt'];
  if (!crt || !secret?.data?.['tls.key']) return 'it does not exist';
  let leaf: X509Certificate;
  try {
    leaf = new X509Certificate(splitPemBundle(Buffer.from(crt, 'base64').toString('utf8'))[0] ?? '');
  } catch {
    return 'it is not a certificate';
  }
  const signer = new X509Certificate(signerPem);
  if (!leaf.checkIssued(signer) || !leaf.verify(signer.publicKey)) return 'it was not issued by the current signer';
  // Split rather than searched as text, so that 127.1.0.1 is not taken as covering 127.1.0.10.
  const have = new Set((leaf.subjectAltName ?? '').split(/,\s*/).filter(Boolean));
  const need = new Set([...(want.dnsNames ?? []).map((d) => `DNS:${d}`), ...want.ipAddresses.map((ip) => `IP Address:${ip}`)]);
  const missing = [...need].filter((n) => !have.has(n));
  if (missing.length) return `it lacks ${missing.join(', ')}`;
  const extra = [...have].filter((n) => !need.has(n));
  if (extra.length) return `it still names ${extra.join(', ')}`;
  const notAfter = Date.parse(leaf.validTo);
  if (!(notAfter - nowMs > renewBeforeMs)) return `it expires ${new Date(notAfter).toISOString()}, within 30 days`;
  return undefined;
}

/**
 * The signer itself, issued by whoever holds the cluster CA (`shipyard up`): a CA that may sign
 * serving certificates only, one level deep, valid as long as the root allows, up to ten years.
 */
export async function issueSigner(root: CertificateAndKey, nowMs: number): Promise<CertificateAndKey> {
  const rootEnd = Date.parse(new X509Certificate(root.certPem).validTo);
  return issueCertificate({
    subject: 'CN=machine-config-operator-signer',
    issuer: root,
    ca: { pathLength: 0 },
    extendedKeyUsages: ['serverAuth'],
    notBefore: new Date(nowMs - 3600_000),
    notAfter: new Date(Math.min(rootEnd, nowMs + 10 * oneYearMs)),
  });
}

export function signerSecret(signer: CertificateAndKey): V1Secret {
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: secretNames.signer, namespace: MCO_NAMESPACE },
    type: 'kubernetes.io/tls',
    data: { 'tls.crt': Buffer.from(signer.certPem).toString('base64'), 'tls.key': Buffer.from(signer.keyPem).toString('base64') },
  };
}

export async function issueServingSecret(signer: CertificateAndKey, want: ServingCertificate, nowMs: number): Promise<V1Secret> {
  const leaf = await issueCertificate({
    subject: `CN=${want.commonName}`,
    issuer: signer,
    extendedKeyUsages: ['serverAuth'],
    ipAddresses: want.ipAddresses,
    dnsNames: want.dnsNames ?? [],
    notBefore: new Date(nowMs - 3600_000),
    notAfter: new Date(nowMs + oneYearMs),
  });
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: want.secretName, namespace: MCO_NAMESPACE },
    type: 'kubernetes.io/tls',
    data: { 'tls.crt': Buffer.from(leaf.certPem + signer.certPem).toString('base64'), 'tls.key': Buffer.from(leaf.keyPem).toString('base64') },
  };
}
