/**
 * Issuing X.509 certificates (ECDSA P-256, as the cluster CA's): a CA, a signer below it, a
 * serving or client certificate, each as PEM. Shared by everyone who issues one and may not
 * reach the others' code: `shipyard up` creates the machine-config-server's signer from the
 * cluster CA, and the machine-config operator issues the serving certificates of its operands
 * from that signer. Node's own `X509Certificate` reads and verifies certificates; this module
 * only makes them (Node cannot), with @peculiar/x509 over Node's WebCrypto.
 */
import { createPublicKey, verify, webcrypto } from 'node:crypto';
import { bitStringBytes, children, DerError, derTags, expectOne, expectTag, oidOf, stringOf, type Tlv } from './der.ts';

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

/**
 * A PKCS#10 certificate request as a signer or an approver looks at it: the subject's common
 * name and organizations (the user and groups a client certificate names), the requested
 * subject alternative names, and the public key.
 */
export interface ParsedCertificateRequest {
  readonly commonName: string;
  readonly organizations: readonly string[];
  /** The subject as Go's pkix.Name prints it (`CN=system:node:a,O=system:nodes`). */
  readonly subject: string;
  readonly dnsNames: readonly string[];
  readonly ipAddresses: readonly string[];
  readonly emailAddresses: readonly string[];
  readonly uris: readonly string[];
  readonly publicKeyAlgorithm: 'ECDSA' | 'RSA' | 'Ed25519' | 'unknown';
  /** The subject Name's DER, carried into the certificate unchanged. */
  readonly subjectDer: Buffer;
  /** The SubjectPublicKeyInfo's DER. */
  readonly publicKeyDer: Buffer;
}

/** Why a request is refused, worded as Go's crypto/x509 and kube's certificates.ParseCSR word it. */
export class CertificateRequestError extends Error {}

const oids = {
  commonName: '2.5.4.3',
  organization: '2.5.4.10',
  extensionRequest: '1.2.840.113549.1.9.14',
  subjectAltName: '2.5.29.17',
  ecPublicKey: '1.2.840.10045.2.1',
  rsaEncryption: '1.2.840.113549.1.1.1',
  ed25519: '1.3.101.112',
} as const;

/** Signature algorithms Go verifies on a request, with the digest Node's `verify` takes. */
const signatureAlgorithms: Readonly<Record<string, { key: 'ECDSA' | 'RSA' | 'Ed25519'; hash: string | null }>> = {
  '1.2.840.10045.4.3.2': { key: 'ECDSA', hash: 'sha256' },
  '1.2.840.10045.4.3.3': { key: 'ECDSA', hash: 'sha384' },
  '1.2.840.10045.4.3.4': { key: 'ECDSA', hash: 'sha512' },
  '1.2.840.113549.1.1.11': { key: 'RSA', hash: 'sha256' },
  '1.2.840.113549.1.1.12': { key: 'RSA', hash: 'sha384' },
  '1.2.840.113549.1.1.13': { key: 'RSA', hash: 'sha512' },
  '1.3.101.112': { key: 'Ed25519', hash: null },
};

const attributeNames: Readonly<Record<string, string>> = { '2.5.4.3': 'CN', '2.5.4.10': 'O', '2.5.4.11': 'OU', '2.5.4.6': 'C', '2.5.4.7': 'L', '2.5.4.8': 'ST', '2.5.4.5': 'SERIALNUMBER' };

interface NameParts {
  commonName: string;
  organizations: string[];
  subject: string;
}

function readName(name: Tlv): NameParts {
  let commonName = '';
  const organizations: string[] = [];
  const printed: string[] = [];
  for (const rdn of children(name.value)) {
    expectTag(rdn, derTags.set, 'relative distinguished name');
    for (const atv of children(rdn.value)) {
      const [type, value] = children(expectTag(atv, derTags.sequence, 'attribute').value);
      const oid = oidOf(expectTag(type, derTags.oid, 'attribute type').value);
      if (!value) throw new DerError('attribute without a value');
      let text: string;
      try {
        text = stringOf(value);
      } catch {
        continue; // a value of another type: Go keeps it out of the named fields too
      }
      if (oid === oids.commonName) commonName = text;
      if (oid === oids.organization) organizations.push(text);
      if (attributeNames[oid]) printed.push(`${attributeNames[oid]}=${text.replace(/([,+"\\<>;])/g, '\\$1')}`);
    }
  }
  // Go's pkix.Name.String() prints the sequence last to first.
  return { commonName, organizations, subject: printed.reverse().join(',') };
}

