/**
 * API server benchmark, over HTTPS with 16 concurrent client connections against servers
 * running as their own processes (`shipyard apiserver`): creates, gets, a list of 10,000
 * objects paginated by 500, updates, and watch fan-out to 100 watchers. The creates run against
 * two servers: one with the default store durability (each group-commit batch fsynced before it
 * is answered, as etcd does) and one with `--store-durability=process-crash-only` (no fsync per
 * commit); everything else runs against the first. Where etcd is installed (Debian
 * `etcd-server`), the same create loop runs as raw etcd puts through `etcd3`, and the bench
 * prints the ratio for each durability, last the one it is judged by:
 * `apiserver/etcd create ratio (fsync, etcd's durability): <number>`. When openssl can make a
 * certificate, the same etcd also listens over TLS and one round of puts through it follows each
 * round of the servers: an informational figure (an API server reaches etcd over TLS in a real
 * cluster, and ours serves HTTPS), printed before the judged ratio, which stays plaintext. The create loops run in
 * alternating rounds (fast server, etcd, fsync server, etcd, ...), after one uncounted warm-up
 * round of each, so that a machine whose speed drifts during the run (a shared VM) slows all
 * alike and the ratio stays a property of the software. Each server also runs the create loop
 * authorized: as a ServiceAccount (its token from TokenRequest) whose only grant is a namespaced
 * Role allowing create on configmaps (the admin, in `system:masters`, is never looked up in
 * RBAC), each of its rounds after an etcd round as the admin's are (fast server, etcd, fast
 * server authorized, etcd, fsync server, etcd, ...); the ratio authorized ÷ admin is printed
 * with the other ratios, and should stay at 0.95 or above: authorization must be cheap.
 * `SHIPYARD_BENCH_CPU_PROF=<dir>` runs each server under `node --cpu-prof`, writing
 * its profile to `<dir>/<durability>/` when it exits.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { Agent, request } from 'node:https';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Latencies, loadLoop } from './stats.ts';

const concurrency = 16;
const objects = 10_000;
const watchers = 100;
const watchUpdates = 500;
const createRounds = 5;
const listPasses = 10;
const ns = 'bench';
/** Where the uncounted warm-up round creates its objects, so that `ns` holds exactly `objects`. */
const warmupNs = 'bench-warmup';
/** Where the authorized run creates its objects, as ServiceAccount `saName` of this namespace. */
const saNs = 'bench-sa';
const saName = 'bencher';

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
    s.on('error', reject);
  });
}

function peakRssMiB(pid: number): number {
  try {
    const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) / 1024 : NaN;
  } catch {
    return NaN;
  }
}

async function waitFor<T>(what: string, fn: () => Promise<T | undefined>, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      const v = await fn();
      if (v !== undefined) return v;
    } catch {
      /* not yet */
    }
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

interface Client {
  call(method: string, path: string, body?: unknown, contentType?: string): Promise<{ status: number; body: string }>;
  agent: Agent;
}

function client(url: string, ca: string, token: string): Client {
  const agent = new Agent({ keepAlive: true, maxSockets: concurrency, ca });
  return {
    agent,
    call(method, path, body, contentType = 'application/json') {
      return new Promise((resolve, reject) => {
        const data = body === undefined ? undefined : JSON.stringify(body);
        const req = request(url + path, { method, agent, headers: { authorization: `Bearer ${token}`, 'content-type': contentType, ...(data ? { 'content-length': Buffer.byteLength(data) } : {}) } }, (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString() }));
        });
        req.on('error', reject);
        req.end(data);
      });
    },
  };
}

function expectStatus(r: { status: number; body: string }, ok: number[], what: string): void {
  if (!ok.includes(r.status)) throw new Error(`${what}: HTTP ${r.status}: ${r.body.slice(0, 300)}`);
}

const payload = 'x'.repeat(512);

interface EtcdLoad {
  put(i: number): Promise<void>;
  /** The same put over TLS (as an API server reaches etcd in a real cluster), when openssl could make a certificate. */
  putTls?(i: number): Promise<void>;
  close(): Promise<void>;
}

type Durability = 'fsync' | 'process-crash-only';

