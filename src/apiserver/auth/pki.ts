/**
 * The cluster's PKI, generated into `<data-dir>/pki` on first start and reused afterwards:
 * a self-signed CA and a serving certificate for the API server (ECDSA P-256), whose SANs
 * cover the loopback addresses and names clients dial. Files holding keys are mode 0600.
 * The CA lives as long as the data directory; the serving certificate is re-issued from it
 * whenever it no longer fits, so clients that trust the CA never notice.
 */
import { X509Certificate as NodeX509 } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { issueCertificate, type CertificateAndKey } from '../../api/x509.ts';
import { KUBERNETES_SERVICE_IP } from '../controllers/kubernetes-service.ts';
import { writeFileAtomic } from '../../api/files.ts';

const tenYears = 10 * 365 * 24 * 3600 * 1000;
/** A serving certificate this close to its end is replaced while the server can still start. */
const renewBeforeMs = 30 * 24 * 3600 * 1000;

/** What every serving certificate covers: loopback, and the names of the `kubernetes` Service. */
export const defaultServingSans = {
  dns: ['localhost', 'kubernetes', 'kubernetes.default', 'kubernetes.default.svc', 'kubernetes.default.svc.cluster.local'],
  ips: ['127.0.0.1', KUBERNETES_SERVICE_IP],
} as const;

export interface ServingPki {
  readonly caCertPem: string;
  readonly certPem: string;
  readonly keyPem: string;
  /** Set when an existing serving certificate was replaced on this call, saying why. */
  readonly reissued?: string;
}

export interface PkiOptions {
  /** Extra DNS names and IP addresses for the serving certificate. */
  readonly dnsNames?: readonly string[];
  readonly ipAddresses?: readonly string[];
}

function writeSecret(path: string, content: string): void {
  writeFileAtomic(path, content, 0o600);
}

function validity(): { notBefore: Date; notAfter: Date } {
  return { notBefore: new Date(Date.now() - 3600_000), notAfter: new Date(Date.now() + tenYears) };
}

async function createCa(dir: string): Promise<CertificateAndKey> {
  const ca = await issueCertificate({ subject: 'CN=shipyard-ca', ca: {}, ...validity() });
  writeFileAtomic(join(dir, 'ca.crt'), ca.certPem);
  writeSecret(join(dir, 'ca.key'), ca.keyPem);
  return ca;
}

async function createServing(dir: string, ca: CertificateAndKey, names: { dns: string[]; ips: string[] }): Promise<void> {
  const cert = await issueCertificate({ subject: 'CN=shipyard-apiserver', issuer: ca, extendedKeyUsages: ['serverAuth'], dnsNames: names.dns, ipAddresses: names.ips, ...validity() });
  writeFileAtomic(join(dir, 'apiserver.crt'), cert.certPem);
  writeSecret(join(dir, 'apiserver.key'), cert.keyPem);
}

/** Why the existing serving certificate must be replaced, or undefined if it still fits. */
export function servingCertProblem(certPem: string, caCertPem: string, names: { dns: readonly string[]; ips: readonly string[] }, nowMs = Date.now()): string | undefined {
  const cert = new NodeX509(certPem);
  if (!cert.checkIssued(new NodeX509(caCertPem)) || !cert.verify(new NodeX509(caCertPem).publicKey)) return 'it was not issued by the current CA';
  // Split rather than searched as text, so that 127.0.0.1 is not taken as covering 127.0.0.10.
  const sans = new Set((cert.subjectAltName ?? '').split(/,\s*/));
  const missing = [...names.dns.filter((d) => !sans.has(`DNS:${d}`)), ...names.ips.filter((ip) => !sans.has(`IP Address:${ip}`))];
  if (missing.length) return `it lacks the SANs ${missing.join(', ')}`;
  const notAfter = Date.parse(cert.validTo);
  if (!(notAfter - nowMs > renewBeforeMs)) return `it expires ${new Date(notAfter).toISOString()}, within 30 days`;
  return undefined;
}

/**
 * Loads the PKI from `dir`, creating what is missing. A serving certificate that lacks a
 * requested SAN or is about to expire is re-issued from the same CA (the CA and its key are
 * kept), so clients holding the CA keep working.
 */
export async function ensureServingPki(dir: string, options: PkiOptions = {}): Promise<ServingPki> {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const names = {
    dns: [...new Set([...defaultServingSans.dns, ...(options.dnsNames ?? [])])],
    ips: [...new Set([...defaultServingSans.ips, ...(options.ipAddresses ?? [])])],
  };
  const caCrt = join(dir, 'ca.crt');
  const caKey = join(dir, 'ca.key');
  const ca = existsSync(caCrt) && existsSync(caKey) ? { certPem: readFileSync(caCrt, 'utf8'), keyPem: readFileSync(caKey, 'utf8') } : await createCa(dir);
  const crt = join(dir, 'apiserver.crt');
  const key = join(dir, 'apiserver.key');
  let reissued: string | undefined;
  if (!existsSync(crt) || !existsSync(key)) await createServing(dir, ca, names);
  else {
    reissued = servingCertProblem(readFileSync(crt, 'utf8'), readFileSync(caCrt, 'utf8'), names);
    if (reissued) await createServing(dir, ca, names);
  }
  return { caCertPem: readFileSync(caCrt, 'utf8'), certPem: readFileSync(crt, 'utf8'), keyPem: readFileSync(key, 'utf8'), ...(reissued ? { reissued } : {}) };
}
