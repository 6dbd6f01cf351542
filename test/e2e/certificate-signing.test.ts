/**
 * Certificate signing requests end to end with a real kubectl, an in-process API server and
 * the controller-manager's csrsigning controller running in-process with the cluster CA: a
 * joining node's bootstrap identity (the machine-config server's node-bootstrapper
 * ServiceAccount) asks for `system:node:<name>`, an admin approves with `kubectl certificate
 * approve`, the signer issues, and the certificate then authenticates as that node (`kubectl
 * auth whoami`). Also: who may approve (kube's 403s), a denied request is never issued, a
 * request its signer refuses is Failed with kube's reason, and a bad PEM is a 422 naming
 * `spec.request`.
 */
import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { stringify } from 'yaml';
import { createCertificateRequest } from '../../src/api/x509.ts';
import { createCsrSigningController } from '../../src/cluster/csrsigning/controller.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { kubectlFails, kubectlOk, parseTable, pollUntil, type Json } from './support.ts';

const bootstrapNamespace = 'openshift-machine-config-operator';
const bootstrapper = `system:serviceaccount:${bootstrapNamespace}:node-bootstrapper`;
const kubeletSigner = 'kubernetes.io/kube-apiserver-client-kubelet';

const setup = `
apiVersion: v1
kind: Namespace
metadata: {name: ${bootstrapNamespace}}
---
apiVersion: v1
kind: ServiceAccount
metadata: {name: node-bootstrapper, namespace: ${bootstrapNamespace}}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: node-bootstrapper}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: system:node-bootstrapper}
subjects:
- {kind: ServiceAccount, name: node-bootstrapper, namespace: ${bootstrapNamespace}}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: csr-approval-writer}
rules:
- {apiGroups: [certificates.k8s.io], resources: [certificatesigningrequests], verbs: [get, list]}
- {apiGroups: [certificates.k8s.io], resources: [certificatesigningrequests/approval], verbs: [update]}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: half-approver}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: csr-approval-writer}
subjects:
- {kind: User, name: half-approver, apiGroup: rbac.authorization.k8s.io}
`;

function csrManifest(name: string, csrPem: string, opts: { signerName?: string; usages?: string[]; expirationSeconds?: number; username?: string } = {}): string {
  return stringify({
    apiVersion: 'certificates.k8s.io/v1',
    kind: 'CertificateSigningRequest',
    metadata: { name },
    spec: {
      request: Buffer.from(csrPem).toString('base64'),
      signerName: opts.signerName ?? kubeletSigner,
      usages: opts.usages ?? ['digital signature', 'client auth'],
      ...(opts.expirationSeconds ? { expirationSeconds: opts.expirationSeconds } : {}),
      // Whatever a client claims here, the server records who really asked.
      ...(opts.username ? { username: opts.username, groups: ['system:masters'] } : {}),
    },
  });
}