interface ServerUnderTest {
  readonly durability: Durability;
  readonly port: number;
  readonly pid: number;
  readonly ca: string;
  readonly token: string;
  readonly client: Client;
  /** The same server as a ServiceAccount allowed to create configmaps in `saNs` and `warmupNs` only. */
  readonly saClient: Client;
  /** The resourceVersion each created ConfigMap was given, by index. */
  readonly resourceVersions: string[];
  /** Store transactions and the writes they acknowledged so far (the server's apiserver_storage_batch_writes). */
  batches(): Promise<{ transactions: number; writes: number }>;
  close(): Promise<void>;
}

/** Starts `shipyard apiserver` with the given store durability and waits until it is ready, with the bench namespace. */
async function startServer(durability: Durability): Promise<ServerUnderTest> {
  const dir = mkdtempSync(join(tmpdir(), 'shipyard-bench-'));
  const port = await freePort();
  const profileDir = process.env.SHIPYARD_BENCH_CPU_PROF;
  const nodeArgs = profileDir ? ['--cpu-prof', `--cpu-prof-dir=${join(profileDir, durability)}`] : [];
  const child: ChildProcess = spawn(process.execPath, [...nodeArgs, 'bin/shipyard.js', 'apiserver', '--data-dir', dir, '--port', String(port), '--store-durability', durability], { stdio: ['ignore', 'ignore', 'inherit'], env: { ...process.env, SHIPYARD_LOG_LEVEL: 'warn' } });
  const close = async (): Promise<void> => {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await exited;
    }
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    const kubeconfig = await waitFor('kubeconfig', async () => {
      const text = readFileSync(join(dir, 'kubeconfig'), 'utf8');
      return text.includes(`:${port}`) ? text : undefined;
    });
    const ca = Buffer.from(/certificate-authority-data: (\S+)/.exec(kubeconfig)![1]!, 'base64').toString();
    const token = /token: (\S+)/.exec(kubeconfig)![1]!;
    const c = client(`https://127.0.0.1:${port}`, ca, token);
    await waitFor('readyz', async () => ((await c.call('GET', '/readyz')).status === 200 ? true : undefined));
    for (const name of [ns, warmupNs, saNs]) expectStatus(await c.call('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name } }), [201], 'namespace');
    const saClient = client(`https://127.0.0.1:${port}`, ca, await serviceAccountToken(c));
    return {
      durability,
      port,
      pid: child.pid!,
      ca,
      token,
      client: c,
      saClient,
      resourceVersions: [],
      async batches() {
        const text = (await c.call('GET', '/metrics')).body;
        const sample = (name: string): number => Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1] ?? NaN);
        return { transactions: sample('apiserver_storage_batch_writes_count'), writes: sample('apiserver_storage_batch_writes_sum') };
      },
      async close() {
        c.agent.destroy();
        saClient.agent.destroy();
        await close();
      },
    };
  } catch (e) {
    await close();
    throw e;
  }
}

/**
 * A token for ServiceAccount `saName`, bound by a RoleBinding in `saNs` and `warmupNs` to a Role
 * allowing only create on configmaps there: an identity RBAC decides for, as a controller's is.
 */
async function serviceAccountToken(admin: Client): Promise<string> {
  expectStatus(await admin.call('POST', `/api/v1/namespaces/${saNs}/serviceaccounts`, { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: saName } }), [201], 'serviceaccount');
  const rbac = '/apis/rbac.authorization.k8s.io/v1/namespaces';
  for (const namespace of [saNs, warmupNs]) {
    const role = { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', metadata: { name: 'configmap-creator' }, rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['create'] }] };
    expectStatus(await admin.call('POST', `${rbac}/${namespace}/roles`, role), [201], 'role');
    const binding = {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'RoleBinding',
      metadata: { name: 'bencher-creates-configmaps' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'configmap-creator' },
      subjects: [{ kind: 'ServiceAccount', name: saName, namespace: saNs }],
    };
    expectStatus(await admin.call('POST', `${rbac}/${namespace}/rolebindings`, binding), [201], 'rolebinding');
  }
  const res = await admin.call('POST', `/api/v1/namespaces/${saNs}/serviceaccounts/${saName}/token`, { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: { expirationSeconds: 3600 } });
  expectStatus(res, [201], 'token request');
  return (JSON.parse(res.body) as { status: { token: string } }).status.token;
}

