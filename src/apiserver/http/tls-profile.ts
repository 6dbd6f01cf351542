/**
 * A TLS profile as OpenShift writes it (`servingInfo.minTLSVersion` in Go's names,
 * `servingInfo.cipherSuites` by IANA name) turned into what Node's TLS server takes: a
 * `minVersion` and an OpenSSL cipher list.
 *
 * TLS 1.3 suites are not configurable in Go, so a profile listing some of them still gets all
 * three, as kube-apiserver does; names Node's OpenSSL build lacks (RC4, 3DES) are skipped by
 * OpenSSL itself, and a list with none it knows fails at start rather than serving no cipher.
 */
import type { SecureVersion } from 'node:tls';

const tls13Suites = ['TLS_AES_128_GCM_SHA256', 'TLS_AES_256_GCM_SHA384', 'TLS_CHACHA20_POLY1305_SHA256'];

/** IANA name → OpenSSL name, for the TLS 1.0–1.2 suites Go implements. */
export const opensslCipherNames: Readonly<Record<string, string>> = {
  TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA: 'ECDHE-ECDSA-AES128-SHA',
  TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA: 'ECDHE-ECDSA-AES256-SHA',
  TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA: 'ECDHE-RSA-AES128-SHA',
  TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA: 'ECDHE-RSA-AES256-SHA',
  TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256: 'ECDHE-ECDSA-AES128-GCM-SHA256',
  TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384: 'ECDHE-ECDSA-AES256-GCM-SHA384',
  TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256: 'ECDHE-RSA-AES128-GCM-SHA256',
  TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384: 'ECDHE-RSA-AES256-GCM-SHA384',
  TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256: 'ECDHE-RSA-CHACHA20-POLY1305',
  TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256: 'ECDHE-ECDSA-CHACHA20-POLY1305',
  TLS_RSA_WITH_RC4_128_SHA: 'RC4-SHA',
  TLS_RSA_WITH_3DES_EDE_CBC_SHA: 'DES-CBC3-SHA',
  TLS_RSA_WITH_AES_128_CBC_SHA: 'AES128-SHA',
  TLS_RSA_WITH_AES_256_CBC_SHA: 'AES256-SHA',
  TLS_RSA_WITH_AES_128_CBC_SHA256: 'AES128-SHA256',
  TLS_RSA_WITH_AES_128_GCM_SHA256: 'AES128-GCM-SHA256',
  TLS_RSA_WITH_AES_256_GCM_SHA384: 'AES256-GCM-SHA384',
  TLS_ECDHE_ECDSA_WITH_RC4_128_SHA: 'ECDHE-ECDSA-RC4-SHA',
  TLS_ECDHE_RSA_WITH_RC4_128_SHA: 'ECDHE-RSA-RC4-SHA',
  TLS_ECDHE_RSA_WITH_3DES_EDE_CBC_SHA: 'ECDHE-RSA-DES-CBC3-SHA',
  TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA256: 'ECDHE-ECDSA-AES128-SHA256',
  TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA256: 'ECDHE-RSA-AES128-SHA256',
};

const tlsVersions: Readonly<Record<string, SecureVersion>> = {
  VersionTLS10: 'TLSv1',
  VersionTLS11: 'TLSv1.1',
  VersionTLS12: 'TLSv1.2',
  VersionTLS13: 'TLSv1.3',
};

export interface TlsProfile {
  readonly minVersion?: SecureVersion;
  /** OpenSSL's colon-separated list (TLS 1.3 suites first), or undefined for Node's default. */
  readonly ciphers?: string;
}

/** Throws on a name it does not know; the config's validation refuses those first. */
export function tlsProfile(minTLSVersion: string | undefined, cipherSuites: readonly string[] | undefined): TlsProfile {
  let minVersion: SecureVersion | undefined;
  if (minTLSVersion !== undefined) {
    minVersion = tlsVersions[minTLSVersion];
    if (!minVersion) throw new Error(`unknown TLS version ${JSON.stringify(minTLSVersion)}`);
  }
  if (!cipherSuites || cipherSuites.length === 0) return { minVersion };
  const legacy = cipherSuites
    .filter((name) => !tls13Suites.includes(name))
    .map((name) => {
      const openssl = opensslCipherNames[name];
      if (!openssl) throw new Error(`unknown cipher suite ${JSON.stringify(name)}`);
      return openssl;
    });
  return { minVersion, ciphers: [...tls13Suites, ...legacy].join(':') };
}
