/**
 * X.509 client-certificate authentication, as kube-apiserver's `--client-ca-file`: a client
 * certificate issued by the cluster CA authenticates its subject's CN as the user name and its
 * O values as groups. The TLS layer verifies the chain (the server asks for a certificate and
 * trusts only the CA); this module maps a verified certificate to a user, once per connection.
 * Issuing such certificates for the control plane and the kubelets lives here too, next to the
 * CA they are signed with.
 */
import 'reflect-metadata';
import { webcrypto } from 'node:crypto';
import type { TLSSocket } from 'node:tls';
import * as x509 from '@peculiar/x509';
import type { UserInfo } from './tokens.ts';

x509.cryptoProvider.set(webcrypto as never);

const algorithm = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' } as const;
const oneYear = 365 * 24 * 3600 * 1000;

const bySocket = new WeakMap<TLSSocket, UserInfo | null>();

/** The user a verified client certificate on this connection names, or undefined. */
export function certificateUser(socket: TLSSocket): UserInfo | undefined {
  const cached = bySocket.get(socket);
  if (cached !== undefined) return cached ?? undefined;
  let user: UserInfo | null = null;
  if (socket.authorized) {
    const cert = socket.getPeerCertificate();
    const subject = cert?.subject as Record<string, string | string[]> | undefined;
    const cn = subject?.CN;
    const name = Array.isArray(cn) ? cn[0] : cn;
    if (name) {
      const o = subject?.O;
      const groups = Array.isArray(o) ? [...o] : o ? [o] : [];
      // Kube's AuthenticatedGroupAdder: O values as they are, then system:authenticated unless
      // they already place the user (or it is system:anonymous).
      if (name !== 'system:anonymous' && !groups.includes('system:authenticated') && !groups.includes('system:unauthenticated')) groups.push('system:authenticated');
      user = { name, uid: '', groups };
    }
  }
  bySocket.set(socket, user);
  return user ?? undefined;
}

export interface ClientCertificate {
  readonly certPem: string;
  readonly keyPem: string;
}

function toPem(der: ArrayBuffer, label: string): string {
  const b64 = Buffer.from(der).toString('base64').replace(/.{64}/g, '$&\n');
  return `-----BEGIN ${label}-----\n${b64}${b64.endsWith('\n') ? '' : '\n'}-----END ${label}-----\n`;
}

function fromPem(pem: string): ArrayBuffer {
  const buf = Buffer.from(pem.replace(/-----[^-]+-----/g, '').replace(/\s+/g, ''), 'base64');
  return buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.byteLength);
}

function escapeRdn(v: string): string {
  return v.replace(/([,+"\\<>;=])/g, '\\$1');
}

/** Issues a client certificate for `user` (CN) in `groups` (O), signed by the cluster CA. */
export async function issueClientCertificate(ca: { certPem: string; keyPem: string }, user: string, groups: readonly string[] = [], nowMs = Date.now()): Promise<ClientCertificate> {
  const caCert = new x509.X509Certificate(ca.certPem);
  const caKey = await webcrypto.subtle.importKey('pkcs8', fromPem(ca.keyPem), algorithm, false, ['sign']);
  const keys = (await webcrypto.subtle.generateKey(algorithm, true, ['sign', 'verify'])) as webcrypto.CryptoKeyPair;
  const subject = [...groups.map((g) => `O=${escapeRdn(g)}`), `CN=${escapeRdn(user)}`].join(', ');
  const cert = await x509.X509CertificateGenerator.create({
    subject,
    issuer: caCert.subject,
    publicKey: keys.publicKey as never,
    signingKey: caKey as never,
    signingAlgorithm: algorithm,
    serialNumber: Buffer.from(webcrypto.getRandomValues(new Uint8Array(16))).toString('hex').replace(/^[89a-f]/, '1'),
    notBefore: new Date(nowMs - 3600_000),
    notAfter: new Date(nowMs + oneYear),
    extensions: [
      new x509.BasicConstraintsExtension(false, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature | x509.KeyUsageFlags.keyEncipherment, true),
      new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.clientAuth]),
      await x509.AuthorityKeyIdentifierExtension.create(caCert),
    ],
  });
  return { certPem: cert.toString('pem') + '\n', keyPem: toPem(await webcrypto.subtle.exportKey('pkcs8', keys.privateKey), 'PRIVATE KEY') };
}