interface CreateFigures {
  readonly opsPerSec: number;
  readonly latencies: Latencies;
  /** Writes per store transaction during the creates (the admin's and the ServiceAccount's). */
  readonly writesPerTransaction: number;
  /** The same loop as the ServiceAccount. */
  readonly authorized: { readonly opsPerSec: number; readonly latencies: Latencies };
}

/** Creates per second of each API server and, when etcd runs, raw etcd puts per second, in alternating rounds. */
async function benchCreates(servers: readonly ServerUnderTest[], etcd: EtcdLoad | undefined): Promise<{ api: Map<Durability, CreateFigures>; etcdPuts?: number; etcdLatencies: Latencies; etcdTlsPuts?: number; etcdTlsLatencies: Latencies }> {
  const perRound = objects / createRounds;
  const state = servers.map((server) => ({ server, latencies: new Latencies(), seconds: 0, rounds: [] as number[], sa: { latencies: new Latencies(), seconds: 0, rounds: [] as number[], resourceVersions: [] as string[] } }));
  const etcdLatencies = new Latencies();
  let etcdSeconds = 0;
  let etcdKeys = 0;
  const etcdRounds: number[] = [];
  const etcdTlsLatencies = new Latencies();
  let etcdTlsSeconds = 0;
  let etcdTlsKeys = 0;
  const putTls = etcd?.putTls?.bind(etcd);
  const createAs = (c: Client, namespace: string, name: string, i: number) =>
    c.call('POST', `/api/v1/namespaces/${namespace}/configmaps`, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, labels: { app: 'bench' } }, data: { payload, i: String(i) } });
  const create = (server: ServerUnderTest, namespace: string, i: number) => createAs(server.client, namespace, `cm-${i}`, i);
  // One uncounted round for each loop first: the figures are for warm processes (server, client
  // and etcd alike), not for JIT compilation, as the list's warm-up pass below.
  for (const st of state) {
    await loadLoop(perRound, concurrency, async (i) => expectStatus(await create(st.server, warmupNs, i), [201], 'warm-up create'));
    await loadLoop(perRound, concurrency, async (i) => expectStatus(await createAs(st.server.saClient, warmupNs, `sa-cm-${i}`, i), [201], 'warm-up create as a ServiceAccount'));
    if (etcd) await loadLoop(perRound, concurrency, (i) => etcd.put(-1 - i));
  }
  if (putTls) await loadLoop(perRound, concurrency, (i) => putTls(-1 - perRound - i));
  const before = await Promise.all(servers.map((s) => s.batches()));
  for (let round = 0; round < createRounds; round++) {
    const first = round * perRound;
    const etcdRound = async () => {
      if (!etcd) return;
      const offset = etcdKeys;
      const e = await loadLoop(perRound, concurrency, (i) => etcd.put(offset + i), etcdLatencies);
      etcdKeys += perRound;
      etcdSeconds += e.seconds;
      etcdRounds.push(e.opsPerSec);
    };
    for (const st of state) {
      const r = await loadLoop(perRound, concurrency, async (i) => {
        const res = await create(st.server, ns, first + i);
        expectStatus(res, [201], 'create');
        st.server.resourceVersions[first + i] = (JSON.parse(res.body) as { metadata: { resourceVersion: string } }).metadata.resourceVersion;
      }, st.latencies);
      st.seconds += r.seconds;
      st.rounds.push(r.opsPerSec);
      await etcdRound();
      // The authorized round follows an etcd round, as the admin's does, and reads each answer
      // as the admin's loop does (the client shares the machine's cores): run admin against
      // admin with one loop straight after the other, or with only one parsing its answers, the
      // second came out 4 to 40% faster; placed and loaded alike, neither is favoured.
      const sa = await loadLoop(perRound, concurrency, async (i) => {
        const res = await createAs(st.server.saClient, saNs, `cm-${first + i}`, first + i);
        expectStatus(res, [201], 'create as a ServiceAccount');
        st.sa.resourceVersions[first + i] = (JSON.parse(res.body) as { metadata: { resourceVersion: string } }).metadata.resourceVersion;
      }, st.sa.latencies);
      st.sa.seconds += sa.seconds;
      st.sa.rounds.push(sa.opsPerSec);
      await etcdRound();
    }
    // The TLS etcd figure is informational (not in the judged ratio): one round per round of the servers.
    if (putTls) {
      const offset = 1_000_000 + etcdTlsKeys;
      const e = await loadLoop(perRound, concurrency, (i) => putTls(offset + i), etcdTlsLatencies);
      etcdTlsKeys += perRound;
      etcdTlsSeconds += e.seconds;
    }
  }
  const after = await Promise.all(servers.map((s) => s.batches()));
  if (process.env.SHIPYARD_BENCH_VERBOSE) {
    for (const st of state) console.log(`create rounds (${st.server.durability}, ops/s): ${st.rounds.map((v) => v.toFixed(0)).join(' ')}; as the ServiceAccount: ${st.sa.rounds.map((v) => v.toFixed(0)).join(' ')}`);
    if (etcd) console.log(`etcd put rounds (ops/s): ${etcdRounds.map((v) => v.toFixed(0)).join(' ')}`);
  }
  const api = new Map<Durability, CreateFigures>();
  state.forEach((st, i) => {
    const transactions = after[i]!.transactions - before[i]!.transactions;
    const writes = after[i]!.writes - before[i]!.writes;
    api.set(st.server.durability, { opsPerSec: objects / st.seconds, latencies: st.latencies, writesPerTransaction: writes / transactions, authorized: { opsPerSec: objects / st.sa.seconds, latencies: st.sa.latencies } });
  });
  return { api, etcdPuts: etcd ? etcdKeys / etcdSeconds : undefined, etcdLatencies, etcdTlsPuts: etcdTlsKeys ? etcdTlsKeys / etcdTlsSeconds : undefined, etcdTlsLatencies };
}

