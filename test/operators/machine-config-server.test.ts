/**
 * The machine-config server (issue 15, item 4) started in-process, as its pod starts it
 * (`start` with flags, HOST_IP from the downward API, the mounted Secrets as files), against a
 * real API server with RBAC enforced, running as its own ServiceAccount with only the payload's
 * role: a booting machine without the bootstrap token gets 401, with a wrong one 403; with it,
 * `Accept` 3.4.0 gets the worker pool's rendered config (the seed's MachineConfig over the
 * templates) as 3.4.0, no `Accept` gets 2.2.0, a version it cannot produce 400, an unknown pool
 * 404; the kubeconfig it serves is the node-bootstrapper's and may do nothing but ask for a
 * certificate; the token is re-read, so a rotated Secret takes effect at once. And the
 * listener serves a re-issued certificate to new connections without a restart.
 */
import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { X509Certificate } from 'node:crypto';
import { request } from 'node:https';
import { connect as tlsConnect } from 'node:tls';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import pino from 'pino';
import { parse as parseYaml } from 'yaml';
import { configCRDs, Infrastructure } from '../../src/api/config/index.ts';
import { decodeDataUrl, parseObject, type IgnitionConfig, type IgnitionV2Config } from '../../src/api/ignition/index.ts';
import { machineConfigurationCRDs, type MachineConfig, type MachineConfigPool } from '../../src/api/machineconfiguration/index.ts';
import type { Status } from '../../src/api/status.ts';
import { ensureServingPki } from '../../src/apiserver/auth/pki.ts';
import { renderBootstrap } from '../../src/operators/machine-config/render/render.ts';
import { renderTemplates } from '../../src/operators/machine-config/render/templates.ts';
import { controllerConfig, controllerVersion, pool, seedMachineConfig } from '../../src/operators/machine-config/render/testing.ts';
import { start } from '../../src/operators/machine-config/server/component.ts';
import { listenConfigServer } from '../../src/operators/machine-config/server/listen.ts';
import { ApiClient } from '../../src/runtime/client.ts';
import { ClientConfig } from '../../src/runtime/kubeconfig.ts';
import { objectPath, refOf, resources } from '../../src/runtime/resources.ts';
import { createEstablishedCRDs } from '../support/rbac.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { serviceAccountKubeconfig } from '../support/service-account.ts';
import { until } from '../support/until.ts';

const NS = 'openshift-machine-config-operator';
const SEED_FILE = '/usr/local/bin/kubeinit_kubevirt_extra_config_script';
const RBAC_MANIFESTS = ['0000_80_machine-config_00_namespace.yaml', '0000_80_machine-config_02_server-rbac.yaml'].map((f) => new URL(`../../src/release/payload/manifests/${f}`, import.meta.url).pathname);
const ignition = (version: string) => `application/vnd.coreos.ignition+json;version=${version}, */*;q=0.1`;

interface Answer {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly body: string;
}

