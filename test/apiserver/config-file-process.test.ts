/**
 * `shipyard component kube-apiserver --config=<container path>` as the operator's static pod
 * runs it: a process whose rootfs maps container paths (SHIPYARD_ROOTFS), configured by a
 * KubeAPIServerConfig file plus the per-node flags only. It serves with the configured TLS
 * profile, Service and NodePort ranges, log level, CORS and restricted endpoints; a bad config
 * exits non-zero with the file and field on stderr.
 */
import assert from 'node:assert/strict';
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:https';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { connect } from 'node:tls';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { until } from '../support/until.ts';

const root = resolve(fileURLToPath(new URL('../..', import.meta.url)));
const CONFIG = '/etc/kubernetes/static-pod-resources/config.yaml';

async function freePort(): Promise<number> {
  return new Promise((res) => {
    const s = createServer();
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => res(port));
    });
  });
}

interface Proc {
  readonly child: ChildProcess;
  readonly exited: Promise<number | null>;
  stderr(): string;
}

function startComponent(rootfs: string, args: readonly string[]): Proc {
  const env: NodeJS.ProcessEnv = { ...process.env, SHIPYARD_ROOTFS: rootfs };
  delete env.SHIPYARD_LOG_LEVEL;
  const child = spawn(process.execPath, [join(root, 'bin/shipyard.js'), 'component', 'kube-apiserver', ...args], { env, stdio: ['ignore', 'ignore', 'pipe'] });
  let err = '';
  child.stderr!.on('data', (c: Buffer) => (err += c.toString()));
  const exited = new Promise<number | null>((res) => child.once('close', (code) => res(code)));
  return { child, exited, stderr: () => err };
}

function writeConfig(rootfs: string, yaml: string): void {
  mkdirSync(join(rootfs, '/etc/kubernetes/static-pod-resources'), { recursive: true });
  writeFileSync(join(rootfs, CONFIG), yaml);
}

/** The TLS version negotiated, or the handshake's error. */
function handshake(port: number, opts: { maxVersion?: 'TLSv1.1' | 'TLSv1.2'; ciphers?: string }): Promise<string> {
  return new Promise((res) => {
    const socket = connect({ host: '127.0.0.1', port, rejectUnauthorized: false, minVersion: 'TLSv1', ...opts }, () => {
      res(socket.getProtocol() ?? 'none');
      socket.destroy();
    });
    socket.once('error', (e) => res(`error: ${e.message}`));
  });
}