/** Gets, lists, updates and watch fan-out against one server that already holds the created objects. */
async function benchReadsAndUpdates(server: ServerUnderTest): Promise<void> {
  const c = server.client;
  const base = `/api/v1/namespaces/${ns}/configmaps`;
  const rvs = server.resourceVersions;
  const get = await loadLoop(objects, concurrency, async (i) => expectStatus(await c.call('GET', `${base}/cm-${(i * 7919) % objects}`), [200], 'get'));
  console.log(`gets:     ${get.opsPerSec.toFixed(0)} ops/s, ${get.latencies.summary()}`);

  const fullList = new Latencies();
  const page = new Latencies();
  // One uncounted pass first: the whole-list figure is for a warm server, not for JIT compilation.
  for (let pass = -1; pass < listPasses; pass++) {
    const t0 = performance.now();
    let cont = '';
    let seen = 0;
    do {
      const t = performance.now();
      const r = await c.call('GET', `${base}?limit=500${cont ? `&continue=${encodeURIComponent(cont)}` : ''}`);
      if (pass >= 0) page.add(performance.now() - t);
      expectStatus(r, [200], 'list');
      const body = JSON.parse(r.body) as { items: unknown[]; metadata: { continue?: string } };
      seen += body.items.length;
      cont = body.metadata.continue ?? '';
    } while (cont);
    if (seen !== objects) throw new Error(`list returned ${seen} objects, expected ${objects}`);
    if (pass >= 0) fullList.add(performance.now() - t0);
  }
  if (process.env.SHIPYARD_BENCH_VERBOSE) console.log(`list passes (ms): ${fullList.all().map((v) => v.toFixed(0)).join(" ")}`);
  console.log(`list:     ${objects} objects in pages of 500, ${listPasses} passes after a warm-up (the client's JSON parsing included): whole list ${fullList.summary()}; per page ${page.summary()}`);

  const update = await loadLoop(objects, concurrency, async (i) => {
    const r = await c.call('PUT', `${base}/cm-${i}`, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `cm-${i}`, resourceVersion: rvs[i], labels: { app: 'bench' } }, data: { payload, i: String(i), updated: 'yes' } });
    expectStatus(r, [200], 'update');
  });
  console.log(`updates:  ${update.opsPerSec.toFixed(0)} ops/s, ${update.latencies.summary()}`);

  // Watch fan-out: each update carries its send time; every watcher records how late it arrived.
  const delivery = new Latencies();
  const watchAgent = new Agent({ keepAlive: true, maxSockets: watchers + 1, ca: server.ca });
  expectStatus(await c.call('POST', base, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'watched' }, data: { t: '0' } }), [201], 'create watched');
  const listRv = (JSON.parse((await c.call('GET', `${base}?limit=1`)).body) as { metadata: { resourceVersion: string } }).metadata.resourceVersion;
  let received = 0;
  const streams = await Promise.all(
    Array.from({ length: watchers }, () =>
      new Promise<import('node:http').ClientRequest>((resolve, reject) => {
        const req = request(`https://127.0.0.1:${server.port}${base}?watch=true&fieldSelector=metadata.name%3Dwatched&resourceVersion=${listRv}`, { agent: watchAgent, headers: { authorization: `Bearer ${server.token}` } }, (res) => {
          let buf = '';
          res.setEncoding('utf8');
          res.on('data', (chunk: string) => {
            buf += chunk;
            let nl: number;
            while ((nl = buf.indexOf('\n')) >= 0) {
              const line = buf.slice(0, nl);
              buf = buf.slice(nl + 1);
              const ev = JSON.parse(line) as { object: { data?: { t?: string } } };
              const sent = Number(ev.object.data?.t);
              if (sent > 0) {
                delivery.add(Date.now() - sent);
                received++;
              }
            }
          });
          resolve(req);
        });
        req.on('error', reject);
        req.end();
      }),
    ),
  );
  const fanStart = performance.now();
  for (let i = 0; i < watchUpdates; i++) {
    expectStatus(await c.call('PATCH', `${base}/watched`, { data: { t: String(Date.now()) } }, 'application/merge-patch+json'), [200], 'patch watched');
  }
  await waitFor('watch deliveries', async () => (received >= watchers * watchUpdates ? true : undefined), 60_000).catch(() => undefined);
  const fanSeconds = (performance.now() - fanStart) / 1000;
  for (const s of streams) s.destroy();
  watchAgent.destroy();
  console.log(`watch:    ${watchers} watchers x ${watchUpdates} updates: ${received} events delivered (${(received / fanSeconds).toFixed(0)} events/s), delivery ${delivery.summary()}`);
  console.log(`server peak RSS (fsync server): ${peakRssMiB(server.pid).toFixed(0)} MiB`);
}

