/**
 * Cross-replica watch latency (issue 17): three `shipyard apiserver` processes on one data
 * directory, as the masters' replicas share one store. ConfigMaps are created one at a time
 * through replica A while replicas B and C each serve a watch on them; for every create and
 * each watch, the time from sending the create to receiving its ADDED event is recorded (so a
 * sample holds the write itself, its fsync, the commit notice to the other process, its read of
 * the row and the event's way out). A first pass on a quiet cluster, then one with a steady
 * background of creates through C (16 at a time, another namespace), so the processes contend
 * for the store's write lock as replicas behind a load balancer do. Each pass is 1,000 creates
 * after 100 uncounted ones. The judged figure, printed last, is the p99 of the quiet pass:
 * `replicas cross-replica watch p99 (ms): <number>` (target < 100 ms on a 2-core machine).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { Agent, request } from 'node:https';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Latencies } from './stats.ts';

const writes = 1000;
const warmup = 100;
const backgroundConcurrency = 16;
const ns = 'bench';
const busyNs = 'bench-background';

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

async function waitFor<T>(what: string, fn: () => Promise<T | undefined>, timeoutMs = 90_000): Promise<T> {
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

interface Replica {
  readonly name: string;
  readonly child: ChildProcess;
  readonly agent: Agent;
  call(method: string, path: string, body?: unknown): Promise<{ status: number; body: string }>;
  /** Streams a watch, handing each line to `onLine` as it arrives; returns its stop. */
  watch(path: string, onLine: (line: string) => void): Promise<() => void>;
}

async function startReplica(name: string, dir: string): Promise<Replica> {
  const port = await freePort();
  const child = spawn(process.execPath, ['bin/shipyard.js', 'apiserver', '--data-dir', dir, '--port', String(port)], { stdio: ['ignore', 'ignore', 'inherit'], env: { ...process.env, SHIPYARD_LOG_LEVEL: 'warn' } });
  const kubeconfig = await waitFor('kubeconfig', async () => readFileSync(join(dir, 'kubeconfig'), 'utf8'));
  const ca = Buffer.from(/certificate-authority-data: (\S+)/.exec(kubeconfig)![1]!, 'base64').toString();
  const token = /token: (\S+)/.exec(kubeconfig)![1]!;
  const agent = new Agent({ keepAlive: true, maxSockets: backgroundConcurrency, ca });
  const url = `https://127.0.0.1:${port}`;
  const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
  const replica: Replica = {
    name,
    child,
    agent,
    call: (method, path, body) =>
      new Promise((resolve, reject) => {
        const data = body === undefined ? undefined : JSON.stringify(body);
        const req = request(url + path, { method, agent, headers: { ...headers, ...(data ? { 'content-length': Buffer.byteLength(data) } : {}) } }, (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString() }));
        });
        req.on('error', reject);
        req.end(data);
      }),
    watch: (path, onLine) =>
      new Promise((resolve, reject) => {
        const req = request(url + path, { headers, ca, agent: false }, (res) => {
          let buffered = '';
          res.setEncoding('utf8');
          res.on('data', (chunk: string) => {
            buffered += chunk;
            const parts = buffered.split('\n');
            buffered = parts.pop()!;
            for (const line of parts) if (line) onLine(line);
          });
          res.on('error', () => {});
          resolve(() => req.destroy());
        });
        req.on('error', reject);
        req.end();
      }),
  };
  await waitFor(`${name} ready`, async () => ((await replica.call('GET', '/readyz')).status === 200 ? true : undefined));
  return replica;
}

async function stopReplica(r: Replica): Promise<void> {
  r.agent.destroy();
  if (r.child.exitCode !== null || r.child.signalCode !== null) return;
  const exited = new Promise((resolve) => r.child.once('exit', resolve));
  r.child.kill('SIGTERM');
  await exited;
}

