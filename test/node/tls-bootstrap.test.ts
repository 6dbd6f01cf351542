/**
 * A kubelet that holds only the bootstrap kubeconfig the machine-config server serves (a
 * node-bootstrapper ServiceAccount token) gets its own credential by a CertificateSigningRequest
 * against a real API server, with the controller-manager's csrsigning controller running
 * in-process on the cluster CA: the request is the kubelet's (signer, usages, subject, who
 * asked), an approval with kubectl lets the signer issue, the kubeconfig is written (0600), and
 * the Node then registers as `system:node:<name>` with the labels of the kubelet unit in its
 * root. A denied request fails with kube's wording; a node stopping abandons the wait.
 */
import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import pino from 'pino';
import { parse } from 'yaml';
import { parseCertificateRequest } from '../../src/api/x509.ts';
import { createCsrSigningController } from '../../src/cluster/csrsigning/controller.ts';
import { bootstrapKubeconfigPath, ensureKubeletCredential, kubeletKubeconfigPath, TlsBootstrapError } from '../../src/node/kubelet/tls-bootstrap.ts';
import { kubeletUnit } from '../../src/operators/machine-config/render/kubelet-unit.ts';
import { nodeBootstrapKubeconfig } from '../../src/operators/machine-config/server/node-kubeconfig.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { startNode, until, type NodeUnderTest } from './support.ts';

const namespace = 'openshift-machine-config-operator';
const bootstrapper = `system:serviceaccount:${namespace}:node-bootstrapper`;

const setup = `
apiVersion: v1
kind: Namespace
metadata: {name: ${namespace}}
---
apiVersion: v1
kind: ServiceAccount
metadata: {name: node-bootstrapper, namespace: ${namespace}}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: system-bootstrap-node-bootstrapper}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: system:node-bootstrapper}
subjects:
- {kind: ServiceAccount, name: node-bootstrapper, namespace: ${namespace}}
`;

interface Csr {
  metadata: { name: string; uid: string };
  spec: { request: string; signerName: string; usages: string[]; username: string };
  status?: { certificate?: string };
}

