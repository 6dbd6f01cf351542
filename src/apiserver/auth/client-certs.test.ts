/**
 * Client-certificate authentication over a real TLS connection on 127.0.0.1, as kube's x509
 * authenticator and AuthenticatedGroupAdder have it: CN is the user, each O a group in order,
 * system:authenticated added unless the groups already place the user; a certificate the CA
 * did not sign, or none, authenticates no one. And what the certificates issued here carry.
 */
import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { connect, createServer, type Server, type TLSSocket } from 'node:tls';
import { certificateUser, issueClientCertificate, type ClientCertificate } from './client-certs.ts';
import { ensureServingPki, type ServingPki } from './pki.ts';

describe('client certificates', () => {
  const dirs: string[] = [];
  let pki: ServingPki;
  let ca: { certPem: string; keyPem: string };
  let otherCa: { certPem: string; keyPem: string };
  let server: Server;
  let port: number;

  const freshPki = async () => {
    const dir = mkdtempSync(join(tmpdir(), 'shipyard-client-certs-'));
    dirs.push(dir);
    const p = await ensureServingPki(dir);
    return { pki: p, ca: { certPem: p.caCertPem, keyPem: readFileSync(join(dir, 'ca.key'), 'utf8') } };
  };

  before(async () => {
    ({ pki, ca } = await freshPki());
    ({ ca: otherCa } = await freshPki());
    // As the API server's listener: asks for a certificate, trusts only the cluster CA, refuses no one at the TLS layer.
    server = createServer({ cert: pki.certPem, key: pki.keyPem, ca: pki.caCertPem, requestCert: true, rejectUnauthorized: false }, (socket: TLSSocket) => {
      const first = certificateUser(socket);
      const again = certificateUser(socket);
      socket.end(JSON.stringify({ user: first ?? null, cached: first === again }));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as { port: number }).port;
  });
  after(async () => {
    await new Promise((resolve) => server.close(resolve));
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  /** Connects with `cert` (or none) and returns what the server made of it. */
  const userOver = (cert?: ClientCertificate): Promise<{ user: unknown; cached: boolean }> =>
    new Promise((resolve, reject) => {
      const socket = connect({ host: '127.0.0.1', port, ca: pki.caCertPem, ...(cert ? { cert: cert.certPem, key: cert.keyPem } : {}) });
      let body = '';
      socket.on('data', (d: Buffer) => (body += d.toString('utf8')));
      socket.on('end', () => resolve(JSON.parse(body)));
      socket.on('error', reject);
    });

  it('CN is the user and each O a group, then system:authenticated', async () => {
    const r = await userOver(await issueClientCertificate(ca, 'system:node:one', ['system:nodes']));
    assert.deepEqual(r, { user: { name: 'system:node:one', uid: '', groups: ['system:nodes', 'system:authenticated'] }, cached: true });
  });

  it('keeps the O values in order, adding system:authenticated only when no group places the user', async () => {
    assert.deepEqual((await userOver(await issueClientCertificate(ca, 'u', ['system:authenticated', 'b', 'a']))).user, { name: 'u', uid: '', groups: ['system:authenticated', 'b', 'a'] });
    assert.deepEqual((await userOver(await issueClientCertificate(ca, 'u', ['system:unauthenticated']))).user, { name: 'u', uid: '', groups: ['system:unauthenticated'] });
    assert.deepEqual((await userOver(await issueClientCertificate(ca, 'system:anonymous'))).user, { name: 'system:anonymous', uid: '', groups: [] });
  });

  it('names with RDN special characters survive the round trip', async () => {
    const r = await userOver(await issueClientCertificate(ca, 'a,b+c="d"', ['x;y']));
    assert.deepEqual(r.user, { name: 'a,b+c="d"', uid: '', groups: ['x;y', 'system:authenticated'] });
  });

  it('a certificate another CA signed, or none at all, authenticates no one', async () => {
    assert.deepEqual(await userOver(await issueClientCertificate(otherCa, 'system:masters-wannabe', ['system:masters'])), { user: null, cached: true });
    assert.deepEqual(await userOver(), { user: null, cached: true });
  });

  it('issues a one-year client-auth leaf certificate, valid from an hour back', async () => {
    const now = Date.parse('2030-01-01T00:00:00Z');
    const issued = await issueClientCertificate(ca, 'system:kube-scheduler', [], now);
    const cert = new X509Certificate(issued.certPem);
    assert.equal(cert.ca, false);
    assert.ok(cert.verify(new X509Certificate(ca.certPem).publicKey));
    assert.deepEqual(cert.keyUsage, ['1.3.6.1.5.5.7.3.2'], 'extended key usage: clientAuth only');
    assert.equal(Date.parse(cert.validFrom), now - 3600_000);
    assert.equal(Date.parse(cert.validTo), now + 365 * 24 * 3600_000);
    assert.match(cert.subject, /^CN=system:kube-scheduler$/);
    assert.match(issued.keyPem, /^-----BEGIN PRIVATE KEY-----\n/);
  });
});