describe('machine-config server against a real API server', { timeout: 180_000 }, () => {
  let ts: TestServer;
  let admin: ApiClient;
  let dir: string;
  const stop = new AbortController();
  let running: Promise<void> | undefined;
  // A loopback address of its own, so the default port 22623 is free whatever else runs here.
  const bind = `127.0.${200 + Math.floor(Math.random() * 50)}.${2 + Math.floor(Math.random() * 250)}`;
  let bootstrapToken = 'first-bootstrap-token';
  let renderedName = '';

  const call = (path: string, opts: { token?: string | null; accept?: string; method?: string } = {}): Promise<Answer> =>
    new Promise((resolve, reject) => {
      const headers: Record<string, string> = {};
      const token = opts.token === undefined ? bootstrapToken : opts.token;
      if (token !== null) headers.authorization = `Bearer ${token}`;
      if (opts.accept !== undefined) headers.accept = opts.accept;
      const req = request(`https://${bind}:22623${path}`, { method: opts.method ?? 'GET', headers, ca: ts.server.caCertPem, agent: false }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', reject);
      });
      req.on('error', reject);
      req.end();
    });

  const status = (a: Answer): Status => {
    assert.equal(a.headers['content-type'], 'application/json');
    const s = JSON.parse(a.body) as Status;
    assert.equal(s.kind, 'Status');
    assert.equal(s.code, a.status);
    return s;
  };

  const file = (files: readonly { path: string; contents?: { source?: string }; mode?: number }[] | undefined, path: string) => {
    const found = (files ?? []).filter((f) => f.path === path);
    assert.equal(found.length, 1, path);
    const decoded = decodeDataUrl(found[0]!.contents?.source ?? '');
    assert.ok(decoded.ok, path);
    return { text: decoded.data.toString('utf8'), mode: found[0]!.mode };
  };

  before(async () => {
    ts = await startTestServer();
    dir = mkdtempSync(join(tmpdir(), 'shipyard-mcs-'));
    const adminConfig = new ClientConfig();
    adminConfig.loadFromFile(ts.server.kubeconfigPath);
    admin = new ApiClient(adminConfig);

    const crds = [...machineConfigurationCRDs(), ...configCRDs().filter((c) => c.spec.names.kind === 'Infrastructure')];
    await createEstablishedCRDs(admin, crds);
    const applied = await ts.kubectl(['apply', ...RBAC_MANIFESTS.flatMap((f) => ['-f', f])]);
    assert.equal(applied.code, 0, applied.stderr);

    // The Infrastructure singleton, as the installer writes it: the served kubeconfig's URL comes from it.
    const infraRef = refOf(Infrastructure);
    await until('Infrastructure created', async () => admin.create(infraRef, { apiVersion: Infrastructure.apiVersion, kind: 'Infrastructure', metadata: { name: 'cluster' }, spec: {} } as never), { retryErrors: true });
    const infra = await admin.get<Infrastructure>(infraRef, undefined, 'cluster');
    await admin.request('PUT', objectPath(infraRef, undefined, 'cluster', 'status'), { body: { ...infra, status: { apiServerURL: ts.server.url, apiServerInternalURI: ts.server.url } } });

    // The worker pool at its rendered config: the templates and the seed's MachineConfig, as the controller renders them.
    const cc = controllerConfig();
    const rendered = renderBootstrap([pool('worker')], [...renderTemplates({ controllerConfig: cc, controllerVersion }), seedMachineConfig()], cc, { controllerVersion });
    const mc = rendered.renderedConfigs[0]!;
    renderedName = mc.metadata!.name!;
    await admin.create(resources.machineConfigs, mc);
    for (const p of [...rendered.pools, { ...pool('empty') }]) {
      const created = await admin.create<MachineConfigPool>(resources.machineConfigPools, { ...p, status: undefined } as MachineConfigPool);
      if (p.status) await admin.update(resources.machineConfigPools, { ...created, status: p.status }, { subresource: 'status' });
    }

    // The server's own credential: a token of its ServiceAccount, as its pod's projected volume holds.
    const kubeconfig = await serviceAccountKubeconfig(ts, admin, NS, 'machine-config-server', join(dir, 'kubeconfig'));
    // The Secret machine-config-server-tls: a serving certificate for the node's address, signed by the cluster CA.
    const pki = join(dir, 'pki');
    mkdirSync(pki, { mode: 0o700 });
    copyFileSync(join(ts.dataDir, 'pki', 'ca.crt'), join(pki, 'ca.crt'));
    copyFileSync(join(ts.dataDir, 'pki', 'ca.key'), join(pki, 'ca.key'));
    await ensureServingPki(pki, { ipAddresses: [bind] });
    writeFileSync(join(dir, 'token'), `${bootstrapToken}\n`);

    running = start({
      signal: stop.signal,
      args: ['start', '--kubeconfig', kubeconfig, '--tls-cert-file', join(pki, 'apiserver.crt'), '--tls-key-file', join(pki, 'apiserver.key'), '--bootstrap-token-file', join(dir, 'token')],
      env: { HOST_IP: bind },
    });
    running.catch(() => {});
    await until('the server answers /healthz', async () => (await call('/healthz', { token: null })).status === 200, { retryErrors: true, timeoutMs: 30_000 });
  });

  after(async () => {
    stop.abort();
    await running?.catch(() => {});
    admin?.close();
    await ts?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('/healthz needs no token', async () => {
    const a = await call('/healthz', { token: null });
    assert.deepEqual([a.status, a.body], [200, 'ok']);
  });

  it('without a bootstrap token: 401; with a wrong one: 403; nothing about pools either way', async () => {
    for (const path of ['/config/worker', '/config/no-such-pool', '/elsewhere']) {
      const none = await call(path, { token: null });
      assert.equal(none.status, 401, path);
      assert.equal(status(none).reason, 'Unauthorized');
      assert.equal(none.headers['www-authenticate'], 'Bearer realm="machine-config-server"');
      const wrong = await call(path, { token: 'not-the-token' });
      assert.equal(wrong.status, 403, path);
      assert.equal(status(wrong).reason, 'Forbidden');
      assert.doesNotMatch(none.body + wrong.body, /worker|rendered/);
    }
  });

  it('Accept 3.4.0 gets the pool\'s rendered config as 3.4.0, with the bootstrap kubeconfig and the first node annotations', async () => {
    const a = await call('/config/worker', { accept: ignition('3.4.0') });
    assert.equal(a.status, 200, a.body);
    assert.equal(a.headers['content-type'], 'application/json');
    assert.equal(a.headers['cache-control'], 'no-store');
    const body = JSON.parse(a.body) as IgnitionConfig;
    assert.equal(body.ignition.version, '3.4.0');
    const parsed = parseObject(body);
    assert.ok(parsed.ok, parsed.ok ? '' : JSON.stringify(parsed.errors));
    const seed = file(body.storage?.files, SEED_FILE);
    assert.equal(seed.mode, 0o755);
    assert.match(seed.text, /^#!\/usr\/bin\/bash\n/);
    assert.ok(body.storage?.files?.some((f) => f.path === '/etc/kubernetes/kubelet.conf'), 'the template files are there');
    assert.deepEqual(JSON.parse(file(body.storage?.files, '/etc/machine-config-daemon/node-annotations.json').text), {
      'machineconfiguration.openshift.io/currentConfig': renderedName,
      'machineconfiguration.openshift.io/desiredConfig': renderedName,
      'machineconfiguration.openshift.io/state': 'Done',
    });
    assert.equal(file(body.storage?.files, '/etc/kubernetes/kubeconfig').mode, 0o600);
  });

  it('no Accept gets 2.2.0, as the MCO serves curl', async () => {
    const a = await call('/config/worker');
    assert.equal(a.status, 200, a.body);
    const body = JSON.parse(a.body) as IgnitionV2Config;
    assert.equal(body.ignition.version, '2.2.0');
    const seed = body.storage?.files?.find((f) => f.path === SEED_FILE);
    assert.deepEqual([seed?.filesystem, seed?.mode], ['root', 0o755]);
    const parsed = parseObject(body);
    assert.ok(parsed.ok, parsed.ok ? '' : JSON.stringify(parsed.errors));
    // HEAD says as much without the body.
    const head = await call('/config/worker', { method: 'HEAD' });
    assert.deepEqual([head.status, head.body], [200, '']);
    assert.ok(Number(head.headers['content-length']) > 1000);
  });

  it('a version it cannot produce is a 400 naming the Accept header; an unknown pool a 404 naming the pool', async () => {
    const unknown = await call('/config/worker', { accept: ignition('4.0.0') });
    assert.equal(unknown.status, 400);
    const s = status(unknown);
    assert.equal(s.reason, 'BadRequest');
    assert.match(s.message ?? '', /^unsupported Ignition version "4\.0\.0" in Accept header/);
    assert.deepEqual([s.details?.name, s.details?.kind, s.details?.causes?.[0]?.field], ['worker', 'machineconfigpools', 'Accept']);

    const missing = await call('/config/no-such-pool', { accept: ignition('3.4.0') });
    assert.equal(missing.status, 404);
    const m = status(missing);
    assert.deepEqual([m.reason, m.message, m.details?.name], ['NotFound', 'machineconfigpools.machineconfiguration.openshift.io "no-such-pool" not found', 'no-such-pool']);
  });

  it('a pool with nothing rendered yet is a 503 a booting Ignition retries; other paths 404, other methods 405', async () => {
    const empty = await call('/config/empty', { accept: ignition('3.4.0') });
    assert.equal(empty.status, 503);
    assert.equal(status(empty).message, 'MachineConfigPool "empty" has no rendered configuration yet');
    assert.equal((await call('/config/worker/extra')).status, 404);
    const bad = status(await call('/config/Not_A_Pool'));
    assert.deepEqual([bad.code, bad.reason, bad.details?.causes?.[0]?.field], [400, 'BadRequest', 'metadata.name']);
    assert.match(bad.message ?? '', /^invalid pool name "Not_A_Pool": /);
    const post = await call('/config/worker', { method: 'POST' });
    assert.equal(post.status, 405);
    assert.equal(post.headers.allow, 'GET, HEAD');
  });

  it('the served kubeconfig is the node-bootstrapper\'s: it may ask for a certificate and nothing else', async () => {
    const body = JSON.parse((await call('/config/worker', { accept: ignition('3.4.0') })).body) as IgnitionConfig;
    const text = file(body.storage?.files, '/etc/kubernetes/kubeconfig').text;
    const kc = parseYaml(text);
    assert.equal(kc.clusters[0].cluster.server, ts.server.url, 'the URL is Infrastructure\'s apiServerInternalURI');
    assert.doesNotMatch(text, new RegExp(ts.server.adminToken), 'never the admin\'s credential');
    const path = join(dir, 'node-kubeconfig');
    writeFileSync(path, text, { mode: 0o600 });
    const asNode = (args: string[], input?: string) => ts.kubectl(['--kubeconfig', path, ...args], { env: { KUBECONFIG: path }, input });
    const whoami = await asNode(['auth', 'whoami', '-o', 'jsonpath={.status.userInfo.username}']);
    assert.equal(whoami.stdout, `system:serviceaccount:${NS}:node-bootstrapper`, whoami.stderr);
    // Shipyard serves no certificates.k8s.io yet, so kubectl's discovery cannot name it: ask the API server directly.
    const review = { apiVersion: 'authorization.k8s.io/v1', kind: 'SelfSubjectAccessReview', spec: { resourceAttributes: { group: 'certificates.k8s.io', resource: 'certificatesigningrequests', verb: 'create' } } };
    const csr = await asNode(['create', '-f', '-', '-o', 'json'], JSON.stringify(review));
    assert.equal(csr.code, 0, csr.stderr);
    assert.equal(JSON.parse(csr.stdout).status.allowed, true, csr.stdout);
    for (const [verb, resource] of [['get', 'secrets'], ['list', 'nodes'], ['get', 'machineconfigs.machineconfiguration.openshift.io'], ['create', 'pods']] as const) {
      const r = await asNode(['auth', 'can-i', verb, resource, '--all-namespaces']);
      assert.equal(r.stdout.trim(), 'no', `${verb} ${resource}`);
    }
    const denied = await asNode(['get', 'machineconfigpools.machineconfiguration.openshift.io']);
    assert.notEqual(denied.code, 0);
    assert.match(denied.stderr, /forbidden/);
  });

  it('a rotated bootstrap token takes effect at once: the old one is refused', async () => {
    const old = bootstrapToken;
    bootstrapToken = 'second-bootstrap-token';
    writeFileSync(join(dir, 'token.tmp'), bootstrapToken);
    renameSync(join(dir, 'token.tmp'), join(dir, 'token'));
    assert.equal((await call('/config/worker', { token: old })).status, 403);
    assert.equal((await call('/config/worker')).status, 200);
    assert.equal(readFileSync(join(dir, 'token'), 'utf8'), bootstrapToken);
  });
});

describe('machine-config server listener', { timeout: 60_000 }, () => {
  it('serves a re-issued certificate to new connections without a restart', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'shipyard-mcs-tls-'));
    const bind = '127.0.0.1';
    const first = await ensureServingPki(join(dir, 'first'), { ipAddresses: [bind] });
    const second = await ensureServingPki(join(dir, 'second'), { ipAddresses: [bind] });
    const certFile = join(dir, 'tls.crt');
    const keyFile = join(dir, 'tls.key');
    writeFileSync(certFile, first.certPem);
    writeFileSync(keyFile, first.keyPem);
    const logger = pino({ level: 'silent' });
    const listener = await listenConfigServer({ bindAddress: bind, port: 0, certFile, keyFile, logger, reloadIntervalMs: 50, handler: (_req, res) => res.end('hello') });
    const presented = (ca: string) =>
      new Promise<string>((resolve, reject) => {
        const socket = tlsConnect({ host: bind, port: listener.port, ca }, () => {
          const fingerprint = socket.getPeerCertificate().fingerprint256;
          socket.once('close', () => resolve(fingerprint));
          socket.destroy();
        });
        socket.on('error', reject);
      });
    try {
      const before = await presented(first.caCertPem);
      assert.equal(before, new X509Certificate(first.certPem).fingerprint256);
      writeFileSync(certFile, second.certPem);
      writeFileSync(keyFile, second.keyPem);
      await until('the new certificate is presented', async () => (await presented(second.caCertPem).catch(() => '')) === new X509Certificate(second.certPem).fingerprint256, 20_000);
    } finally {
      await listener.close();
      rmSync(dir, { recursive: true, force: true });

    }
  });
});
