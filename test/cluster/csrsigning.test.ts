/**
 * kube-controller-manager's certificate controllers on a real API server, running as
 * system:kube-controller-manager (so its bootstrap role must allow signing and cleaning), with
 * the cluster CA and a clock the test drives: csrsigning issues for approved requests to kube's
 * client signers only, honouring expirationSeconds, marks Failed what a signer refuses, and leaves
 * pending, denied and other signers' requests alone; csrcleaner deletes issued, denied and failed
 * requests an hour after their condition and pending ones after a day, and nothing before.
 */
import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { V1CertificateSigningRequest } from '@kubernetes/client-node';
import pino from 'pino';
import { createCertificateRequest } from '../../src/api/x509.ts';
import { ensureIdentityKubeconfig } from '../../src/apiserver/auth/identity-kubeconfig.ts';
import { createCsrCleaner } from '../../src/cluster/csrsigning/cleaner.ts';
import { createCsrSigningController } from '../../src/cluster/csrsigning/controller.ts';
import { ApiClient, isNotFound } from '../../src/runtime/client.ts';
import { FakeClock } from '../../src/runtime/clock.ts';
import type { ControllerContext } from '../../src/runtime/context.ts';
import { InformerFactory } from '../../src/runtime/informer-factory.ts';
import { ClientConfig } from '../../src/runtime/kubeconfig.ts';
import { resources } from '../../src/runtime/resources.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { until } from '../support/until.ts';

const csrs = resources.certificateSigningRequests;
const kubelet = 'kubernetes.io/kube-apiserver-client-kubelet';
const hour = 3_600_000;
type Csr = V1CertificateSigningRequest;

