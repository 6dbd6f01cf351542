/**
 * Rolling API server replicas without a failed request (issue 17, item 6): two kube-apiserver
 * processes (the component a master's static pod runs, from its launcher) share one data
 * directory behind the datacenter's load balancer, health-checked on `/readyz`. While clients
 * call through the balancer every 100 ms (one on a kept-alive connection, one on a new
 * connection each time, one watching), each replica in turn is stopped with SIGTERM, as the
 * kubelet stops a static pod, and started again. No request fails, and the watch, ended
 * cleanly by each replica it was on, picks up on the other one without missing an object.
 * Failures are counted; no duration is asserted (the waits are conditions with deadlines only
 * a stuck cluster reaches).
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { Agent, request } from 'node:https';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { startLoadBalancer, type LoadBalancer } from '../../src/cloud/load-balancer.ts';
import { until } from '../support/until.ts';

const root = resolve(fileURLToPath(new URL('../..', import.meta.url)));
const launcher = join(root, 'bin/components/kube-apiserver.js');
const BIND = '127.0.0.1';

async function freePort(): Promise<number> {
  return new Promise((res) => {
    const s = createServer();
    s.listen(0, BIND, () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => res(port));
    });
  });
}

interface Replica {
  readonly name: string;
  readonly port: number;
  readonly log: string;
  child?: ChildProcess;
  exited?: Promise<number | null>;
}

interface Reply {
  readonly status: number;
  readonly body: string;
}

/** One HTTPS call; rejects on a transport error, and on no answer within a deadline only a hang reaches. */
function call(url: string, opts: { method?: string; body?: unknown; agent: Agent | false; ca?: string; token?: string }): Promise<Reply> {
  return new Promise((resolvePromise, reject) => {
    const data = opts.body === undefined ? undefined : JSON.stringify(opts.body);
    const req = request(
      url,
      {
        method: opts.method ?? 'GET',
        agent: opts.agent,
        ...(opts.agent === false ? (opts.ca ? { ca: opts.ca } : { rejectUnauthorized: false }) : {}),
        headers: { ...(opts.token ? { authorization: `Bearer ${opts.token}` } : {}), ...(data ? { 'content-type': 'application/json' } : {}) },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (text += c));
        res.on('end', () => resolvePromise({ status: res.statusCode ?? 0, body: text }));
        res.on('error', reject);
      },
    );
    req.setTimeout(60_000, () => req.destroy(new Error('no answer in 60 s')));
    req.on('error', reject);
    req.end(data);
  });
}