function ipText(octets: Buffer): string {
  if (octets.length === 4) return [...octets].join('.');
  if (octets.length !== 16) throw new DerError('IP address of bad length');
  const groups: string[] = [];
  for (let i = 0; i < 16; i += 2) groups.push(octets.readUInt16BE(i).toString(16));
  return groups.join(':').replace(/(^|:)0(:0)+(:|$)/, '::').replace(/:{3,}/, '::');
}

interface Sans {
  dnsNames: string[];
  ipAddresses: string[];
  emailAddresses: string[];
  uris: string[];
}

function readSans(attributes: Tlv | undefined): Sans {
  const sans: Sans = { dnsNames: [], ipAddresses: [], emailAddresses: [], uris: [] };
  if (!attributes) return sans;
  for (const attribute of children(attributes.value)) {
    const [type, values] = children(expectTag(attribute, derTags.sequence, 'attribute').value);
    if (oidOf(expectTag(type, derTags.oid, 'attribute type').value) !== oids.extensionRequest) continue;
    for (const extensions of children(expectTag(values, derTags.set, 'attribute values').value)) {
      for (const extension of children(expectTag(extensions, derTags.sequence, 'extensions').value)) {
        const parts = children(expectTag(extension, derTags.sequence, 'extension').value);
        if (oidOf(expectTag(parts[0], derTags.oid, 'extension id').value) !== oids.subjectAltName) continue;
        const octets = expectTag(parts[parts.length - 1], derTags.octetString, 'extension value');
        for (const general of children(expectOne(octets.value, derTags.sequence, 'subject alternative names').value)) {
          if (general.tag === 0x81) sans.emailAddresses.push(general.value.toString('latin1'));
          else if (general.tag === 0x82) sans.dnsNames.push(general.value.toString('latin1'));
          else if (general.tag === 0x86) sans.uris.push(general.value.toString('latin1'));
          else if (general.tag === 0x87) sans.ipAddresses.push(ipText(general.value));
        }
      }
    }
  }
  return sans;
}

function keyAlgorithmOf(spki: Tlv): ParsedCertificateRequest['publicKeyAlgorithm'] {
  const [algorithm] = children(spki.value);
  const oid = oidOf(expectTag(children(expectTag(algorithm, derTags.sequence, 'key algorithm').value)[0], derTags.oid, 'key algorithm id').value);
  if (oid === oids.ecPublicKey) return 'ECDSA';
  if (oid === oids.rsaEncryption) return 'RSA';
  if (oid === oids.ed25519) return 'Ed25519';
  return 'unknown';
}

function verificationFailure(key: 'ECDSA' | 'RSA' | 'Ed25519'): string {
  return key === 'RSA' ? 'crypto/rsa: verification error' : `x509: ${key} verification failure`;
}

/**
 * Parses a PEM PKCS#10 request and checks its self-signature, synchronously (Node's
 * `crypto.verify`), as kube's CSR validation does: the first PEM block must be a
 * `CERTIFICATE REQUEST`. Throws `CertificateRequestError` saying what is wrong.
 */
export function parseCertificateRequest(pem: string | Buffer): ParsedCertificateRequest {
  const text = typeof pem === 'string' ? pem : pem.toString('latin1');
  const block = /-----BEGIN ([^-\r\n]+)-----\r?\n([\s\S]*?)-----END \1-----/.exec(text);
  if (!block || block[1] !== 'CERTIFICATE REQUEST') throw new CertificateRequestError('PEM block type must be CERTIFICATE REQUEST');
  const der = Buffer.from(block[2]!.replace(/\s+/g, ''), 'base64');
  let parsed: ParsedCertificateRequest;
  let check: { info: Buffer; algorithm: string; signature: Buffer };
  try {
    const [info, algorithm, signature] = children(expectOne(der, derTags.sequence, 'certification request').value);
    const infoTlv = expectTag(info, derTags.sequence, 'certification request info');
    const fields = children(infoTlv.value);
    expectTag(fields[0], derTags.integer, 'version');
    const name = readName(expectTag(fields[1], derTags.sequence, 'subject'));
    const spki = expectTag(fields[2], derTags.sequence, 'subject public key info');
    const attributes = fields[3] && fields[3].tag === 0xa0 ? fields[3] : undefined;
    const algorithmOid = oidOf(expectTag(children(expectTag(algorithm, derTags.sequence, 'signature algorithm').value)[0], derTags.oid, 'signature algorithm id').value);
    parsed = {
      ...name,
      ...readSans(attributes),
      publicKeyAlgorithm: keyAlgorithmOf(spki),
      subjectDer: Buffer.from(fields[1]!.raw),
      publicKeyDer: Buffer.from(spki.raw),
    };
    check = { info: infoTlv.raw, algorithm: algorithmOid, signature: bitStringBytes(expectTag(signature, derTags.bitString, 'signature')) };
  } catch (e) {
    if (e instanceof DerError) throw new CertificateRequestError(`x509: malformed certificate request: ${e.message}`);
    throw e;
  }
  const scheme = signatureAlgorithms[check.algorithm];
  if (!scheme || scheme.key !== parsed.publicKeyAlgorithm) throw new CertificateRequestError('x509: cannot verify signature: algorithm unimplemented');
  let ok = false;
  try {
    const key = createPublicKey({ key: parsed.publicKeyDer, format: 'der', type: 'spki' });
    ok = verify(scheme.hash, check.info, key, check.signature);
  } catch {
    ok = false;
  }
  if (!ok) throw new CertificateRequestError(verificationFailure(scheme.key));
  return parsed;
}

