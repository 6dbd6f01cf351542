import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import pino from 'pino';
import { issueCertificate, type CertificateAndKey } from '../../api/x509.ts';
import { credentialState, ensureKubeletCredential, outcome, readNodeKubeconfig, TlsBootstrapError } from './tls-bootstrap.ts';

const HOUR = 3600_000;
const now = Date.parse('2026-06-01T00:00:00Z');
let ca: CertificateAndKey;
let current: CertificateAndKey;
let expired: CertificateAndKey;

before(async () => {
  ca = await issueCertificate({ subject: 'CN=test-ca', ca: {}, notBefore: new Date(now - 48 * HOUR), notAfter: new Date(now + 48 * HOUR) });
  current = await issueCertificate({ subject: 'CN=system:node:w, O=system:nodes', issuer: ca, extendedKeyUsages: ['clientAuth'], notBefore: new Date(now - HOUR), notAfter: new Date(now + HOUR) });
  expired = await issueCertificate({ subject: 'CN=system:node:w, O=system:nodes', issuer: ca, extendedKeyUsages: ['clientAuth'], notBefore: new Date(now - 2 * HOUR), notAfter: new Date(now - HOUR) });
});

const roots: string[] = [];
after(() => {
  for (const r of roots) rmSync(r, { recursive: true, force: true });
});

function nodeRoot(files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), 'shipyard-tls-bootstrap-'));
  roots.push(root);
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return root;
}

describe('kubelet TLS bootstrap: whether to ask for a certificate', () => {
  it('keeps a credential whose certificates all hold, as kube\'s isClientConfigStillValid', () => {
    for (const bootstrapAvailable of [true, false]) {
      assert.deepEqual(credentialState({ certPem: current.certPem, bootstrapAvailable, nowMs: now }), { kind: 'valid', notAfter: new Date(now + HOUR).toISOString() });
    }
  });

  it('asks when the kubeconfig is missing, has no certificate, an unreadable one, or one expired in the chain; only with a bootstrap kubeconfig', () => {
    const cases: [string | null | undefined, RegExp][] = [
      [undefined, /^\/var\/lib\/kubelet\/kubeconfig does not exist$/],
      [null, /^\/var\/lib\/kubelet\/kubeconfig holds no client certificate$/],
      ['-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n', /holds no readable client certificate$/],
      [current.certPem + expired.certPem, new RegExp(`^the client certificate in /var/lib/kubelet/kubeconfig expired at ${new Date(now - HOUR).toISOString()}$`)],
    ];
    for (const [certPem, why] of cases) {
      const ask = credentialState({ certPem, bootstrapAvailable: true, nowMs: now });
      assert.equal(ask.kind, 'bootstrap');
      assert.match(ask.kind === 'bootstrap' ? ask.reason : '', why);
      const stuck = credentialState({ certPem, bootstrapAvailable: false, nowMs: now });
      assert.equal(stuck.kind, 'none');
      assert.match(stuck.kind === 'none' ? stuck.reason : '', /, and there is no \/etc\/kubernetes\/kubeconfig to bootstrap from$/);
    }
    assert.equal(credentialState({ certPem: current.certPem, bootstrapAvailable: true, nowMs: now + HOUR }).kind, 'bootstrap', 'expiry is exact');
  });

  it('a request\'s outcome: the certificate once issued; denied or failed is an error worded as kube\'s; otherwise still waiting', () => {
    const csr = (status: object) => ({ metadata: { name: 'csr-abc' }, spec: { request: '', signerName: 'x' }, status });
    assert.equal(outcome(csr({}), 'csr-abc'), undefined);
    assert.equal(outcome(csr({ conditions: [{ type: 'Approved', status: 'True' }] }), 'csr-abc'), undefined, 'approved but not yet signed');
    assert.equal(outcome(csr({ conditions: [{ type: 'Approved', status: 'True' }], certificate: Buffer.from(current.certPem).toString('base64') }), 'csr-abc'), current.certPem);
    assert.throws(() => outcome(csr({ conditions: [{ type: 'Denied', status: 'True', reason: 'NotAMachine', message: 'no Machine has this node name' }] }), 'csr-abc'), (err: Error) => err instanceof TlsBootstrapError && err.message === 'certificate signing request csr-abc is denied, reason: NotAMachine, message: no Machine has this node name');
    assert.throws(() => outcome(csr({ conditions: [{ type: 'Approved', status: 'True' }, { type: 'Failed', status: 'True', reason: 'SignerFailure', message: 'bad' }] }), 'csr-abc'), (err: Error) => err instanceof TlsBootstrapError && err.message === 'certificate signing request csr-abc is failed, reason: SignerFailure, message: bad');
  });

  it('reads a node\'s kubeconfig with its file paths inside the node root', () => {
    const root = nodeRoot({
      'etc/kubernetes/kubeconfig': 'apiVersion: v1\nkind: Config\nclusters: [{name: c, cluster: {server: "https://127.0.0.1:6443", certificate-authority: /etc/kubernetes/ca.crt}}]\nusers: [{name: u, user: {tokenFile: token}}]\ncontexts: [{name: x, context: {cluster: c, user: u}}]\ncurrent-context: x\n',
    });
    const kc = readNodeKubeconfig(root, '/etc/kubernetes/kubeconfig');
    assert.equal(kc.getCurrentCluster()?.caFile, join(root, 'etc/kubernetes/ca.crt'));
    assert.equal(kc.getCurrentUser()?.tokenFile, join(root, 'etc/kubernetes/token'));
  });

  it('keeps a valid kubeconfig without asking, and says plainly when there is nothing to bootstrap from', async () => {
    const kubeconfig = (cert: CertificateAndKey) =>
      `apiVersion: v1\nkind: Config\nclusters: [{name: c, cluster: {server: "https://127.0.0.1:1"}}]\nusers: [{name: u, user: {client-certificate-data: ${Buffer.from(cert.certPem).toString('base64')}, client-key-data: ${Buffer.from(cert.keyPem).toString('base64')}}}]\ncontexts: [{name: x, context: {cluster: c, user: u}}]\ncurrent-context: x\n`;
    const logger = pino({ level: 'silent' });
    const clock = { now: () => 0, wallNow: () => now, setTimeout: () => () => {} };
    const good = nodeRoot({ 'var/lib/kubelet/kubeconfig': kubeconfig(current), 'etc/kubernetes/kubeconfig': 'not even read' });
    assert.deepEqual(await ensureKubeletCredential({ nodeName: 'w', nodeRoot: good, signal: new AbortController().signal, logger, clock }), { kubeconfigPath: join(good, 'var/lib/kubelet/kubeconfig') });
    const stale = nodeRoot({ 'var/lib/kubelet/kubeconfig': kubeconfig(expired) });
    await assert.rejects(ensureKubeletCredential({ nodeName: 'w', nodeRoot: stale, signal: new AbortController().signal, logger, clock }), (err: Error) => err instanceof TlsBootstrapError && /^node w has no credential: the client certificate in \/var\/lib\/kubelet\/kubeconfig expired at .*, and there is no \/etc\/kubernetes\/kubeconfig to bootstrap from$/.test(err.message));
  });
});