function kubectl(dir: string, args: readonly string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((res) => {
    execFile('kubectl', ['--kubeconfig', join(dir, 'kubeconfig'), '--cache-dir', join(dir, 'kubectl-cache'), ...args], { env: { ...process.env, HOME: dir }, timeout: 60_000 }, (err, stdout, stderr) =>
      res({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

describe('kube-apiserver component from a rendered config.yaml', () => {
  it('serves as the config says: TLS profile, Service and NodePort ranges, log level, CORS, restricted endpoints, audit log', async (t) => {
    const rootfs = mkdtempSync(join(tmpdir(), 'shipyard-kas-config-'));
    const port = await freePort();
    mkdirSync(join(rootfs, 'etc/kubernetes/audit'), { recursive: true });
    writeFileSync(join(rootfs, 'etc/kubernetes/audit/policy.yaml'), 'apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: Metadata\n  resources: [{group: "", resources: [services, endpoints]}]\n');
    writeConfig(
      rootfs,
      [
        'apiVersion: kubecontrolplane.config.openshift.io/v1',
        'kind: KubeAPIServerConfig',
        // The store as the datacenter names it (a host path, not under the pod's rootfs).
        `storageConfig: {urls: ["file://${join(rootfs, 'var/lib/shipyard/store')}"]}`,
        // The node's flags win: this bind address is what a config shared by every master would say.
        'servingInfo:',
        '  bindAddress: "127.9.9.9:6443"',
        '  minTLSVersion: VersionTLS12',
        '  cipherSuites: [TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384, TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384]',
        'servicesSubnet: 127.71.0.0/16',
        'servicesNodePortRange: 31000-31009',
        'corsAllowedOrigins: ["//127\\\\.0\\\\.0\\\\.1(:|$)"]',
        'apiServerArguments: {v: ["4"], shutdown-delay-duration: ["0s"]}',
        'admissionPluginConfig:',
        '  openshift.io/RestrictedEndpointsAdmission:',
        '    configuration: {restrictedCIDRs: ["127.128.0.0/9"]}',
        // Container paths: the log lands under the pod's rootfs.
        'auditConfig: {enabled: true, auditFilePath: /var/log/kube-apiserver/audit.log, policyFile: /etc/kubernetes/audit/policy.yaml, maximumRetainedFiles: 2, logFormat: json}',
        '',
      ].join('\n'),
    );
    const proc = startComponent(rootfs, [`--config=${CONFIG}`, '--bind-address=127.0.0.1', `--secure-port=${port}`]);
    t.after(async () => {
      if (proc.child.exitCode === null && proc.child.signalCode === null) proc.child.kill('SIGKILL');
      await proc.exited;
      rmSync(rootfs, { recursive: true, force: true });
    });
    // The data directory is the store URL's parent.
    const dataDir = join(rootfs, 'var/lib/shipyard');
    await until('the server is ready', async () => existsSync(join(dataDir, 'kubeconfig')) && (await kubectl(dataDir, ['get', '--raw', '/readyz'])).stdout === 'ok', { timeoutMs: 90_000, everyMs: 200 });
    assert.ok(existsSync(join(dataDir, 'store', 'state.db')));

    assert.match(await handshake(port, { maxVersion: 'TLSv1.1' }), /^error: /, 'below minTLSVersion');
    assert.match(await handshake(port, { maxVersion: 'TLSv1.2', ciphers: 'ECDHE-RSA-AES128-GCM-SHA256:ECDHE-ECDSA-AES128-GCM-SHA256' }), /^error: /, 'a suite not in cipherSuites');
    assert.equal(await handshake(port, { maxVersion: 'TLSv1.2', ciphers: 'ECDHE-RSA-AES256-GCM-SHA384:ECDHE-ECDSA-AES256-GCM-SHA384' }), 'TLSv1.2');
    assert.equal(await handshake(port, {}), 'TLSv1.3', 'TLS 1.3 suites are not configurable, as in Go');

    const created = await kubectl(dataDir, ['create', 'service', 'nodeport', 'web', '--tcp=80:8080', '-o', 'jsonpath={.spec.clusterIP} {.spec.ports[0].nodePort}']);
    assert.equal(created.code, 0, created.stderr);
    const [clusterIP, nodePort] = created.stdout.split(' ');
    assert.match(clusterIP!, /^127\.71\./, 'servicesSubnet');
    assert.ok(Number(nodePort) >= 31000 && Number(nodePort) <= 31009, `servicesNodePortRange: ${nodePort}`);
    const outOfRange = await kubectl(dataDir, ['create', 'service', 'nodeport', 'far', '--tcp=80:8080', '--node-port=30000']);
    assert.notEqual(outOfRange.code, 0);
    assert.match(outOfRange.stderr, /spec\.ports\[0\]\.nodePort: Invalid value: 30000: provided port is not in the valid range\. The range of valid ports is 31000-31009/);

    // --v=4 is debug: the access log is written.
    await until('a debug access-log line on stderr', () => proc.stderr().split('\n').some((l) => l.includes('"level":20') && l.includes('"msg":"request"')), { timeoutMs: 30_000 });

    const kc = readFileSync(join(dataDir, 'kubeconfig'), 'utf8');
    const ca = Buffer.from(/certificate-authority-data: (\S+)/.exec(kc)![1]!, 'base64').toString();
    const preflight = await new Promise<{ status: number; origin: unknown }>((res, rej) => {
      const req = request(`https://127.0.0.1:${port}/api/v1/namespaces`, { method: 'OPTIONS', ca, headers: { origin: 'http://127.0.0.1:8080', 'access-control-request-method': 'GET' } }, (r) => {
        r.resume();
        res({ status: r.statusCode ?? 0, origin: r.headers['access-control-allow-origin'] });
      });
      req.on('error', rej);
      req.end();
    });
    assert.deepEqual(preflight, { status: 204, origin: 'http://127.0.0.1:8080' }, 'corsAllowedOrigins');

    // Alice may write Endpoints, but not endpoints/restricted: an address in the pod network is refused.
    for (const args of [
      ['create', 'role', 'endpoints-writer', '--verb=create,update,get', '--resource=endpoints'],
      ['create', 'rolebinding', 'alice-endpoints', '--role=endpoints-writer', '--user=alice'],
    ]) {
      const r = await kubectl(dataDir, args);
      assert.equal(r.code, 0, r.stderr);
    }
    const endpoints = (name: string, ip: string) => JSON.stringify({ apiVersion: 'v1', kind: 'Endpoints', metadata: { name }, subsets: [{ addresses: [{ ip }], ports: [{ port: 80 }] }] });
    const writeAs = async (user: string, name: string, ip: string) => {
      const file = join(rootfs, `${name}.json`);
      writeFileSync(file, endpoints(name, ip));
      return kubectl(dataDir, ['create', '-f', file, `--as=${user}`]);
    };
    const refused = await writeAs('alice', 'pods', '127.128.0.5');
    assert.notEqual(refused.code, 0);
    assert.match(refused.stderr, /endpoints "pods" is forbidden: endpoint address 127\.128\.0\.5 is not allowed/);
    assert.equal((await writeAs('alice', 'outside', '127.1.0.9')).code, 0, 'outside the restricted CIDRs');
    const admin = await kubectl(dataDir, ['create', '-f', join(rootfs, 'pods.json')]);
    assert.equal(admin.code, 0, `system:masters may: ${admin.stderr}`);

    // SIGTERM, as the kubelet stops it: a clean stop within the (0s) shutdown delay.
    proc.child.kill('SIGTERM');
    assert.equal(await proc.exited, 0);

    // The audit log, flushed at the stop: who did what, impersonation included, and no token.
    const audit = readFileSync(join(rootfs, 'var/log/kube-apiserver/audit.log'), 'utf8');
    const events = audit.split('\n').filter(Boolean).map((l) => JSON.parse(l) as { verb: string; user: { username: string }; impersonatedUser?: { username: string }; objectRef: { resource: string; name?: string }; responseStatus: { code: number } });
    assert.ok(!audit.includes(/token: (\S+)/.exec(kc)![1]!), 'no bearer token in the audit log');
    assert.ok(events.length > 0 && events.every((e) => ['services', 'endpoints'].includes(e.objectRef.resource)), 'only what the policy selects');
    assert.ok(events.some((e) => e.verb === 'create' && e.objectRef.resource === 'services' && e.user.username === 'admin' && e.responseStatus.code === 201), audit);
    assert.ok(events.some((e) => e.verb === 'create' && e.objectRef.resource === 'endpoints' && e.user.username === 'admin' && e.impersonatedUser?.username === 'alice' && e.responseStatus.code === 403), audit);
  });

  it('minTLSVersion VersionTLS13 refuses a TLS 1.2 client', async (t) => {
    const rootfs = mkdtempSync(join(tmpdir(), 'shipyard-kas-config-'));
    const port = await freePort();
    writeConfig(rootfs, `apiVersion: kubecontrolplane.config.openshift.io/v1\nkind: KubeAPIServerConfig\nstorageConfig: {urls: ["file://${join(rootfs, 'var/lib/shipyard/store')}"]}\nservingInfo: {minTLSVersion: VersionTLS13}\n`);
    const proc = startComponent(rootfs, [`--config=${CONFIG}`, '--bind-address=127.0.0.1', `--secure-port=${port}`, '--v=0']);
    t.after(async () => {
      if (proc.child.exitCode === null && proc.child.signalCode === null) proc.child.kill('SIGKILL');
      await proc.exited;
      rmSync(rootfs, { recursive: true, force: true });
    });
    await until('the server listens', async () => ((await handshake(port, {})) === 'TLSv1.3' ? true : undefined), { timeoutMs: 90_000, everyMs: 200 });
    assert.match(await handshake(port, { maxVersion: 'TLSv1.2' }), /^error: .*(protocol|version)/i);
    // --v=0 is warn: the info line "API server listening" is not written.
    assert.doesNotMatch(proc.stderr(), /API server listening/);
  });

  it('a bad config exits non-zero, naming the file and the field on stderr', async (t) => {
    const rootfs = mkdtempSync(join(tmpdir(), 'shipyard-kas-config-'));
    t.after(() => rmSync(rootfs, { recursive: true, force: true }));
    writeConfig(rootfs, `apiVersion: kubecontrolplane.config.openshift.io/v1\nkind: KubeAPIServerConfig\nstorageConfig: {urls: ["file://${join(rootfs, 'var/lib/shipyard/store')}"]}\nservingInfo: {minTLSVersion: TLS12}\n`);
    const proc = startComponent(rootfs, [`--config=${CONFIG}`, '--bind-address=127.0.0.1', `--secure-port=${await freePort()}`]);
    assert.equal(await proc.exited, 1);
    assert.match(proc.stderr(), new RegExp(`--config=${CONFIG.replace(/\./g, '\\.')}: servingInfo\\.minTLSVersion: Unsupported value: "TLS12": supported values: "VersionTLS10", "VersionTLS11", "VersionTLS12", "VersionTLS13"`));
    assert.doesNotMatch(proc.stderr(), /\n\s+at /, 'no stack trace');
    assert.equal(existsSync(join(rootfs, 'var/lib/shipyard/store')), false, 'nothing started');
  });
});
