import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { describe, it } from 'node:test';
import { connect, createServer, type TLSSocket } from 'node:tls';
import { issueCertificate, splitPemBundle, type CertificateAndKey } from './x509.ts';

const now = Date.now();
const validity = { notBefore: new Date(now - 3600_000), notAfter: new Date(now + 24 * 3600_000) };

async function chain(): Promise<{ root: CertificateAndKey; signer: CertificateAndKey }> {
  const root = await issueCertificate({ subject: 'CN=test-root', ca: {}, ...validity });
  const signer = await issueCertificate({ subject: 'CN=test-signer', issuer: root, ca: { pathLength: 0 }, extendedKeyUsages: ['serverAuth'], ...validity });
  return { root, signer };
}

/** A TLS handshake on 127.0.0.1: what the server saw of the client, and whether the client trusted the server. */
async function handshake(o: { server: CertificateAndKey; serverChain?: string; clientCa: string; client?: CertificateAndKey & { chain?: string }; serverCa?: string }): Promise<{ clientAuthorized: boolean; serverAuthorized: boolean; clientError?: string }> {
  const server = createServer({ cert: o.server.certPem + (o.serverChain ?? ''), key: o.server.keyPem, requestCert: !!o.serverCa, rejectUnauthorized: false, ...(o.serverCa ? { ca: o.serverCa } : {}) });
  let peerAuthorized = false;
  const seen = new Promise<void>((resolve) =>
    server.on('secureConnection', (s: TLSSocket) => {
      peerAuthorized = s.authorized;
      s.end();
      resolve();
    }),
  );
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  try {
    const { port } = server.address() as AddressInfo;
    const socket = connect({ host: '127.0.0.1', port, ca: o.clientCa, rejectUnauthorized: false, ...(o.client ? { cert: o.client.certPem + (o.client.chain ?? ''), key: o.client.keyPem } : {}) });
    await once(socket, 'secureConnect');
    const clientAuthorized = socket.authorized;
    const clientError = socket.authorizationError ? String(socket.authorizationError) : undefined;
    await seen;
    socket.destroy();
    return { clientAuthorized, serverAuthorized: peerAuthorized, ...(clientError ? { clientError } : {}) };
  } finally {
    server.close();
  }
}

describe('x509', () => {
  it('issues a CA, a restricted signer below it and a serving certificate below that, each verifiable by Node', async () => {
    const { root, signer } = await chain();
    const leaf = await issueCertificate({ subject: 'CN=machine-config-server', issuer: signer, extendedKeyUsages: ['serverAuth'], ipAddresses: ['127.0.0.1', '127.1.0.2'], dnsNames: ['api-int.local'], ...validity });
    const [r, s, l] = [root, signer, leaf].map((c) => new X509Certificate(c.certPem)) as [X509Certificate, X509Certificate, X509Certificate];
    assert.ok(r.ca && s.ca && !l.ca);
    assert.ok(s.checkIssued(r) && s.verify(r.publicKey), 'the signer is the root\'s');
    assert.ok(l.checkIssued(s) && l.verify(s.publicKey), 'the leaf is the signer\'s');
    assert.equal(l.subjectAltName, 'DNS:api-int.local, IP Address:127.0.0.1, IP Address:127.1.0.2');
    assert.deepEqual(s.keyUsage, ['1.3.6.1.5.5.7.3.1'], 'the signer is for serving only');
    assert.match(leaf.keyPem, /^-----BEGIN PRIVATE KEY-----\n/);
    assert.notEqual(l.serialNumber, new X509Certificate((await issueCertificate({ subject: 'CN=x', issuer: signer, ...validity })).certPem).serialNumber);
  });

  it('a client that trusts only the root trusts a server presenting leaf and signer', async () => {
    const { root, signer } = await chain();
    const leaf = await issueCertificate({ subject: 'CN=server', issuer: signer, extendedKeyUsages: ['serverAuth'], ipAddresses: ['127.0.0.1'], ...validity });
    assert.equal((await handshake({ server: leaf, serverChain: signer.certPem, clientCa: root.certPem })).clientAuthorized, true);
    const withoutChain = await handshake({ server: leaf, clientCa: root.certPem });
    assert.equal(withoutChain.clientAuthorized, false, 'without the signer in the chain the root alone cannot vouch for the leaf');
  });

  it('the serving-only signer cannot mint a client certificate a server trusting the root accepts', async () => {
    const { root, signer } = await chain();
    const serving = await issueCertificate({ subject: 'CN=server', issuer: root, extendedKeyUsages: ['serverAuth'], ipAddresses: ['127.0.0.1'], ...validity });
    const forged = await issueCertificate({ subject: 'O=system:masters, CN=admin', issuer: signer, extendedKeyUsages: ['clientAuth'], ...validity });
    const refused = await handshake({ server: serving, clientCa: root.certPem, serverCa: root.certPem, client: { ...forged, chain: signer.certPem } });
    assert.equal(refused.serverAuthorized, false, 'a client certificate chained through the serving-only signer is not authorized');
    const genuine = await issueCertificate({ subject: 'CN=someone', issuer: root, extendedKeyUsages: ['clientAuth'], ...validity });
    assert.equal((await handshake({ server: serving, clientCa: root.certPem, serverCa: root.certPem, client: genuine })).serverAuthorized, true, 'the root\'s own client certificates still are');
  });

  it('splits a bundle into its certificates', async () => {
    const { root, signer } = await chain();
    assert.deepEqual(splitPemBundle(root.certPem + signer.certPem), [root.certPem, signer.certPem]);
  });
});
