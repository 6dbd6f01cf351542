/**
 * The serving certificate is re-issued from the same CA when it stops fitting (a SAN is
 * missing, or its end is near, or its key file holds another key), and is left alone otherwise.
 * Replicas starting together on one directory end up with one CA and pairs that belong together.
 */
import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it, type TestContext } from 'node:test';
import { ensureServingPki, keyMatches, servingCertProblem } from './pki.ts';

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

  it('gives replicas starting together one CA, and each a certificate with its own key', async (t) => {
    const dir = pkiDir(t);
    const all = await Promise.all([1, 2, 3, 4].map((i) => ensureServingPki(dir, { ipAddresses: [`127.1.0.${i}`] })));
    assert.equal(new Set(all.map((p) => p.caCertPem)).size, 1, 'one CA');
    assert.equal(readFileSync(join(dir, 'ca.crt'), 'utf8'), all[0]!.caCertPem);
    assert.ok(keyMatches(all[0]!.caCertPem, readFileSync(join(dir, 'ca.key'), 'utf8')), 'the CA files belong together');
    for (const p of all) {
      assert.ok(keyMatches(p.certPem, p.keyPem), 'each serves a pair that belongs together');
      assert.ok(new X509Certificate(p.certPem).verify(new X509Certificate(p.caCertPem).publicKey), 'signed by that CA');
    }
    assert.ok(keyMatches(readFileSync(join(dir, 'apiserver.crt'), 'utf8'), readFileSync(join(dir, 'apiserver.key'), 'utf8')), 'the serving files on disk belong together');
  });

  it('re-issues a serving certificate whose key file holds another key', async (t) => {
    const dir = pkiDir(t);
    const first = await ensureServingPki(dir);
    const other = await ensureServingPki(pkiDir(t));
    writeFileSync(join(dir, 'apiserver.key'), other.keyPem);
    const again = await ensureServingPki(dir);
    assert.equal(again.reissued, 'its key file holds another key');
    assert.equal(again.caCertPem, first.caCertPem, 'the CA is kept');
    assert.ok(keyMatches(again.certPem, again.keyPem));
  });

  it('says which file is missing when a CA key has no certificate, rather than making a second CA', async (t) => {
    const dir = pkiDir(t);
    await ensureServingPki(dir);
    rmSync(join(dir, 'ca.crt'));
    await assert.rejects(ensureServingPki(dir, { caWaitMs: 200 }), (err: Error) => {
      assert.match(err.message, /ca\.crt: missing .*ca\.key, 0\.2 s after the key was found: the CA is half written; remove both files to start a new CA/);
      return true;
    });
  });
});