describe('csrsigning and csrcleaner as system:kube-controller-manager', { timeout: 120_000 }, () => {
  let ts: TestServer;
  let admin: ApiClient;
  let clock: FakeClock;
  const abort = new AbortController();
  let running: Promise<unknown>;
  let controllerClient: ApiClient;

  before(async () => {
    ts = await startTestServer();
    const adminConfig = new ClientConfig();
    adminConfig.loadFromFile(ts.server.kubeconfigPath);
    admin = new ApiClient(adminConfig, { userAgent: 'csrsigning-test' });
    const pkiDir = join(ts.dataDir, 'pki');
    const kubeconfig = await ensureIdentityKubeconfig({ path: join(ts.dataDir, 'kcm.kubeconfig'), server: ts.server.url, pkiDir, user: 'system:kube-controller-manager' });
    const config = new ClientConfig();
    config.loadFromFile(kubeconfig);
    controllerClient = new ApiClient(config, { userAgent: 'kube-controller-manager' });
    const informers = new InformerFactory({ client: controllerClient, signal: abort.signal });
    // Wall time from now: the requests' times are the server's.
    clock = new FakeClock(0, { wall: Date.now() });
    const ctx: ControllerContext = { client: controllerClient, informers, recorder: { event: () => {} }, logger: pino({ level: 'silent' }), clock };
    const ca = { certPem: readFileSync(join(pkiDir, 'ca.crt'), 'utf8'), keyPem: readFileSync(join(pkiDir, 'ca.key'), 'utf8') };
    const controllers = [createCsrSigningController(ctx, { ca, maxDurationMs: 24 * hour }), createCsrCleaner(ctx)];
    await informers.waitForSync();
    running = Promise.all(controllers.map((c) => c.run(abort.signal)));
  });
  after(async () => {
    abort.abort();
    await running;
    controllerClient.close();
    admin.close();
    await ts.stop();
  });

  async function file(name: string, subject: string, o: { signerName?: string; usages?: string[]; expirationSeconds?: number; dnsNames?: string[] } = {}): Promise<Csr> {
    const { csrPem } = await createCertificateRequest(subject, { dnsNames: o.dnsNames });
    return admin.create<Csr>(csrs, {
      apiVersion: 'certificates.k8s.io/v1',
      kind: 'CertificateSigningRequest',
      metadata: { name },
      spec: { request: Buffer.from(csrPem).toString('base64'), signerName: o.signerName ?? kubelet, usages: o.usages ?? ['digital signature', 'client auth'], ...(o.expirationSeconds ? { expirationSeconds: o.expirationSeconds } : {}) },
    });
  }

  async function decide(name: string, type: 'Approved' | 'Denied'): Promise<void> {
    const csr = await admin.get<Csr>(csrs, undefined, name);
    csr.status = { ...(csr.status ?? {}), conditions: [...(csr.status?.conditions ?? []), { type, status: 'True', reason: 'Test', message: 'by the test' } as never] };
    await admin.update(csrs, csr, { subresource: 'approval' });
  }

  const get = (name: string) => admin.get<Csr>(csrs, undefined, name);
  const gone = (name: string) => until(`${name} deleted`, async () => get(name).then(() => false, (err) => isNotFound(err)), 20_000);

  it('issues approved requests to kube\'s client signers with the cluster CA, for the duration asked, and marks Failed what a signer refuses', async () => {
    await file('node-a', 'O=system:nodes, CN=system:node:a', { expirationSeconds: 3600 });
    await file('user-b', 'O=team, CN=bob', { signerName: 'kubernetes.io/kube-apiserver-client', usages: ['client auth'] });
    await file('node-dns', 'O=system:nodes, CN=system:node:c', { dnsNames: ['c.example'] });
    await file('pending', 'O=system:nodes, CN=system:node:d');
    await file('other-signer', 'CN=x', { signerName: 'example.com/custom', usages: ['client auth'] });
    for (const n of ['node-a', 'user-b', 'node-dns', 'other-signer']) await decide(n, 'Approved');

    const issued = await until('node-a issued', async () => (await get('node-a')).status?.certificate, 20_000);
    const cert = new X509Certificate(Buffer.from(issued, 'base64'));
    assert.match(cert.subject, /CN=system:node:a/);
    assert.ok(cert.checkIssued(new X509Certificate(ts.server.caCertPem)));
    // One hour from the signer's clock, backdated 5 minutes only when the certificate is long.
    assert.equal(Date.parse(cert.validTo), Math.floor((clock.wallNow() + hour) / 1000) * 1000);
    const userCert = new X509Certificate(Buffer.from(await until('user-b issued', async () => (await get('user-b')).status?.certificate, 20_000), 'base64'));
    assert.match(userCert.subject, /CN=bob/);
    assert.match(String(userCert.keyUsage ?? ''), /1\.3\.6\.1\.5\.5\.7\.3\.2/, 'client auth');
    // The 24 h maximum applies when nothing is asked.
    assert.ok(Date.parse(userCert.validTo) - Date.parse(userCert.validFrom) <= 24 * hour);

    const failed = await until('node-dns Failed', async () => (await get('node-dns')).status?.conditions?.find((c) => c.type === 'Failed'), 20_000);
    assert.equal(failed.reason, 'SignerValidationFailure');
    assert.equal(failed.message, 'DNS subjectAltNames are not allowed');
    assert.equal((await get('node-dns')).status?.certificate, undefined);
    assert.equal((await get('pending')).status?.certificate, undefined);
    assert.equal((await get('other-signer')).status?.certificate, undefined, 'another signer\'s request is left to it');
  });

  it('cleans up issued, denied and failed requests after an hour and pending ones after a day', async () => {
    await file('denied', 'O=system:nodes, CN=system:node:e');
    await decide('denied', 'Denied');
    // Nothing is due yet.
    clock.advance(30 * 60_000);
    await new Promise((r) => setTimeout(r, 200));
    for (const n of ['node-a', 'user-b', 'node-dns', 'pending', 'denied']) await get(n);
    clock.advance(31 * 60_000);
    for (const n of ['node-a', 'user-b', 'node-dns', 'denied']) await gone(n);
    await get('pending');
    clock.advance(23 * hour);
    await gone('pending');
    // Approved but never issued (another signer's) is not cleaned by the issued rule.
    await get('other-signer');
  });
});
