import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { createCertificateRequest, parseCertificateRequest, type ParsedCertificateRequest } from '../../api/x509.ts';
import { certificateDurationMs, certificateUsages, signerProblem, validityWindow } from './policy.ts';

const kubelet = 'kubernetes.io/kube-apiserver-client-kubelet';
const client = 'kubernetes.io/kube-apiserver-client';
const minute = 60_000;
const year = 365 * 24 * 60 * minute;

describe('csrsigning policy', () => {
  let node: ParsedCertificateRequest;
  let nodeWithDns: ParsedCertificateRequest;
  let user: ParsedCertificateRequest;
  before(async () => {
    const parse = async (subject: string, o?: { dnsNames?: string[] }) => parseCertificateRequest((await createCertificateRequest(subject, o)).csrPem);
    node = await parse('O=system:nodes, CN=system:node:a');
    nodeWithDns = await parse('O=system:nodes, CN=system:node:a', { dnsNames: ['a.example'] });
    user = await parse('O=team, CN=alice');
  });

  it('refuses what each signer refuses, in kube\'s words', () => {
    assert.equal(signerProblem(kubelet, node, ['digital signature', 'client auth']), undefined);
    assert.equal(signerProblem(kubelet, node, ['digital signature', 'key encipherment', 'client auth']), undefined);
    assert.equal(signerProblem(kubelet, nodeWithDns, ['digital signature', 'client auth']), 'DNS subjectAltNames are not allowed');
    assert.equal(signerProblem(kubelet, user, ['digital signature', 'client auth']), 'subject organization is not system:nodes');
    assert.equal(signerProblem(kubelet, node, ['client auth']), 'usages did not match [client auth digital signature key encipherment]');
    assert.equal(signerProblem(client, user, ['client auth', 'digital signature']), undefined);
    assert.equal(signerProblem(client, user, ['client auth', 'server auth']), 'invalid usage for client certificate: server auth');
    assert.equal(signerProblem(client, user, ['digital signature']), 'missing required usage for client certificate: client auth');
  });

  it('honours expirationSeconds between 10 minutes and the maximum', () => {
    assert.equal(certificateDurationMs(undefined, year), year);
    assert.equal(certificateDurationMs(3600, year), 60 * minute);
    assert.equal(certificateDurationMs(60, year), 10 * minute);
    assert.equal(certificateDurationMs(10 * 365 * 24 * 3600, year), year);
  });

  it('backdates 5 minutes, counts a short certificate from now, and never outlives the CA', () => {
    const now = Date.parse('2026-01-01T00:00:00Z');
    const long = validityWindow(now, year, now + 10 * year);
    assert.equal(long.notBefore.getTime(), now - 5 * minute);
    assert.equal(long.notAfter.getTime(), now - 5 * minute + year);
    const short = validityWindow(now, 60 * minute, now + year);
    assert.equal(short.notAfter.getTime(), now + 60 * minute);
    assert.equal(validityWindow(now, year, now + 30 * minute).notAfter.getTime(), now + 30 * minute);
  });

  it('maps requested usages to certificate extensions', () => {
    assert.deepEqual(certificateUsages(['digital signature', 'key encipherment', 'client auth']), { keyUsages: ['digitalSignature', 'keyEncipherment'], extendedKeyUsages: ['clientAuth'] });
  });
});