/** One pass: `count` creates through `writer`, each timed until its ADDED event on every watch. */
async function pass(writer: Replica, watchers: readonly Replica[], prefix: string, count: number): Promise<{ sent: Latencies; acked: Latencies }> {
  const list = JSON.parse((await writer.call('GET', `/api/v1/namespaces/${ns}/configmaps?limit=1`)).body) as { metadata: { resourceVersion: string } };
  const pending = new Map<string, { sentAt: number; ackedAt?: number; waiting: number; done: () => void }>();
  const sent = new Latencies();
  const acked = new Latencies();
  const onLine = (line: string): void => {
    const receivedAt = performance.now();
    const name = (JSON.parse(line) as { object?: { metadata?: { name?: string } } }).object?.metadata?.name ?? '';
    const p = pending.get(name);
    if (!p) return;
    sent.add(receivedAt - p.sentAt);
    // An event may beat the writer's own response; then its ack-relative latency is 0.
    acked.add(p.ackedAt === undefined ? 0 : Math.max(0, receivedAt - p.ackedAt));
    if (--p.waiting === 0) p.done();
  };
  const stops = await Promise.all(watchers.map((w) => w.watch(`/api/v1/namespaces/${ns}/configmaps?watch=true&resourceVersion=${list.metadata.resourceVersion}`, onLine)));
  try {
    for (let i = 0; i < count; i++) {
      const name = `${prefix}-${i}`;
      const seen = new Promise<void>((done) => pending.set(name, { sentAt: performance.now(), waiting: watchers.length, done }));
      const r = await writer.call('POST', `/api/v1/namespaces/${ns}/configmaps`, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { i: String(i) } });
      if (r.status !== 201) throw new Error(`create ${name}: HTTP ${r.status}: ${r.body.slice(0, 300)}`);
      const p = pending.get(name)!;
      p.ackedAt = performance.now();
      await seen;
      pending.delete(name);
    }
  } finally {
    for (const stop of stops) stop();
  }
  return { sent, acked };
}

/** Creates through `r` with `concurrency` in flight until `stop` resolves; returns how many. */
async function background(r: Replica, concurrency: number, stop: Promise<void>): Promise<number> {
  let done = false;
  void stop.then(() => (done = true));
  let n = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async (_, w) => {
      while (!done) {
        const name = `bg-${w}-${n++}`;
        const res = await r.call('POST', `/api/v1/namespaces/${busyNs}/configmaps`, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { pad: 'x'.repeat(256) } });
        if (res.status !== 201) throw new Error(`background create: HTTP ${res.status}: ${res.body.slice(0, 300)}`);
      }
    }),
  );
  return n;
}

export async function run(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'shipyard-bench-replicas-'));
  const replicas: Replica[] = [];
  try {
    // The first alone creates the PKI and the store; the others join them.
    replicas.push(await startReplica('A', dir));
    replicas.push(...(await Promise.all([startReplica('B', dir), startReplica('C', dir)])));
    const [a, b, c] = replicas as [Replica, Replica, Replica];
    for (const name of [ns, busyNs]) {
      const r = await a.call('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
      if (r.status !== 201) throw new Error(`namespace ${name}: HTTP ${r.status}`);
    }
    await pass(a, [b, c], 'warmup', warmup);
    const quiet = await pass(a, [b, c], 'quiet', writes);
    console.log(`quiet, ${writes} creates through A, watched on B and C: send → event ${quiet.sent.summary()}; acknowledged → event ${quiet.acked.summary()}`);

    let stopBackground!: () => void;
    const stopped = new Promise<void>((r) => (stopBackground = r));
    const bg = background(c, backgroundConcurrency, stopped);
    const started = performance.now();
    let busy;
    try {
      await pass(a, [b, c], 'busy-warmup', warmup);
      busy = await pass(a, [b, c], 'busy', writes);
    } finally {
      stopBackground();
    }
    const bgCount = await bg;
    const seconds = (performance.now() - started) / 1000;
    console.log(
      `busy (${backgroundConcurrency} concurrent creates through C alongside, ${(bgCount / seconds).toFixed(0)}/s), ${writes} creates through A, watched on B and C: send → event ${busy.sent.summary()}; acknowledged → event ${busy.acked.summary()}`,
    );
    console.log(`replicas cross-replica watch p99 under load (ms): ${busy.sent.percentile(99).toFixed(2)}`);
    console.log(`replicas cross-replica watch p99 (ms): ${quiet.sent.percentile(99).toFixed(2)}`);
  } finally {
    await Promise.all(replicas.map(stopReplica));
    rmSync(dir, { recursive: true, force: true });
  }
}