export interface CertificateRequestAndKey {
  /** `-----BEGIN CERTIFICATE REQUEST-----`, as `CertificateSigningRequest.spec.request` carries it (base64 of this PEM). */
  readonly csrPem: string;
  /** The request's private key (PKCS#8), which never leaves the requester. */
  readonly keyPem: string;
}

/**
 * A fresh ECDSA P-256 key and a PKCS#10 request for `subject` (an RFC 4514 name, e.g.
 * `CN=system:node:worker-0, O=system:nodes`), signed with that key: what a kubelet's TLS
 * bootstrap sends (no extensions; the usages go in the CertificateSigningRequest object).
 * Subject alternative names are only for requests that want them (serving certificates).
 */
export async function createCertificateRequest(subject: string, options: { dnsNames?: readonly string[]; ipAddresses?: readonly string[] } = {}): Promise<CertificateRequestAndKey> {
  const x509 = await x509Library();
  const keys = (await webcrypto.subtle.generateKey(algorithm, true, ['sign', 'verify'])) as webcrypto.CryptoKeyPair;
  const names = [...(options.dnsNames ?? []).map((value) => ({ type: 'dns' as const, value })), ...(options.ipAddresses ?? []).map((value) => ({ type: 'ip' as const, value }))];
  const extensions = names.length ? [new x509.SubjectAlternativeNameExtension(names)] : [];
  const csr = await x509.Pkcs10CertificateRequestGenerator.create({ name: subject, keys: keys as never, signingAlgorithm: algorithm, extensions });
  return { csrPem: csr.toString('pem') + '\n', keyPem: toPem(await webcrypto.subtle.exportKey('pkcs8', keys.privateKey), 'PRIVATE KEY') };
}

export interface SignRequestInput {
  readonly request: ParsedCertificateRequest;
  readonly issuer: CertificateAndKey;
  readonly notBefore: Date;
  readonly notAfter: Date;
  readonly keyUsages: readonly ('digitalSignature' | 'keyEncipherment')[];
  readonly extendedKeyUsages: readonly ExtendedKeyUsage[];
}

/**
 * A certificate for a parsed request's subject, names and key, signed by `issuer` (a CA):
 * what a CSR signer issues. Returns the certificate as PEM.
 */
export async function signCertificateRequest(input: SignRequestInput): Promise<string> {
  const x509 = await x509Library();
  const issuerCert = new x509.X509Certificate(input.issuer.certPem);
  const publicKey = await x509.PublicKey.create(input.request.publicKeyDer);
  let usages = 0;
  for (const u of input.keyUsages) usages |= x509.KeyUsageFlags[u];
  const r = input.request;
  const names = [
    ...r.dnsNames.map((value) => ({ type: 'dns' as const, value })),
    ...r.ipAddresses.map((value) => ({ type: 'ip' as const, value })),
    ...r.emailAddresses.map((value) => ({ type: 'email' as const, value })),
    ...r.uris.map((value) => ({ type: 'url' as const, value })),
  ];
  const extensions: InstanceType<X509Library['Extension']>[] = [new x509.BasicConstraintsExtension(false, undefined, true)];
  if (usages) extensions.push(new x509.KeyUsagesExtension(usages, true));
  if (input.extendedKeyUsages.length) extensions.push(new x509.ExtendedKeyUsageExtension(input.extendedKeyUsages.map((u) => x509.ExtendedKeyUsage[u])));
  if (names.length) extensions.push(new x509.SubjectAlternativeNameExtension(names));
  extensions.push(await x509.AuthorityKeyIdentifierExtension.create(issuerCert));
  const cert = await x509.X509CertificateGenerator.create({
    subject: new x509.Name(r.subjectDer),
    issuer: issuerCert.subject,
    publicKey,
    signingKey: (await importSigningKey(input.issuer.keyPem)) as never,
    signingAlgorithm: algorithm,
    serialNumber: serialNumber(),
    notBefore: input.notBefore,
    notAfter: input.notAfter,
    extensions,
  });
  return cert.toString('pem') + '\n';
}
