/**
 * The cluster's PKI, generated into `<data-dir>/pki` on first start and reused afterwards:
 * a self-signed CA and a serving certificate for the API server (ECDSA P-256), whose SANs
 * cover the loopback addresses and names clients dial. Files holding keys are mode 0600.
 * The CA lives as long as the data directory; the serving certificate is re-issued from it
 * whenever it no longer fits, so clients that trust the CA never notice.
 */
import 'reflect-metadata';
import { webcrypto, X509Certificate as NodeX509 } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as x509 from '@peculiar/x509';
import { KUBERNETES_SERVICE_IP } from '../controllers/kubernetes-service.ts';

type CryptoKey = webcrypto.CryptoKey;
type CryptoKeyPair = webcrypto.CryptoKeyPair;
// The library's typings name the DOM's Crypto; Node's webcrypto is the same API.
x509.cryptoProvider.set(webcrypto as never);

const algorithm = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' } as const;
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

function toPem(der: ArrayBuffer, label: string): string {
  const b64 = Buffer.from(der).toString('base64').replace(/.{64}/g, '$&\n');
  return `-----BEGIN ${label}-----\n${b64}${b64.endsWith('\n') ? '' : '\n'}-----END ${label}-----\n`;
}

function fromPem(pem: string): ArrayBuffer {
  const b64 = pem.replace(/-----[^-]+-----/g, '').replace(/\s+/g, '');
  const buf = Buffer.from(b64, 'base64');
  return buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.byteLength);
}

async function exportKey(key: CryptoKey): Promise<string> {
  return toPem(await webcrypto.subtle.exportKey('pkcs8', key), 'PRIVATE KEY');
}

async function importKey(pem: string): Promise<CryptoKey> {
  return (await webcrypto.subtle.importKey('pkcs8', fromPem(pem), algorithm, true, ['sign'])) as CryptoKey;
}

function writeSecret(path: string, content: string): void {
  writeFileSync(path, content, { mode: 0o600 });
}

async function createCa(dir: string): Promise<{ cert: x509.X509Certificate; key: CryptoKey }> {
  const keys = (await webcrypto.subtle.generateKey(algorithm, true, ['sign', 'verify'])) as CryptoKeyPair;
  const cert = await x509.X509CertificateGenerator.createSelfSigned({
    name: 'CN=shipyard-ca',
    keys: keys as never,
    signingAlgorithm: algorithm,
    notBefore: new Date(Date.now() - 3600_000),
    notAfter: new Date(Date.now() + tenYears),
    extensions: [
      new x509.BasicConstraintsExtension(true, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign | x509.KeyUsageFlags.digitalSignature, true),
      await x509.SubjectKeyIdentifierExtension.create(keys.publicKey as never),
    ],
  });
  writeFileSync(join(dir, 'ca.crt'), cert.toString('pem') + '\n');
  writeSecret(join(dir, 'ca.key'), await exportKey(keys.privateKey));
  return { cert, key: keys.privateKey };
}

async function createServing(dir: string, ca: { cert: x509.X509Certificate; key: CryptoKey }, names: { dns: string[]; ips: string[] }): Promise<void> {
  const keys = (await webcrypto.subtle.generateKey(algorithm, true, ['sign', 'verify'])) as CryptoKeyPair;
  const cert = await x509.X509CertificateGenerator.create({
    subject: 'CN=shipyard-apiserver',
    issuer: ca.cert.subject,
    publicKey: keys.publicKey as never,
    signingKey: ca.key as never,
    signingAlgorithm: algorithm,
    notBefore: new Date(Date.now() - 3600_000),
    notAfter: new Date(Date.now() + tenYears),
    extensions: [
      new x509.BasicConstraintsExtension(false, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature | x509.KeyUsageFlags.keyEncipherment, true),
      new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.serverAuth]),
      new x509.SubjectAlternativeNameExtension([...names.dns.map((value) => ({ type: 'dns' as const, value })), ...names.ips.map((value) => ({ type: 'ip' as const, value }))]),
      await x509.AuthorityKeyIdentifierExtension.create(ca.cert),
    ],
  });
  writeFileSync(join(dir, 'apiserver.crt'), cert.toString('pem') + '\n');
  writeSecret(join(dir, 'apiserver.key'), await exportKey(keys.privateKey));
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
  const ca = existsSync(caCrt) && existsSync(caKey)
    ? { cert: new x509.X509Certificate(readFileSync(caCrt, 'utf8')), key: await importKey(readFileSync(caKey, 'utf8')) }
    : await createCa(dir);
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
