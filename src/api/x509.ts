/**
 * Issuing X.509 certificates (ECDSA P-256, as the cluster CA's): a CA, a signer below it, a
 * serving or client certificate, each as PEM. Shared by everyone who issues one and may not
 * reach the others' code: `shipyard up` creates the machine-config-server's signer from the
 * cluster CA, and the machine-config operator issues the serving certificates of its operands
 * from that signer. Node's own `X509Certificate` reads and verifies certificates; this module
 * only makes them (Node cannot), with @peculiar/x509 over Node's WebCrypto.
 */
import { webcrypto } from 'node:crypto';

type X509Library = typeof import('@peculiar/x509');
let library: Promise<X509Library> | undefined;

/**
 * The library, loaded on first use: it and its ASN.1 schema modules cost a few MiB a process,
 * and most importers only ever read certificates (Node does that) or issue one once.
 */
function x509Library(): Promise<X509Library> {
  return (library ??= (async () => {
    await import('reflect-metadata');
    const x509 = await import('@peculiar/x509');
    // The library's typings name the DOM's Crypto; Node's webcrypto is the same API.
    x509.cryptoProvider.set(webcrypto as never);
    return x509;
  })());
}

const algorithm = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' } as const;

export interface CertificateAndKey {
  readonly certPem: string;
  readonly keyPem: string;
}

export type ExtendedKeyUsage = 'serverAuth' | 'clientAuth';

export interface CertificateRequest {
  /** An RFC 4514 name, e.g. `CN=machine-config-server`. */
  readonly subject: string;
  /** The signer; absent: self-signed. */
  readonly issuer?: CertificateAndKey;
  /** A CA: may sign certificates, `pathLength` levels deep below it (undefined: unlimited). */
  readonly ca?: { readonly pathLength?: number };
  /**
   * What the certificate may be used for. On a CA this restricts every certificate below it
   * (a verifier checks the chain's purposes, OpenSSL and Go alike): a signer limited to
   * `serverAuth` can never produce a client certificate a server accepts.
   */
  readonly extendedKeyUsages?: readonly ExtendedKeyUsage[];
  readonly dnsNames?: readonly string[];
  readonly ipAddresses?: readonly string[];
  readonly notBefore: Date;
  readonly notAfter: Date;
}

export function toPem(der: ArrayBuffer, label: string): string {
  const b64 = Buffer.from(der).toString('base64').replace(/.{64}/g, '$&\n');
  return `-----BEGIN ${label}-----\n${b64}${b64.endsWith('\n') ? '' : '\n'}-----END ${label}-----\n`;
}

/** The DER bytes of the first PEM block of `pem`. */
export function fromPem(pem: string): ArrayBuffer {
  const first = /-----BEGIN [^-]+-----([^-]+)-----END [^-]+-----/.exec(pem)?.[1] ?? '';
  const buf = Buffer.from(first.replace(/\s+/g, ''), 'base64');
  return buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.byteLength);
}

/** Every certificate of a PEM bundle, each as its own PEM block. */
export function splitPemBundle(pem: string): string[] {
  return [...pem.matchAll(/-----BEGIN CERTIFICATE-----[^-]+-----END CERTIFICATE-----/g)].map((m) => `${m[0]}\n`);
}

async function importSigningKey(pem: string): Promise<webcrypto.CryptoKey> {
  return (await webcrypto.subtle.importKey('pkcs8', fromPem(pem), algorithm, false, ['sign'])) as webcrypto.CryptoKey;
}

/** A random positive serial number (RFC 5280: at most 20 octets, the first bit clear). */
function serialNumber(): string {
  return Buffer.from(webcrypto.getRandomValues(new Uint8Array(16))).toString('hex').replace(/^[89a-f]/, '1');
}

export async function issueCertificate(req: CertificateRequest): Promise<CertificateAndKey> {
  const x509 = await x509Library();
  const keys = (await webcrypto.subtle.generateKey(algorithm, true, ['sign', 'verify'])) as webcrypto.CryptoKeyPair;
  const issuerCert = req.issuer ? new x509.X509Certificate(req.issuer.certPem) : undefined;
  const signingKey = req.issuer ? await importSigningKey(req.issuer.keyPem) : keys.privateKey;
  const usages = req.ca
    ? x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign | x509.KeyUsageFlags.digitalSignature
    : x509.KeyUsageFlags.digitalSignature | x509.KeyUsageFlags.keyEncipherment;
  const names = [...(req.dnsNames ?? []).map((value) => ({ type: 'dns' as const, value })), ...(req.ipAddresses ?? []).map((value) => ({ type: 'ip' as const, value }))];
  const extensions: InstanceType<X509Library['Extension']>[] = [
    new x509.BasicConstraintsExtension(!!req.ca, req.ca?.pathLength, true),
    new x509.KeyUsagesExtension(usages, true),
    await x509.SubjectKeyIdentifierExtension.create(keys.publicKey as never),
  ];
  if (req.extendedKeyUsages?.length) extensions.push(new x509.ExtendedKeyUsageExtension(req.extendedKeyUsages.map((u) => x509.ExtendedKeyUsage[u])));
  if (names.length) extensions.push(new x509.SubjectAlternativeNameExtension(names));
  if (issuerCert) extensions.push(await x509.AuthorityKeyIdentifierExtension.create(issuerCert));
  const cert = await x509.X509CertificateGenerator.create({
    subject: req.subject,
    issuer: issuerCert?.subject ?? req.subject,
    publicKey: keys.publicKey as never,
    signingKey: signingKey as never,
    signingAlgorithm: algorithm,
    serialNumber: serialNumber(),
    notBefore: req.notBefore,
    notAfter: req.notAfter,
    extensions,
  });
  return { certPem: cert.toString('pem') + '\n', keyPem: toPem(await webcrypto.subtle.exportKey('pkcs8', keys.privateKey), 'PRIVATE KEY') };
}