describe('CertificateSigningRequests: approve, sign, authenticate (e2e)', () => {
  let ts: TestServer;
  let dataDir: string;
  let bootstrapToken: string;

  before(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'shipyard-csr-'));
    ts = await startTestServer({
      dataDir,
      // The controller-manager's signer, given the cluster CA as --cluster-signing-cert-file/-key-file would.
      controllers: (ctx) => [
        createCsrSigningController(ctx, {
          ca: { certPem: readFileSync(join(dataDir, 'pki', 'ca.crt'), 'utf8'), keyPem: readFileSync(join(dataDir, 'pki', 'ca.key'), 'utf8') },
          maxDurationMs: 365 * 24 * 3600_000,
        }),
      ],
    });
    await kubectlOk(ts, ['apply', '-f', '-'], { input: setup });
    bootstrapToken = (await kubectlOk(ts, ['create', 'token', 'node-bootstrapper', '-n', bootstrapNamespace])).stdout.trim();
  });
  after(async () => {
    await ts.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const getCsr = async (name: string): Promise<Json> => JSON.parse((await kubectlOk(ts, ['get', 'csr', name, '-o', 'json'])).stdout);

  it('a node-bootstrapper asks, an admin approves, the signer issues, and the certificate is system:node:<name>', async () => {
    const { csrPem, keyPem } = await createCertificateRequest('O=system:nodes, CN=system:node:worker-7');
    const created = await kubectlOk(ts, ['--token', bootstrapToken, 'create', '-f', '-'], { input: csrManifest('node-csr-worker-7', csrPem, { expirationSeconds: 7200, username: 'someone-else' }) });
    assert.match(created.stdout, /certificatesigningrequest.certificates.k8s.io\/node-csr-worker-7 created/);

    const pending = await getCsr('node-csr-worker-7');
    assert.equal(pending.spec.username, bootstrapper, 'the requester is who sent the request, not what the body claimed');
    assert.deepEqual([...pending.spec.groups].sort(), ['system:authenticated', 'system:serviceaccounts', `system:serviceaccounts:${bootstrapNamespace}`]);
    const table = parseTable((await kubectlOk(ts, ['get', 'csr'])).stdout);
    assert.deepEqual(table.header, ['NAME', 'AGE', 'SIGNERNAME', 'REQUESTOR', 'REQUESTEDDURATION', 'CONDITION']);
    const row = table.rows.find((r) => r[0] === 'node-csr-worker-7')!;
    assert.deepEqual([row[2], row[3], row[4], row[5]], [kubeletSigner, bootstrapper, '120m', 'Pending']);
    // The bootstrap credential may read its request, but not approve it.
    const selfApprove = await kubectlFails(ts, ['--token', bootstrapToken, 'certificate', 'approve', 'node-csr-worker-7']);
    assert.match(selfApprove.stderr, /certificatesigningrequests.certificates.k8s.io "node-csr-worker-7" is forbidden: User "system:serviceaccount:openshift-machine-config-operator:node-bootstrapper" cannot update resource "certificatesigningrequests\/approval" in API group "certificates.k8s.io" at the cluster scope/);

    await kubectlOk(ts, ['certificate', 'approve', 'node-csr-worker-7']);
    const issued = await pollUntil('the certificate is issued', async () => {
      const csr = await getCsr('node-csr-worker-7');
      return csr.status?.certificate ? csr : undefined;
    });
    const approved = issued.status.conditions.find((c: Json) => c.type === 'Approved');
    assert.equal(approved.reason, 'KubectlApprove');
    assert.ok(approved.lastUpdateTime && approved.lastTransitionTime, 'condition times are filled in by the server');
    const issuedRow = parseTable((await kubectlOk(ts, ['get', 'csr', 'node-csr-worker-7'])).stdout).rows[0]!;
    assert.equal(issuedRow[5], 'Approved,Issued');

    const certPem = Buffer.from(issued.status.certificate, 'base64').toString('utf8');
    const cert = new X509Certificate(certPem);
    assert.match(cert.subject, /CN=system:node:worker-7/);
    assert.match(cert.subject, /O=system:nodes/);
    assert.ok(cert.checkIssued(new X509Certificate(readFileSync(join(dataDir, 'pki', 'ca.crt')))), 'signed by the cluster CA');
    const lifetimeH = (Date.parse(cert.validTo) - Date.now()) / 3600_000;
    assert.ok(lifetimeH > 1.9 && lifetimeH <= 2.01, `expirationSeconds 7200 honoured (${lifetimeH} h left)`);

    // A kubeconfig with nothing but that certificate and its key.
    const kubeconfig = join(dataDir, 'worker-7.kubeconfig');
    writeFileSync(
      kubeconfig,
      stringify({
        apiVersion: 'v1',
        kind: 'Config',
        clusters: [{ name: 'c', cluster: { server: ts.server.url, 'certificate-authority-data': Buffer.from(ts.server.caCertPem).toString('base64') } }],
        users: [{ name: 'node', user: { 'client-certificate-data': Buffer.from(certPem).toString('base64'), 'client-key-data': Buffer.from(keyPem).toString('base64') } }],
        contexts: [{ name: 'node', context: { cluster: 'c', user: 'node' } }],
        'current-context': 'node',
      }),
      { mode: 0o600 },
    );
    const whoami = JSON.parse((await kubectlOk(ts, ['--kubeconfig', kubeconfig, 'auth', 'whoami', '-o', 'json'])).stdout).status.userInfo;
    assert.equal(whoami.username, 'system:node:worker-7');
    assert.deepEqual([...whoami.groups].sort(), ['system:authenticated', 'system:nodes']);
  });

  it('approving needs approve on the signer as well as the approval subresource, in kube\'s words', async () => {
    const { csrPem } = await createCertificateRequest('O=system:nodes, CN=system:node:worker-8');
    await kubectlOk(ts, ['--token', bootstrapToken, 'create', '-f', '-'], { input: csrManifest('node-csr-worker-8', csrPem) });
    const nobody = await kubectlFails(ts, ['--as', 'nobody', 'certificate', 'approve', 'node-csr-worker-8']);
    assert.match(nobody.stderr, /certificatesigningrequests.certificates.k8s.io "node-csr-worker-8" is forbidden: User "nobody" cannot get resource "certificatesigningrequests" in API group "certificates.k8s.io" at the cluster scope/);
    const half = await kubectlFails(ts, ['--as', 'half-approver', 'certificate', 'approve', 'node-csr-worker-8']);
    assert.match(half.stderr, /certificatesigningrequests.certificates.k8s.io "node-csr-worker-8" is forbidden: user not permitted to approve requests with signerName "kubernetes.io\/kube-apiserver-client-kubelet"/);
    assert.equal(parseTable((await kubectlOk(ts, ['get', 'csr', 'node-csr-worker-8'])).stdout).rows[0]![5], 'Pending');
    // kube's approver role for that signer is what was missing.
    await kubectlOk(ts, ['create', 'clusterrolebinding', 'half-approver-signer', '--clusterrole=system:certificates.k8s.io:kube-apiserver-client-kubelet-approver', '--user=half-approver']);
    await pollUntil('the approver role is in force', async () => (await ts.kubectl(['--as', 'half-approver', 'certificate', 'approve', 'node-csr-worker-8'])).code === 0);
    await pollUntil('the certificate is issued', async () => (await getCsr('node-csr-worker-8')).status?.certificate);
  });

  it('a denied request is never issued, and one its signer refuses is Failed with kube\'s reason', async () => {
    const denied = await createCertificateRequest('O=system:nodes, CN=system:node:worker-9');
    await kubectlOk(ts, ['--token', bootstrapToken, 'create', '-f', '-'], { input: csrManifest('node-csr-worker-9', denied.csrPem) });
    await kubectlOk(ts, ['certificate', 'deny', 'node-csr-worker-9']);
    const again = await kubectlFails(ts, ['certificate', 'approve', 'node-csr-worker-9']);
    assert.match(again.stderr, /already Denied/);

    // A kubelet client certificate with a DNS name is not what that signer issues.
    const withSan = await createCertificateRequest('O=system:nodes, CN=system:node:worker-10', { dnsNames: ['worker-10.example'] });
    await kubectlOk(ts, ['--token', bootstrapToken, 'create', '-f', '-'], { input: csrManifest('node-csr-worker-10', withSan.csrPem) });
    await kubectlOk(ts, ['certificate', 'approve', 'node-csr-worker-10']);
    const failed = await pollUntil('the signer marks it Failed', async () => (await getCsr('node-csr-worker-10')).status?.conditions?.find((c: Json) => c.type === 'Failed'));
    assert.equal(failed.reason, 'SignerValidationFailure');
    assert.equal(failed.message, 'DNS subjectAltNames are not allowed');
    const rows = parseTable((await kubectlOk(ts, ['get', 'csr', 'node-csr-worker-9', 'node-csr-worker-10'])).stdout).rows;
    assert.deepEqual(rows.map((r) => [r[0], r[5]]), [['node-csr-worker-9', 'Denied'], ['node-csr-worker-10', 'Approved,Failed']]);
    assert.equal((await getCsr('node-csr-worker-9')).status?.certificate, undefined);
  });

  it('a request that is not a PEM certificate request is a 422 naming spec.request; a system:masters client certificate is refused to anyone', async () => {
    const bad = stringify({ apiVersion: 'certificates.k8s.io/v1', kind: 'CertificateSigningRequest', metadata: { name: 'bad-pem' }, spec: { request: Buffer.from('-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n').toString('base64'), signerName: kubeletSigner, usages: ['client auth'] } });
    const r = await kubectlFails(ts, ['--token', bootstrapToken, 'create', '-f', '-'], { input: bad });
    assert.match(r.stderr, /The CertificateSigningRequest "bad-pem" is invalid: spec.request: Invalid value: "[A-Za-z0-9+/=]+": PEM block type must be CERTIFICATE REQUEST/);
    const raw = await ts.request('POST', '/apis/certificates.k8s.io/v1/certificatesigningrequests', { body: JSON.stringify({ apiVersion: 'certificates.k8s.io/v1', kind: 'CertificateSigningRequest', metadata: { name: 'bad-pem' }, spec: { request: 'bm9wZQ==', signerName: 'no-slash', usages: ['client auth', 'bogus'], expirationSeconds: 60 } }), contentType: 'application/json', accept: 'application/json' });
    assert.equal(raw.status, 422);
    const causes = (JSON.parse(raw.body).details.causes as Json[]).map((c) => c.field);
    assert.deepEqual(causes, ['spec.request', 'spec.usages[1]', 'spec.signerName', 'spec.expirationSeconds']);

    const masters = await createCertificateRequest('O=system:masters, CN=mallory');
    const refused = await kubectlFails(ts, ['create', '-f', '-'], { input: csrManifest('masters', masters.csrPem, { signerName: 'kubernetes.io/kube-apiserver-client' }) });
    assert.match(refused.stderr, /certificatesigningrequests.certificates.k8s.io "masters" is forbidden: use of kubernetes.io\/kube-apiserver-client signer with system:masters group is not allowed/);
  });
});
