/**
 * The cluster's PKI, generated into `<data-dir>/pki` on first start and reused afterwards:
 * a self-signed CA and a serving certificate for the API server (ECDSA P-256), whose SANs
 * cover the loopback addresses and names clients dial. Files holding keys are mode 0600.
 * The CA lives as long as the data directory; the serving certificate is re-issued from it
 * whenever it no longer fits, so clients that trust the CA never notice.
 *
 * Several replicas may start at once on one data directory, and a certificate and its key are
 * two files that cannot be replaced in one step. So the CA key is created only if absent (one
 * replica wins; the others wait for its certificate), a serving pair whose files do not belong
 * together is re-issued, and each caller serves the pair it holds in memory, never the files
 * re-read after another replica may have rewritten one of them.
 */
import { createPrivateKey, createPublicKey, X509Certificate as NodeX509 } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { issueCertificate, type CertificateAndKey } from '../../api/x509.ts';
import { KUBERNETES_SERVICE_IP } from '../controllers/kubernetes-service.ts';
import { createFileOnce, writeFileAtomic } from '../../api/files.ts';

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
  /** How long to wait for the certificate of a CA key another replica has just created; 30 s unless given. */
  readonly caWaitMs?: number;
}

function writeSecret(path: string, content: string): void {
  writeFileAtomic(path, content, 0o600);
}

function validity(): { notBefore: Date; notAfter: Date } {
  return { notBefore: new Date(Date.now() - 3600_000), notAfter: new Date(Date.now() + tenYears) };
}

/** Whether the certificate carries the key's public half (false for anything unreadable). */
export function keyMatches(certPem: string, keyPem: string): boolean {
  try {
    const der = (k: ReturnType<typeof createPublicKey>) => k.export({ type: 'spki', format: 'der' });
    return der(new NodeX509(certPem).publicKey).equals(der(createPublicKey(createPrivateKey(keyPem))));
  } catch {
    return false;
  }
}

const readIfExists = (path: string): string | undefined => (existsSync(path) ? readFileSync(path, 'utf8') : undefined);

/**
 * The CA: the one on disk, else a new one. The key is created only if absent, so when replicas
 * start together exactly one CA wins; the others read its key and wait for its certificate.
 */
async function ensureCa(dir: string, waitMs: number): Promise<CertificateAndKey> {
  const crtPath = join(dir, 'ca.crt');
  const keyPath = join(dir, 'ca.key');
  if (!existsSync(keyPath)) {
    const ca = await issueCertificate({ subject: 'CN=shipyard-ca', ca: {}, ...validity() });
    if (createFileOnce(keyPath, ca.keyPem, 0o600)) {
      writeFileAtomic(crtPath, ca.certPem);
      return ca;
    }
  }
  const keyPem = readFileSync(keyPath, 'utf8');
  for (const deadline = Date.now() + waitMs; ; await delay(50)) {
    const certPem = readIfExists(crtPath);
    if (certPem !== undefined && keyMatches(certPem, keyPem)) return { certPem, keyPem };
    if (Date.now() >= deadline) {
      throw new Error(`${crtPath}: ${certPem === undefined ? 'missing' : 'not the certificate of'} ${keyPath}, ${waitMs / 1000} s after the key was found: the CA is half written; remove both files to start a new CA (clients trusting the old one must then be given the new one)`);
    }
  }
}

async function createServing(dir: string, ca: CertificateAndKey, names: { dns: string[]; ips: string[] }): Promise<CertificateAndKey> {
  const cert = await issueCertificate({ subject: 'CN=shipyard-apiserver', issuer: ca, extendedKeyUsages: ['serverAuth'], dnsNames: names.dns, ipAddresses: names.ips, ...validity() });
  writeFileAtomic(join(dir, 'apiserver.crt'), cert.certPem);
  writeSecret(join(dir, 'apiserver.key'), cert.keyPem);
  return cert;
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
  const ca = await ensureCa(dir, options.caWaitMs ?? 30_000);
  const certPem = readIfExists(join(dir, 'apiserver.crt'));
  const keyPem = readIfExists(join(dir, 'apiserver.key'));
  if (certPem === undefined || keyPem === undefined) {
    const cert = await createServing(dir, ca, names);
    return { caCertPem: ca.certPem, certPem: cert.certPem, keyPem: cert.keyPem };
  }
  const reissued = keyMatches(certPem, keyPem) ? servingCertProblem(certPem, ca.certPem, names) : 'its key file holds another key';
  if (!reissued) return { caCertPem: ca.certPem, certPem, keyPem };
  const cert = await createServing(dir, ca, names);
  return { caCertPem: ca.certPem, certPem: cert.certPem, keyPem: cert.keyPem, reissued };
}