/** Starts a throwaway etcd on loopback ports, if installed, and a client that puts ConfigMap-sized values. */
async function startEtcd(): Promise<EtcdLoad | undefined> {
  const find = () => ['/usr/bin/etcd', '/usr/local/bin/etcd'].find((p) => spawnSync(p, ['--version']).status === 0);
  let etcdBin = find();
  // The comparison needs etcd; on a Debian machine where we may, install it (SHIPYARD_BENCH_NO_INSTALL=1 to skip).
  if (!etcdBin && !process.env.SHIPYARD_BENCH_NO_INSTALL && process.getuid?.() === 0 && spawnSync('apt-get', ['--version']).status === 0) {
    console.log('etcd: installing Debian package etcd-server for the comparison ...');
    const apt = (...args: string[]) => spawnSync('apt-get', args, { stdio: 'ignore', timeout: 300_000, env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } }).status === 0;
    // A machine whose package lists were never fetched knows no etcd-server yet.
    if (!apt('install', '-y', '-q', 'etcd-server') && apt('update', '-q')) apt('install', '-y', '-q', 'etcd-server');
    etcdBin = find();
  }
  if (!etcdBin) {
    console.log('etcd: not installed (Debian package etcd-server); skipping the raw-store comparison');
    return undefined;
  }
  const dir = mkdtempSync(join(tmpdir(), 'shipyard-bench-etcd-'));
  const clientPort = await freePort();
  const peerPort = await freePort();
  // A second, TLS listener on the same etcd for the informational TLS figure (the judged ratio
  // stays against plaintext puts): a certificate for 127.0.0.1 if openssl can make one.
  const tlsPort = await freePort();
  const cert = join(dir, 'client-tls.crt');
  const key = join(dir, 'client-tls.key');
  const tls =
    spawnSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '1', '-subj', '/CN=localhost', '-addext', 'subjectAltName=DNS:localhost,IP:127.0.0.1', '-keyout', key, '-out', cert], { stdio: 'ignore' }).status === 0;
  const child = spawn(etcdBin, [
    '--data-dir', dir,
    '--listen-client-urls', tls ? `http://127.0.0.1:${clientPort},https://127.0.0.1:${tlsPort}` : `http://127.0.0.1:${clientPort}`,
    '--advertise-client-urls', `http://127.0.0.1:${clientPort}`,
    ...(tls ? ['--cert-file', cert, '--key-file', key] : []),
    '--listen-peer-urls', `http://127.0.0.1:${peerPort}`,
    '--initial-advertise-peer-urls', `http://127.0.0.1:${peerPort}`,
    '--initial-cluster', `default=http://127.0.0.1:${peerPort}`,
  ], { stdio: 'ignore' });
  const { Etcd3 } = await import('etcd3');
  const client = new Etcd3({ hosts: `http://127.0.0.1:${clientPort}` });
  await waitFor('etcd', async () => ((await client.maintenance.status()) ? true : undefined));
  const tlsClient = tls ? new Etcd3({ hosts: `https://127.0.0.1:${tlsPort}`, credentials: { rootCertificate: readFileSync(cert) }, grpcOptions: { 'grpc.ssl_target_name_override': 'localhost', 'grpc.default_authority': 'localhost' } }) : undefined;
  if (tlsClient) await waitFor('etcd over TLS', async () => ((await tlsClient.maintenance.status()) ? true : undefined));
  const value = JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm', namespace: ns, labels: { app: 'bench' } }, data: { payload } });
  return {
    async put(i) {
      await client.put(`/registry/configmaps/${ns}/cm-${i}`).value(value);
    },
    ...(tlsClient
      ? {
          async putTls(i: number) {
            await tlsClient.put(`/registry/configmaps/${ns}/cm-${i}`).value(value);
          },
        }
      : {}),
    async close() {
      tlsClient?.close();
      client.close();
      child.kill('SIGTERM');
      await new Promise((r) => child.once('exit', r));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

const describe: Record<Durability, string> = {
  fsync: "fsync, etcd's durability",
  'process-crash-only': 'no fsync, survives a killed process only',
};

export async function run(): Promise<void> {
  const etcd = await startEtcd();
  const servers: ServerUnderTest[] = [];
  try {
    // The fast server first in the list, so each round ends with the judged one.
    for (const durability of ['process-crash-only', 'fsync'] as const) servers.push(await startServer(durability));
    const { api, etcdPuts, etcdLatencies, etcdTlsPuts, etcdTlsLatencies } = await benchCreates(servers, etcd);
    for (const [durability, f] of api) {
      console.log(`creates (${describe[durability]}): ${f.opsPerSec.toFixed(0)} ops/s (${objects} objects, ${concurrency} connections, ${createRounds} rounds after a warm-up round), ${f.latencies.summary()}, ${f.writesPerTransaction.toFixed(1)} writes per store transaction`);
      console.log(`creates as a ServiceAccount (${describe[durability]}): ${f.authorized.opsPerSec.toFixed(0)} ops/s (TokenRequest token, a namespaced Role allowing create on configmaps; rounds alternating with the admin's), ${f.authorized.latencies.summary()}`);
    }
    if (etcdPuts) console.log(`etcd puts: ${etcdPuts.toFixed(0)} ops/s (${concurrency} concurrent, etcd3 client, rounds alternating with each server's), ${etcdLatencies.summary()}`);
    if (etcdTlsPuts) console.log(`etcd puts over TLS: ${etcdTlsPuts.toFixed(0)} ops/s (the same puts through a TLS listener of the same etcd, one round per round of the servers), ${etcdTlsLatencies.summary()}`);
    await servers[0]!.close();
    await benchReadsAndUpdates(servers[1]!);
    // Informational: an API server reaches etcd over TLS in a real cluster, and ours serves HTTPS.
    if (etcdTlsPuts) console.log(`apiserver/etcd-over-TLS create ratio (fsync, not the judged figure): ${(api.get('fsync')!.opsPerSec / etcdTlsPuts).toFixed(2)}`);
    for (const [durability, f] of api) console.log(`authorized/admin create ratio (${describe[durability]}; target 0.95 or above): ${(f.authorized.opsPerSec / f.opsPerSec).toFixed(2)}`);
    for (const durability of ['process-crash-only', 'fsync'] as const) {
      const ratio = etcdPuts ? (api.get(durability)!.opsPerSec / etcdPuts).toFixed(2) : 'n/a (etcd not installed)';
      console.log(`apiserver/etcd create ratio (${describe[durability]}): ${ratio}`);
    }
  } finally {
    for (const s of servers) await s.close();
    await etcd?.close();
  }
}
