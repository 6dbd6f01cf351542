/**
 * `servingInfo.namedCertificates`: certificates served for particular names, picked by the
 * TLS client's SNI as Go's `tls.Config.GetCertificate` does in kube-apiserver. A certificate
 * listed without names is served for the DNS names in its own SANs; a name may be a leading
 * wildcard (`*.apps.example.com`, one label). Anything else gets the default certificate.
 */
import { X509Certificate } from 'node:crypto';
import { createSecureContext, type SecureContext, type SecureContextOptions } from 'node:tls';

export interface NamedCertificate {
  readonly names: readonly string[];
  readonly certPem: string;
  readonly keyPem: string;
}

export type SniCallback = (servername: string, cb: (err: Error | null, ctx?: SecureContext) => void) => void;

function sanDnsNames(certPem: string): string[] {
  const san = new X509Certificate(certPem).subjectAltName ?? '';
  return san
    .split(', ')
    .filter((e) => e.startsWith('DNS:'))
    .map((e) => e.slice(4).toLowerCase());
}

/** The certificate's context for an exact name first, then for its wildcard. */
export function sniCallback(certs: readonly NamedCertificate[], shared: SecureContextOptions): SniCallback | undefined {
  if (certs.length === 0) return undefined;
  const byName = new Map<string, SecureContext>();
  for (const c of certs) {
    const ctx = createSecureContext({ ...shared, cert: c.certPem, key: c.keyPem });
    const names = c.names.length > 0 ? c.names.map((n) => n.toLowerCase()) : sanDnsNames(c.certPem);
    // The first certificate listed for a name wins, as kube's name-to-certificate map keeps it.
    for (const n of names) if (!byName.has(n)) byName.set(n, ctx);
  }
  return (servername, cb) => {
    const name = servername.toLowerCase();
    const dot = name.indexOf('.');
    cb(null, byName.get(name) ?? (dot > 0 ? byName.get(`*${name.slice(dot)}`) : undefined));
  };
}
