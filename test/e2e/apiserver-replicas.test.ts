/**
 * Three `shipyard apiserver` processes on one data directory, as the masters' replicas share
 * one store (issue 17): a create through one reaches a watch on another (through the commit
 * notices between processes, the durability fence holding), the `kubernetes` Endpoints list all
 * three, a replica stopped with SIGTERM leaves them at once, and one killed with SIGKILL leaves
 * them once its lease has run out. Each outcome is waited for with a deadline, never timed.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { Agent, request } from 'node:https';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { until } from '../support/until.ts';

const root = resolve(fileURLToPath(new URL('../..', import.meta.url)));

async function freePort(): Promise<number> {
  return new Promise((res) => {
    const s = createServer();
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => res(port));
    });
  });
}

interface Replica {
  readonly port: number;
  readonly child: ChildProcess;
  readonly exited: Promise<unknown>;
  call(method: string, path: string, body?: unknown): Promise<{ status: number; body: string }>;
  /** A streamed GET (a watch): the lines received so far, and how to stop it. */
  stream(path: string): Promise<{ lines: string[]; close(): void }>;
}

describe('shipyard apiserver replicas on one data directory', () => {
  const dir = mkdtempSync(join(tmpdir(), 'shipyard-replicas-'));
  const agents: Agent[] = [];
  const children: ChildProcess[] = [];
  after(() => {
    for (const a of agents) a.destroy();
    for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  });

  async function start(): Promise<Replica> {
    const port = await freePort();
    const child = spawn(process.execPath, [join(root, 'bin/shipyard.js'), 'apiserver', '--data-dir', dir, '--port', String(port)], { stdio: 'ignore', env: { ...process.env, SHIPYARD_LOG_LEVEL: 'silent' } });
    children.push(child);
    const exited = new Promise((r) => child.once('exit', r));
    // Every replica writes the same CA and admin token (the first creates them); only its URL differs.
    const kc = await until('the kubeconfig', () => {
      try {
        return readFileSync(join(dir, 'kubeconfig'), 'utf8');
      } catch {
        return undefined;
      }
    }, 60_000);
    const ca = Buffer.from(/certificate-authority-data: (\S+)/.exec(kc)![1]!, 'base64').toString();
    const token = /token: (\S+)/.exec(kc)![1]!;
    const agent = new Agent({ keepAlive: true, ca, maxSockets: 4 });
    agents.push(agent);
    const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
    const replica: Replica = {
      port,
      child,
      exited,
      call: (method, path, body) =>
        new Promise((res, rej) => {
          const req = request(`https://127.0.0.1:${port}${path}`, { method, agent, headers }, (r) => {
            const chunks: Buffer[] = [];
            r.on('data', (c: Buffer) => chunks.push(c));
            r.on('end', () => res({ status: r.statusCode ?? 0, body: Buffer.concat(chunks).toString() }));
            r.on('error', rej);
          });
          req.on('error', rej);
          req.end(body === undefined ? undefined : JSON.stringify(body));
        }),
      stream: (path) =>
        new Promise((res, rej) => {
          const req = request(`https://127.0.0.1:${port}${path}`, { ca, headers, agent: false }, (r) => {
            const lines: string[] = [];
            let buffered = '';
            r.setEncoding('utf8');
            r.on('data', (chunk: string) => {
              buffered += chunk;
              const parts = buffered.split('\n');
              buffered = parts.pop()!;
              lines.push(...parts.filter(Boolean));
            });
            r.on('error', () => {});
            res({ lines, close: () => req.destroy() });
          });
          req.on('error', rej);
          req.end();
        }),
    };
    // A slow start on a busy machine is not what this test is about.
    await until('the replica ready', async () => (await replica.call('GET', '/readyz')).status === 200, { timeoutMs: 90_000, everyMs: 100, retryErrors: true });
    return replica;
  }

  const endpoints = async (r: Replica): Promise<string> => {
    const ep = JSON.parse((await r.call('GET', '/api/v1/namespaces/default/endpoints/kubernetes')).body) as { subsets?: Array<{ addresses: Array<{ ip: string }>; ports: Array<{ port: number }> }> };
    return JSON.stringify((ep.subsets ?? []).flatMap((s) => s.addresses.map((x) => `${x.ip}:${s.ports[0]!.port}`)).sort());
  };
  const expected = (rs: readonly Replica[]) => JSON.stringify(rs.map((r) => `127.0.0.1:${r.port}`).sort());

  it('share writes, watches and the kubernetes Endpoints, and drop a replica that stops or dies', async () => {
    // The first alone: it creates the PKI and the store; the others then join them.
    const a = await start();
    const [b, c] = await Promise.all([start(), start()]);

    const list = JSON.parse((await b.call('GET', '/api/v1/namespaces/default/configmaps')).body) as { metadata: { resourceVersion: string } };
    const watch = await b.stream(`/api/v1/namespaces/default/configmaps?watch=true&resourceVersion=${list.metadata.resourceVersion}`);
    try {
      const created = await a.call('POST', '/api/v1/namespaces/default/configmaps', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'through-a' }, data: { k: 'v' } });
      assert.equal(created.status, 201, created.body);
      const rv = (JSON.parse(created.body) as { metadata: { resourceVersion: string } }).metadata.resourceVersion;
      const event = await until('the create on the watch through B', () =>
        watch.lines.map((l) => JSON.parse(l) as { type: string; object: { metadata: { name: string; resourceVersion: string } } }).find((e) => e.object.metadata.name === 'through-a'),
      30_000);
      assert.equal(event.type, 'ADDED');
      assert.equal(event.object.metadata.resourceVersion, rv);
      const read = await c.call('GET', '/api/v1/namespaces/default/configmaps/through-a');
      assert.equal(read.status, 200, read.body);
    } finally {
      watch.close();
    }

    await until('all three replicas in the Endpoints', async () => (await endpoints(a)) === expected([a, b, c]), 60_000);

    c.child.kill('SIGTERM');
    await c.exited;
    await until('the replica stopped with SIGTERM out of the Endpoints', async () => (await endpoints(a)) === expected([a, b]), 60_000);

    // A killed replica cannot take itself out: its lease (30 s) runs out, and a live replica's next pass (every 10 s) drops it.
    b.child.kill('SIGKILL');
    await b.exited;
    await until('the killed replica out of the Endpoints', async () => (await endpoints(a)) === expected([a]), { timeoutMs: 120_000, everyMs: 500 });
    a.child.kill('SIGTERM');
    await a.exited;
  });
});