describe('API server replicas behind the load balancer (e2e)', { timeout: 900_000 }, () => {
  it('stopping each replica with SIGTERM and starting it again fails no request and loses no watch event', async (t) => {
    const dataDir = mkdtempSync(join(tmpdir(), 'shipyard-rollout-'));
    const replicas: Replica[] = [];
    let lb: LoadBalancer | undefined;
    const stopClients = new AbortController();
    const stopWatch = new AbortController();
    t.after(async () => {
      stopClients.abort();
      stopWatch.abort();
      for (const r of replicas) r.child?.kill('SIGKILL');
      await Promise.all(replicas.map((r) => r.exited));
      await lb?.close();
      rmSync(dataDir, { recursive: true, force: true });
    });

    lb = await startLoadBalancer({ host: BIND, port: 0, backends: [], healthCheck: { kind: 'https', path: '/readyz' }, intervalMs: 200, timeoutMs: 2_000 });
    const lbUrl = `https://${BIND}:${lb.port}`;
    for (const name of ['a', 'b']) replicas.push({ name, port: await freePort(), log: join(dataDir, `replica-${name}.log`) });
    const logTail = (r: Replica) => readFileSync(r.log, 'utf8').split('\n').slice(-30).join('\n');

    const start = (r: Replica): void => {
      const out = openSync(r.log, 'a');
      r.child = spawn(
        process.execPath,
        [
          launcher,
          `--data-dir=${dataDir}`,
          `--bind-address=${BIND}`,
          `--secure-port=${r.port}`,
          `--advertise-url=${lbUrl}`,
          // Longer than a few of the balancer's checks, so it has moved new connections away.
          '--shutdown-delay-duration=2s',
          '--store-durability=process-crash-only',
        ],
        { stdio: ['ignore', out, out], env: { ...process.env, SHIPYARD_LOG_LEVEL: 'info' } },
      );
      const child = r.child;
      r.exited = new Promise((done) => child.once('exit', (code) => done(code)));
    };
    const ready = async (r: Replica): Promise<void> => {
      await until(
        `replica ${r.name} ready`,
        async () => {
          if (r.child?.exitCode !== null) throw new Error(`replica ${r.name} exited with ${r.child?.exitCode}:\n${logTail(r)}`);
          const reply = await call(`https://${BIND}:${r.port}/readyz`, { agent: false }).catch(() => undefined);
          return reply?.status === 200;
        },
        { timeoutMs: 120_000, everyMs: 100 },
      );
    };
    const inRotation = (r: Replica, healthy: boolean) =>
      until(`the load balancer to see replica ${r.name} ${healthy ? 'healthy' : 'unhealthy'}`, () => lb!.backends().find((b) => b.port === r.port)?.healthy === healthy, { timeoutMs: 60_000 });

    // The first replica creates the data directory's PKI and token; the second finds them.
    start(replicas[0]!);
    await ready(replicas[0]!);
    start(replicas[1]!);
    await ready(replicas[1]!);
    lb.setBackends(replicas.map((r) => ({ host: BIND, port: r.port })));
    await inRotation(replicas[0]!, true);
    await inRotation(replicas[1]!, true);

    const kubeconfig = readFileSync(join(dataDir, 'kubeconfig'), 'utf8');
    const ca = Buffer.from(/certificate-authority-data: (\S+)/.exec(kubeconfig)![1]!, 'base64').toString();
    const token = /token: (\S+)/.exec(kubeconfig)![1]!;
    const created = await call(`${lbUrl}/api/v1/namespaces`, { method: 'POST', body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'rollout' } }, agent: false, ca, token });
    assert.equal(created.status, 201, created.body);

    const failures: string[] = [];
    let successes = 0;
    const names = new Set<string>();
    const record = (what: string, reply: Reply | Error, ok: number[]): void => {
      if (reply instanceof Error) failures.push(`${what}: ${reply.message}`);
      else if (!ok.includes(reply.status)) failures.push(`${what}: HTTP ${reply.status} ${reply.body.slice(0, 300)}`);
      else successes++;
    };
    const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

    // A client on one kept-alive connection at a time, reading and writing in turn.
    const kept = new Agent({ keepAlive: true, maxSockets: 1, ca });
    t.after(() => kept.destroy());
    const keptClient = (async () => {
      for (let i = 0; !stopClients.signal.aborted; i++) {
        if (i % 2 === 0) record('GET namespace (kept-alive)', await call(`${lbUrl}/api/v1/namespaces/rollout`, { agent: kept, token }).catch((e: Error) => e), [200]);
        else {
          const name = `cm-${i}`;
          const reply = await call(`${lbUrl}/api/v1/namespaces/rollout/configmaps`, { method: 'POST', body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { i: String(i) } }, agent: kept, token }).catch((e: Error) => e);
          record(`POST configmap ${name} (kept-alive)`, reply, [201]);
          if (!(reply instanceof Error) && reply.status === 201) names.add(name);
        }
        await pause(100);
      }
    })();
    // A client dialling a new connection for each request: the balancer picks a replica each time.
    const freshClient = (async () => {
      while (!stopClients.signal.aborted) {
        record('LIST configmaps (new connection)', await call(`${lbUrl}/api/v1/namespaces/rollout/configmaps?limit=5`, { agent: false, ca, token }).catch((e: Error) => e), [200]);
        await pause(100);
      }
    })();
    // A watch through the balancer, resumed from the last resourceVersion whenever its stream ends.
    const seen = new Set<string>();
    let watchEnds = 0;
    const watcher = (async () => {
      let rv = (JSON.parse((await call(`${lbUrl}/api/v1/namespaces/rollout/configmaps`, { agent: false, ca, token })).body) as { metadata: { resourceVersion: string } }).metadata.resourceVersion;
      while (!stopWatch.signal.aborted) {
        const end = await new Promise<string | undefined>((done) => {
          const req = request(`${lbUrl}/api/v1/namespaces/rollout/configmaps?watch=true&allowWatchBookmarks=true&resourceVersion=${rv}`, { agent: false, ca, headers: { authorization: `Bearer ${token}` } }, (res) => {
            if (res.statusCode !== 200) {
              res.resume();
              return done(`watch answered HTTP ${res.statusCode}`);
            }
            let buffered = '';
            res.setEncoding('utf8');
            res.on('data', (chunk: string) => {
              buffered += chunk;
              const lines = buffered.split('\n');
              buffered = lines.pop()!;
              for (const line of lines.filter(Boolean)) {
                const ev = JSON.parse(line) as { type: string; object: { metadata: { name?: string; resourceVersion: string } } };
                if (ev.type === 'ERROR') return done(`watch ERROR event: ${line}`);
                rv = ev.object.metadata.resourceVersion;
                if (ev.type === 'ADDED' && ev.object.metadata.name) seen.add(ev.object.metadata.name);
              }
            });
            res.on('end', () => done(res.complete ? undefined : 'watch stream cut'));
            res.on('aborted', () => done('watch stream aborted'));
            res.on('error', (e) => done(`watch stream: ${e.message}`));
          });
          req.on('error', (e) => done(`watch request: ${e.message}`));
          stopWatch.signal.addEventListener('abort', () => req.destroy(), { once: true });
          req.end();
        });
        if (stopWatch.signal.aborted) break;
        if (end) failures.push(end);
        else watchEnds++;
      }
    })();

    const progress = async (what: string) => {
      const from = successes;
      await until(`10 more successful requests ${what}`, () => successes >= from + 10, { timeoutMs: 60_000 });
    };
    await progress('with both replicas up');
    for (const r of replicas) {
      r.child!.kill('SIGTERM');
      const code = await r.exited;
      assert.equal(code, 0, `replica ${r.name} exits cleanly after SIGTERM:\n${logTail(r)}`);
      const log = readFileSync(r.log, 'utf8');
      for (const step of ['ShutdownInitiated', 'NotAcceptingNewRequest', 'InFlightRequestsDrained']) assert.ok(log.includes(step), `replica ${r.name} went through ${step}`);
      await inRotation(r, false);
      await progress(`while replica ${r.name} is down`);
      start(r);
      await ready(r);
      await inRotation(r, true);
      await progress(`after replica ${r.name} is back`);
    }

    stopClients.abort();
    await Promise.all([keptClient, freshClient]);
    await until('the watch to have seen every ConfigMap created', () => [...names].every((n) => seen.has(n)), { timeoutMs: 60_000 }).catch(() => {
      failures.push(`the watch missed ${[...names].filter((n) => !seen.has(n)).join(', ')}`);
    });
    stopWatch.abort();
    await watcher;
    t.diagnostic(`${successes} requests answered, ${names.size} ConfigMaps created and watched, the watch ended cleanly and resumed ${watchEnds} times`);
    assert.deepEqual(failures, [], `${failures.length} of ${failures.length + successes} requests failed`);
    assert.ok(watchEnds >= 1, 'the watch was ended cleanly by the replica it was on, and resumed');
  });
});
