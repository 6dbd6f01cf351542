/**
 * API server benchmark, over HTTPS with 16 concurrent client connections against a server
 * running as its own process (`shipyard apiserver`): creates, gets, a list of 10,000 objects
 * paginated by 500, updates, and watch fan-out to 100 watchers. Where etcd is installed
 * (Debian `etcd-server`), the same create loop runs as raw etcd puts through `etcd3`, and the
 * last line is the ratio it is judged by: `apiserver/etcd create ratio: <number>`. The two
 * create loops run in alternating rounds, so that a machine whose speed drifts during the run
 * (a shared VM) slows both alike and the ratio stays a property of the software.
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
  close(): Promise<void>;
}

/** Creates per second of the API server and, when etcd runs, raw etcd puts per second. */
async function benchApiServer(etcd: EtcdLoad | undefined): Promise<{ apiCreates: number; etcdPuts?: number }> {
  const dir = mkdtempSync(join(tmpdir(), 'shipyard-bench-'));
  const port = await freePort();
  const child: ChildProcess = spawn(process.execPath, ['bin/shipyard.js', 'apiserver', '--data-dir', dir, '--port', String(port)], { stdio: ['ignore', 'ignore', 'inherit'], env: { ...process.env, SHIPYARD_LOG_LEVEL: 'warn' } });
  try {
    const kubeconfig = await waitFor('kubeconfig', async () => {
      const text = readFileSync(join(dir, 'kubeconfig'), 'utf8');
      return text.includes(`:${port}`) ? text : undefined;
    });
    const ca = Buffer.from(/certificate-authority-data: (\S+)/.exec(kubeconfig)![1]!, 'base64').toString();
    const token = /token: (\S+)/.exec(kubeconfig)![1]!;
    const c = client(`https://127.0.0.1:${port}`, ca, token);
    await waitFor('readyz', async () => ((await c.call('GET', '/readyz')).status === 200 ? true : undefined));
    expectStatus(await c.call('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } }), [201], 'namespace');
    const base = `/api/v1/namespaces/${ns}/configmaps`;
    const rvs: string[] = [];

    const createOne = async (i: number): Promise<void> => {
      const r = await c.call('POST', base, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `cm-${i}`, labels: { app: 'bench' } }, data: { payload, i: String(i) } });
      expectStatus(r, [201], 'create');
      rvs[i] = (JSON.parse(r.body) as { metadata: { resourceVersion: string } }).metadata.resourceVersion;
    };
    const apiLatencies = new Latencies();
    const etcdLatencies = new Latencies();
    let apiSeconds = 0;
    let etcdSeconds = 0;
    const perRound = objects / createRounds;
    for (let round = 0; round < createRounds; round++) {
      const first = round * perRound;
      apiSeconds += (await loadLoop(perRound, concurrency, (i) => createOne(first + i), apiLatencies)).seconds;
      if (etcd) etcdSeconds += (await loadLoop(perRound, concurrency, (i) => etcd.put(first + i), etcdLatencies)).seconds;
    }
    const apiCreates = objects / apiSeconds;
    console.log(`creates:  ${apiCreates.toFixed(0)} ops/s (${objects} objects, ${concurrency} connections, ${createRounds} rounds), ${apiLatencies.summary()}`);
    const etcdPuts = etcd ? objects / etcdSeconds : undefined;
    if (etcdPuts) console.log(`etcd puts: ${etcdPuts.toFixed(0)} ops/s (${objects} keys, ${concurrency} concurrent, etcd3 client, alternating rounds), ${etcdLatencies.summary()}`);

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
    const watchAgent = new Agent({ keepAlive: true, maxSockets: watchers + 1, ca });
    expectStatus(await c.call('POST', base, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'watched' }, data: { t: '0' } }), [201], 'create watched');
    const listRv = (JSON.parse((await c.call('GET', `${base}?limit=1`)).body) as { metadata: { resourceVersion: string } }).metadata.resourceVersion;
    let received = 0;
    const streams = await Promise.all(
      Array.from({ length: watchers }, () =>
        new Promise<import('node:http').ClientRequest>((resolve, reject) => {
          const req = request(`https://127.0.0.1:${port}${base}?watch=true&fieldSelector=metadata.name%3Dwatched&resourceVersion=${listRv}`, { agent: watchAgent, headers: { authorization: `Bearer ${token}` } }, (res) => {
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
    console.log(`server peak RSS: ${peakRssMiB(child.pid!).toFixed(0)} MiB`);
    c.agent.destroy();
    return { apiCreates, etcdPuts };
  } finally {
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Starts a throwaway etcd on loopback ports, if installed, and a client that puts ConfigMap-sized values. */
async function startEtcd(): Promise<EtcdLoad | undefined> {
  const find = () => ['/usr/bin/etcd', '/usr/local/bin/etcd'].find((p) => spawnSync(p, ['--version']).status === 0);
  let etcdBin = find();
  // The comparison needs etcd; on a Debian machine where we may, install it (SHIPYARD_BENCH_NO_INSTALL=1 to skip).
  if (!etcdBin && !process.env.SHIPYARD_BENCH_NO_INSTALL && process.getuid?.() === 0 && spawnSync('apt-get', ['--version']).status === 0) {
    console.log('etcd: installing Debian package etcd-server for the comparison ...');
    spawnSync('apt-get', ['install', '-y', '-q', 'etcd-server'], { stdio: 'ignore', timeout: 300_000, env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } });
    etcdBin = find();
  }
  if (!etcdBin) {
    console.log('etcd: not installed (Debian package etcd-server); skipping the raw-store comparison');
    return undefined;
  }
  const dir = mkdtempSync(join(tmpdir(), 'shipyard-bench-etcd-'));
  const clientPort = await freePort();
  const peerPort = await freePort();
  const child = spawn(etcdBin, [
    '--data-dir', dir,
    '--listen-client-urls', `http://127.0.0.1:${clientPort}`,
    '--advertise-client-urls', `http://127.0.0.1:${clientPort}`,
    '--listen-peer-urls', `http://127.0.0.1:${peerPort}`,
    '--initial-advertise-peer-urls', `http://127.0.0.1:${peerPort}`,
    '--initial-cluster', `default=http://127.0.0.1:${peerPort}`,
  ], { stdio: 'ignore' });
  const { Etcd3 } = await import('etcd3');
  const client = new Etcd3({ hosts: `http://127.0.0.1:${clientPort}` });
  await waitFor('etcd', async () => ((await client.maintenance.status()) ? true : undefined));
  const value = JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm', namespace: ns, labels: { app: 'bench' } }, data: { payload } });
  return {
    async put(i) {
      await client.put(`/registry/configmaps/${ns}/cm-${i}`).value(value);
    },
    async close() {
      client.close();
      child.kill('SIGTERM');
      await new Promise((r) => child.once('exit', r));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export async function run(): Promise<void> {
  const etcd = await startEtcd();
  try {
    const { apiCreates, etcdPuts } = await benchApiServer(etcd);
    if (etcdPuts) console.log(`apiserver/etcd create ratio: ${(apiCreates / etcdPuts).toFixed(2)}`);
    else console.log('apiserver/etcd create ratio: n/a (etcd not installed)');
  } finally {
    await etcd?.close();
  }
}
