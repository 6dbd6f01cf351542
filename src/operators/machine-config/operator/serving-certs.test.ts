import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import { describe, it } from 'node:test';
import type { V1Secret } from '@kubernetes/client-node';
import { issueCertificate, splitPemBundle } from '../../../api/x509.ts';
import { issueServingSecret, servingCertProblem, signerFrom } from './serving-certs.ts';

const now = Date.now();
const day = 24 * 3600_000;
const want = { secretName: 'machine-config-server-tls', commonName: 'machine-config-server', ipAddresses: ['127.0.0.1', '127.1.0.2'] };

async function pki() {
  const root = await issueCertificate({ subject: 'CN=root', ca: {}, notBefore: new Date(now - day), notAfter: new Date(now + 3650 * day) });
  const signer = await issueCertificate({ subject: 'CN=signer', issuer: root, ca: { pathLength: 0 }, extendedKeyUsages: ['serverAuth'], notBefore: new Date(now - day), notAfter: new Date(now + 3650 * day) });
  return { root, signer };
}

const asSecret = (crt: string, key: string): V1Secret => ({ data: { 'tls.crt': Buffer.from(crt).toString('base64'), 'tls.key': Buffer.from(key).toString('base64') } });

describe('operand serving certificates', () => {
  it('issues the leaf for exactly the addresses asked, with the signer after it so the root vouches for both', async () => {
    const { root, signer } = await pki();
    const secret = await issueServingSecret(signer, want, now);
    assert.equal(secret.type, 'kubernetes.io/tls');
    assert.equal(secret.metadata?.namespace, 'openshift-machine-config-operator');
    const [leafPem, chainPem] = splitPemBundle(Buffer.from(secret.data!['tls.crt']!, 'base64').toString());
    assert.equal(chainPem, signer.certPem);
    const leaf = new X509Certificate(leafPem!);
    assert.equal(leaf.subject, 'CN=machine-config-server');
    assert.equal(leaf.subjectAltName, 'IP Address:127.0.0.1, IP Address:127.1.0.2');
    assert.ok(new X509Certificate(signer.certPem).checkIssued(new X509Certificate(root.certPem)));
    assert.equal(servingCertProblem(secret, signer.certPem, want, now), undefined, 'a fresh one fits');
  });

  it('says why a certificate must be issued again', async () => {
    const { signer } = await pki();
    const other = await pki();
    const secret = await issueServingSecret(signer, want, now);
    assert.equal(servingCertProblem(undefined, signer.certPem, want, now), 'it does not exist');
    assert.equal(servingCertProblem(secret, other.signer.certPem, want, now), 'it was not issued by the current signer');
    assert.equal(servingCertProblem(secret, signer.certPem, { ...want, ipAddresses: [...want.ipAddresses, '127.1.0.10'] }, now), 'it lacks IP Address:127.1.0.10');
    assert.equal(servingCertProblem(secret, signer.certPem, { ...want, ipAddresses: ['127.0.0.1'] }, now), 'it still names IP Address:127.1.0.2');
    assert.match(servingCertProblem(secret, signer.certPem, want, now + 340 * day) ?? '', /^it expires .*, within 30 days$/);
    assert.equal(servingCertProblem(asSecret('garbage', 'key'), signer.certPem, want, now), 'it is not a certificate');
  });

  it('the signer comes from its Secret, and must be a CA', async () => {
    const { root, signer } = await pki();
    const found = signerFrom(asSecret(signer.certPem, signer.keyPem), 'machine-config-operator-signer');
    assert.ok('signer' in found && found.signer.certPem === signer.certPem);
    assert.deepEqual(signerFrom(undefined, 's'), { problem: 'Secret openshift-machine-config-operator/s not found (shipyard up writes it at install)' });
    const leaf = await issueCertificate({ subject: 'CN=leaf', issuer: root, notBefore: new Date(now), notAfter: new Date(now + day) });
    assert.deepEqual(signerFrom(asSecret(leaf.certPem, leaf.keyPem), 's'), { problem: 'Secret openshift-machine-config-operator/s: tls.crt is not a CA certificate' });
  });
});
