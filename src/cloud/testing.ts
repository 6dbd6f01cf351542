/**
 * Test support for this folder (src/ may not import test/): a self-signed certificate for
 * 127.0.0.1 and localhost, to stand up HTTPS servers in tests.
 */
import 'reflect-metadata';
import { webcrypto } from 'node:crypto';
import * as x509 from '@peculiar/x509';

x509.cryptoProvider.set(webcrypto as never);

export async function selfSignedCertificate(): Promise<{ cert: string; key: string }> {
  const alg = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' } as const;
  const keys = (await webcrypto.subtle.generateKey(alg, true, ['sign', 'verify'])) as webcrypto.CryptoKeyPair;
  const cert = await x509.X509CertificateGenerator.createSelfSigned({
    name: 'CN=shipyard-test',
    keys: keys as never,
    signingAlgorithm: alg,
    notBefore: new Date(Date.now() - 60_000),
    notAfter: new Date(Date.now() + 3_600_000),
    extensions: [
      new x509.BasicConstraintsExtension(true, undefined, true),
      new x509.SubjectAlternativeNameExtension([
        { type: 'dns', value: 'localhost' },
        { type: 'ip', value: '127.0.0.1' },
      ]),
    ],
  });
  const pkcs8 = Buffer.from(await webcrypto.subtle.exportKey('pkcs8', keys.privateKey)).toString('base64');
  return { cert: cert.toString('pem'), key: `-----BEGIN PRIVATE KEY-----\n${pkcs8.replace(/.{64}/g, '$&\n')}\n-----END PRIVATE KEY-----\n` };
}