describe('kubelet TLS bootstrap against a real API server and the csrsigning controller', () => {
  let ts: TestServer;
  let dataDir: string;
  let bootstrapKubeconfig: string;
  const logger = pino({ level: process.env.SHIPYARD_TEST_LOG ?? 'silent' });
  const scratch: string[] = [];
  const nodes: NodeUnderTest[] = [];

  before(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'shipyard-tls-bootstrap-'));
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
    const applied = await ts.kubectl(['apply', '-f', '-'], { input: setup });
    assert.equal(applied.code, 0, applied.stderr);
    const token = await ts.kubectl(['create', 'token', 'node-bootstrapper', '-n', namespace]);
    assert.equal(token.code, 0, token.stderr);
    // What the machine-config server puts at /etc/kubernetes/kubeconfig of a joining machine.
    bootstrapKubeconfig = nodeBootstrapKubeconfig({ server: ts.server.url, caPem: ts.server.caCertPem, token: token.stdout.trim() });
  });

  after(async () => {
    for (const n of nodes) await n.stop();
    await ts?.stop();
    for (const d of [dataDir, ...scratch]) rmSync(d, { recursive: true, force: true });
  });

  const writeIn = (root: string, path: string, text: string): void => {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  };

  /** The first request of `username`'s that `nodeName`'s key asked with, once it is there. */
  const requestOf = (nodeName: string) =>
    until(`a certificate signing request for ${nodeName}`, async () => {
      const list = JSON.parse((await ts.kubectl(['get', 'csr', '-o', 'json'])).stdout || '{"items":[]}') as { items: Csr[] };
      return list.items.find((c) => parseCertificateRequest(Buffer.from(c.spec.request, 'base64')).commonName === `system:node:${nodeName}`);
    });

  it('asks for system:node:<name>, is issued once approved, and the Node registers as that node with its unit\'s labels', async () => {
    const nodeName = 'worker-boot-0';
    let asked: Promise<{ kubeconfigPath: string; requestName?: string }> | undefined;
    const n = await startNode({
      server: ts,
      nodeName,
      nodeIP: '127.1.42.1',
      roles: [],
      prepare: (dir) => {
        writeIn(join(dir, 'root'), bootstrapKubeconfigPath, bootstrapKubeconfig);
        writeIn(join(dir, 'root'), '/etc/systemd/system/kubelet.service', kubeletUnit('worker').contents!);
      },
      credentials: async (dir) => {
        asked = ensureKubeletCredential({ nodeName, nodeRoot: join(dir, 'root'), signal: new AbortController().signal, logger });
        const csr = await requestOf(nodeName);
        assert.equal(csr.metadata.name.startsWith('csr-'), true, csr.metadata.name);
        assert.equal(csr.spec.signerName, 'kubernetes.io/kube-apiserver-client-kubelet');
        assert.deepEqual(csr.spec.usages, ['digital signature', 'client auth']);
        assert.equal(csr.spec.username, bootstrapper, 'asked with the bootstrap credential');
        const request = parseCertificateRequest(Buffer.from(csr.spec.request, 'base64'));
        assert.deepEqual([request.commonName, request.organizations, request.publicKeyAlgorithm], [`system:node:${nodeName}`, ['system:nodes'], 'ECDSA']);
        assert.equal(existsSync(join(dir, 'root', kubeletKubeconfigPath)), false, 'nothing is written before the certificate is issued');
        const approve = await ts.kubectl(['certificate', 'approve', csr.metadata.name]);
        assert.equal(approve.code, 0, approve.stderr);
        const result = await asked;
        assert.equal(result.requestName, csr.metadata.name);
        return result.kubeconfigPath;
      },
    });
    nodes.push(n);

    const kubeconfigPath = join(n.nodeDir, 'root', kubeletKubeconfigPath);
    assert.equal(statSync(kubeconfigPath).mode & 0o777, 0o600);
    const doc = parse(readFileSync(kubeconfigPath, 'utf8')) as { clusters: { cluster: Record<string, string> }[]; users: { user: Record<string, string> }[] };
    assert.equal(doc.clusters[0]!.cluster.server, ts.server.url, 'the bootstrap kubeconfig\'s server');
    const cert = new X509Certificate(Buffer.from(doc.users[0]!.user['client-certificate-data']!, 'base64'));
    assert.match(cert.subject, new RegExp(`CN=system:node:${nodeName}`));
    assert.ok(cert.checkIssued(new X509Certificate(ts.server.caCertPem)), 'signed by the cluster CA');

    const whoami = await ts.kubectl(['auth', 'whoami', '--kubeconfig', kubeconfigPath, '-o', 'json']);
    assert.equal(whoami.code, 0, whoami.stderr);
    const user = (JSON.parse(whoami.stdout) as { status: { userInfo: { username: string; groups: string[] } } }).status.userInfo;
    assert.equal(user.username, `system:node:${nodeName}`);
    assert.ok(user.groups.includes('system:nodes'), user.groups.join(','));

    const node = await until('the Node to register', () => n.node().catch(() => undefined));
    assert.equal(node.metadata?.labels?.['node-role.kubernetes.io/worker'], '');
    assert.equal(node.metadata?.labels?.['node.openshift.io/os_id'], 'rhcos');
    // The Node authorizer and NodeRestriction held the kubelet to its own Node: it could create
    // this one only as system:node:<name>, and may create no other.
    const other = await ts.kubectl(['--kubeconfig', kubeconfigPath, 'create', '-f', '-'], { input: JSON.stringify({ apiVersion: 'v1', kind: 'Node', metadata: { name: 'someone-else' } }) });
    assert.notEqual(other.code, 0);
    assert.match(other.stderr, /forbidden/i);

    // Restarted, it puts its unit's labels back under its own identity (NodeRestriction lets a node label itself).
    const unlabel = await ts.kubectl(['label', 'node', nodeName, 'node-role.kubernetes.io/worker-']);
    assert.equal(unlabel.code, 0, unlabel.stderr);
    await until('the label removed', async () => (await n.node()).metadata?.labels?.['node-role.kubernetes.io/worker'] === undefined);
    await n.kubelet.stop();
    await n.kubelet.start();
    await until('the label put back by the kubelet', async () => (await n.node()).metadata?.labels?.['node-role.kubernetes.io/worker'] === '');

    // Started again with that credential, it asks for nothing.
    const again = await ensureKubeletCredential({ nodeName, nodeRoot: join(n.nodeDir, 'root'), signal: new AbortController().signal, logger });
    assert.deepEqual(again, { kubeconfigPath });
  });

  it('a denied request is an error saying so, worded as kube\'s; nothing is written', async () => {
    const root = mkdtempSync(join(tmpdir(), 'shipyard-tls-denied-'));
    scratch.push(root);
    writeIn(root, bootstrapKubeconfigPath, bootstrapKubeconfig);
    // Held from the start: the refusal may come while the test is still denying.
    const failed = ensureKubeletCredential({ nodeName: 'worker-denied-0', nodeRoot: root, signal: new AbortController().signal, logger }).then(
      () => undefined,
      (e: unknown) => e,
    );
    const csr = await requestOf('worker-denied-0');
    const deny = await ts.kubectl(['certificate', 'deny', csr.metadata.name]);
    assert.equal(deny.code, 0, deny.stderr);
    const err = await failed;
    assert.ok(err instanceof TlsBootstrapError, String(err));
    assert.equal(err.message, `certificate signing request ${csr.metadata.name} is denied, reason: KubectlDeny, message: This CSR was denied by kubectl certificate deny.`);
    assert.equal(existsSync(join(root, kubeletKubeconfigPath)), false);
  });

  it('stopping the node abandons the wait', async () => {
    const root = mkdtempSync(join(tmpdir(), 'shipyard-tls-abort-'));
    scratch.push(root);
    writeIn(root, bootstrapKubeconfigPath, bootstrapKubeconfig);
    const stop = new AbortController();
    const asked = ensureKubeletCredential({ nodeName: 'worker-stopped-0', nodeRoot: root, signal: stop.signal, logger });
    await requestOf('worker-stopped-0');
    stop.abort(new Error('node stopping'));
    await assert.rejects(asked, /node stopping/);
    assert.equal(existsSync(join(root, kubeletKubeconfigPath)), false);
  });
});
