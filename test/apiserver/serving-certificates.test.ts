/**
 * `servingInfo`'s certificates as the server serves them: `certFile`/`keyFile` instead of the
 * data directory's certificate, `namedCertificates` picked by SNI (exact and wildcard names),
 * and `clientCA` as the bundle client certificates are checked against.
 */
import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import { connect } from 'node:tls';
import { describe, it } from 'node:test';
import { issueCertificate, type CertificateAndKey } from '../../src/api/x509.ts';
import { startTestServer } from '../support/server.ts';

const notBefore = new Date(Date.now() - 60_000);
const notAfter = new Date(Date.now() + 3600_000);

async function issued(subject: string, issuer: CertificateAndKey, dnsNames: string[], usage: 'serverAuth' | 'clientAuth' = 'serverAuth') {
  return issueCertificate({ subject, issuer, dnsNames, ipAddresses: usage === 'serverAuth' ? ['127.0.0.1'] : [], extendedKeyUsages: [usage], notBefore, notAfter });
}

/** The subject CN of the certificate served for `servername` (none: no SNI). */
function servedFor(port: number, servername: string | undefined, client?: CertificateAndKey): Promise<{ cn: string }> {
  return new Promise((res, rej) => {
    const socket = connect({ host: '127.0.0.1', port, servername, rejectUnauthorized: false, ...(client ? { cert: client.certPem, key: client.keyPem } : {}) }, () => {
      const cn = /CN=([^\n]+)/.exec(new X509Certificate(socket.getPeerX509Certificate()!.raw).subject)?.[1] ?? '';
      res({ cn });
      socket.destroy();
    });
    socket.once('error', rej);
  });
}

describe('servingInfo certificates', () => {
  it('serves certFile, SNI certificates by name and wildcard, and checks client certificates against clientCA', async (t) => {
    const ca = await issueCertificate({ subject: 'CN=config-ca', ca: {}, notBefore, notAfter });
    const serving = await issued('CN=from-cert-file', ca, ['kubernetes.default.svc']);
    const exact = await issued('CN=exact', ca, ['api.example.com']);
    const wildcard = await issued('CN=wildcard', ca, ['*.apps.example.com']);
    const fromSans = await issued('CN=from-sans', ca, ['sans.example.com']);
    const s = await startTestServer({
      tls: {
        servingCert: serving,
        clientCaPem: ca.certPem,
        namedCertificates: [
          { names: ['api.example.com'], ...exact },
          { names: ['*.apps.example.com'], ...wildcard },
          { names: [], ...fromSans },
        ],
      },
    });
    t.after(() => s.stop());
    const port = s.server.port;
    assert.equal((await servedFor(port, undefined)).cn, 'from-cert-file');
    assert.equal((await servedFor(port, 'unknown.example.com')).cn, 'from-cert-file');
    assert.equal((await servedFor(port, 'api.example.com')).cn, 'exact');
    assert.equal((await servedFor(port, 'console.apps.example.com')).cn, 'wildcard');
    assert.equal((await servedFor(port, 'a.b.apps.example.com')).cn, 'from-cert-file', 'a wildcard covers one label');
    assert.equal((await servedFor(port, 'sans.example.com')).cn, 'from-sans', "names empty: the certificate's own DNS SANs");

    // A client certificate from clientCA authenticates; the data directory's CA no longer is the one asked.
    const alice = await issued('CN=alice,O=system:masters', ca, [], 'clientAuth');
    const get = (client?: CertificateAndKey) => new Promise<{ status: number; body: string }>((res, rej) => {
      const socket = connect({ host: '127.0.0.1', port, rejectUnauthorized: false, ...(client ? { cert: client.certPem, key: client.keyPem } : {}) }, () => {
        socket.write('GET /api/v1/namespaces/default HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
      });
      let data = '';
      socket.on('data', (c: Buffer) => (data += c.toString()));
      socket.on('end', () => res({ status: Number(/^HTTP\/1\.1 (\d+)/.exec(data)?.[1]), body: data }));
      socket.once('error', rej);
    });
    const withCert = await get(alice);
    assert.equal(withCert.status, 200, withCert.body.slice(0, 400));
    assert.equal((await get()).status, 401, 'the certificate is what authenticated');
    const stranger = await issueCertificate({ subject: 'CN=other-ca', ca: {}, notBefore, notAfter });
    assert.equal((await get(await issued('CN=mallory,O=system:masters', stranger, [], 'clientAuth'))).status, 401, 'a CA outside clientCA is not trusted');
  });
});
