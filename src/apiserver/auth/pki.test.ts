/**
 * The serving certificate is re-issued from the same CA when it stops fitting (a SAN is
 * missing, or its end is near), and is left alone otherwise.
 */
import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it, type TestContext } from 'node:test';
import { ensureServingPki, servingCertProblem } from './pki.ts';

const sansOf = (pem: string): string[] => (new X509Certificate(pem).subjectAltName ?? '').split(/,\s*/);

/** A fresh PKI directory, removed when the test `t` ends. */
function pkiDir(t: TestContext): string {
  const dir = mkdtempSync(join(tmpdir(), 'shipyard-pki-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

describe('serving PKI', () => {
  it('covers the kubernetes Service by its ClusterIP and every name it goes by', async (t) => {
    const dir = pkiDir(t);
    const pki = await ensureServingPki(dir);
    const sans = sansOf(pki.certPem);
    for (const want of ['IP Address:127.0.0.1', 'IP Address:127.64.0.1', 'DNS:localhost', 'DNS:kubernetes', 'DNS:kubernetes.default', 'DNS:kubernetes.default.svc', 'DNS:kubernetes.default.svc.cluster.local']) {
      assert.ok(sans.includes(want), `${want} in ${sans.join(', ')}`);
    }
    assert.equal(pki.reissued, undefined, 'a first certificate is issued, not re-issued');
    assert.equal(statSync(join(dir, 'apiserver.key')).mode & 0o077, 0);
  });

  it('keeps a certificate that still fits, and re-issues one lacking a SAN from the same CA', async (t) => {
    const dir = pkiDir(t);
    const first = await ensureServingPki(dir, { ipAddresses: ['127.1.0.5'] });
    const caKey = readFileSync(join(dir, 'ca.key'), 'utf8');
    const same = await ensureServingPki(dir, { ipAddresses: ['127.1.0.5'] });
    assert.equal(same.certPem, first.certPem);
    assert.equal(same.reissued, undefined);

    const grown = await ensureServingPki(dir, { ipAddresses: ['127.1.0.5', '127.1.0.50'], dnsNames: ['api.shipyard.test'] });
    assert.notEqual(grown.certPem, first.certPem);
    assert.match(grown.reissued ?? '', /lacks the SANs 127\.1\.0\.50|lacks the SANs api\.shipyard\.test/);
    assert.equal(grown.caCertPem, first.caCertPem, 'the CA is kept');
    assert.equal(readFileSync(join(dir, 'ca.key'), 'utf8'), caKey, 'the CA key is kept');
    const cert = new X509Certificate(grown.certPem);
    assert.ok(cert.verify(new X509Certificate(grown.caCertPem).publicKey), 'signed by the same CA');
    const sans = sansOf(grown.certPem);
    for (const want of ['IP Address:127.1.0.50', 'IP Address:127.1.0.5', 'DNS:api.shipyard.test']) assert.ok(sans.includes(want), want);
  });

  it('does not take 127.0.0.1 as covering 127.0.0.10', async (t) => {
    const dir = pkiDir(t);
    const pki = await ensureServingPki(dir);
    assert.match(servingCertProblem(pki.certPem, pki.caCertPem, { dns: [], ips: ['127.0.0.10'] }) ?? '', /127\.0\.0\.10/);
  });

  it('re-issues a certificate within 30 days of its end, or one the CA did not sign', async (t) => {
    const dir = pkiDir(t);
    const pki = await ensureServingPki(dir);
    const notAfter = Date.parse(new X509Certificate(pki.certPem).validTo);
    assert.equal(servingCertProblem(pki.certPem, pki.caCertPem, { dns: [], ips: [] }, notAfter - 31 * 86_400_000), undefined);
    assert.match(servingCertProblem(pki.certPem, pki.caCertPem, { dns: [], ips: [] }, notAfter - 29 * 86_400_000) ?? '', /within 30 days/);
    const other = await ensureServingPki(pkiDir(t));
    assert.match(servingCertProblem(pki.certPem, other.caCertPem, { dns: [], ips: [] }) ?? '', /not issued by the current CA/);
  });
});
