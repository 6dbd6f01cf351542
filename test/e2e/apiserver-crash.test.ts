/**
 * Durability through the whole server: `shipyard apiserver` runs as a child process while
 * this test creates ConfigMaps over HTTPS; the child is killed with SIGKILL at a random
 * point, restarted on the same data directory, and every create it acknowledged (201) must
 * be there, with the same content and resourceVersion.
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

function startServer(dir: string, port: number): ChildProcess {
  return spawn(process.execPath, [join(root, 'bin/shipyard.js'), 'apiserver', '--data-dir', dir, '--port', String(port)], { stdio: 'ignore', env: { ...process.env, SHIPYARD_LOG_LEVEL: 'silent' } });
}

interface Conn {
  call(method: string, path: string, body?: unknown): Promise<{ status: number; body: string }>;
  close(): void;
}

async function connect(dir: string, port: number): Promise<Conn> {
  // A slow start on a busy machine is not what this test is about.
  const deadline = Date.now() + 60_000;
  for (;;) {
    try {
      const kc = readFileSync(join(dir, 'kubeconfig'), 'utf8');
      if (kc.includes(`:${port}`)) {
        const ca = Buffer.from(/certificate-authority-data: (\S+)/.exec(kc)![1]!, 'base64').toString();
        const token = /token: (\S+)/.exec(kc)![1]!;
        const agent = new Agent({ keepAlive: true, ca, maxSockets: 4 });
        const conn: Conn = {
          call: (method, path, body) =>
            new Promise((res, rej) => {
              const data = body === undefined ? undefined : JSON.stringify(body);
              const req = request(`https://127.0.0.1:${port}${path}`, { method, agent, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' } }, (r) => {
                const chunks: Buffer[] = [];
                r.on('data', (c: Buffer) => chunks.push(c));
                r.on('end', () => res({ status: r.statusCode ?? 0, body: Buffer.concat(chunks).toString() }));
                r.on('error', rej);
              });
              req.on('error', rej);
              req.end(data);
            }),
          close: () => agent.destroy(),
        };
        if ((await conn.call('GET', '/readyz')).status === 200) return conn;
        conn.close();
      }
    } catch {
      /* not up yet */
    }
    if (Date.now() > deadline) throw new Error('API server did not start');
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('API server durability under SIGKILL', () => {
  const dir = mkdtempSync(join(tmpdir(), 'shipyard-crash-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('keeps every acknowledged create after kill -9 and restart', async (t) => {
    // Both servers are killed however the test ends.
    const servers: ReturnType<typeof startServer>[] = [];
    t.after(() => {
      for (const s of servers) if (s.exitCode === null && s.signalCode === null) s.kill('SIGKILL');
    });
    const port = await freePort();
    const child = startServer(dir, port);
    servers.push(child);
    const exited = new Promise((r) => child.once('exit', r));
    const conn = await connect(dir, port);
    const acked = new Map<string, { rv: string; value: string }>();
    const killAfter = 40 + Math.floor(Math.random() * 120);
    let attempted = 0;
    const writers = Array.from({ length: 4 }, async (_, w) => {
      for (let i = 0; ; i++) {
        const name = `cm-${w}-${i}`;
        const value = `${w}:${i}:${'z'.repeat(i % 50)}`;
        attempted++;
        if (acked.size >= killAfter && !child.killed) child.kill('SIGKILL');
        let r;
        try {
          r = await conn.call('POST', '/api/v1/namespaces/default/configmaps', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { value } });
        } catch {
          return; // the server is gone
        }
        if (r.status !== 201) return;
        acked.set(name, { rv: (JSON.parse(r.body) as { metadata: { resourceVersion: string } }).metadata.resourceVersion, value });
      }
    });
    await Promise.all(writers);
    // Writers that stopped on an error before the kill: kill it now, and let the assertion below say so.
    if (!child.killed) child.kill('SIGKILL');
    await exited;
    conn.close();
    assert.ok(acked.size >= killAfter, `expected at least ${killAfter} acknowledged writes before the kill, got ${acked.size}`);

    const port2 = await freePort();
    const again = startServer(dir, port2);
    servers.push(again);
    try {
      const conn2 = await connect(dir, port2);
      const list = JSON.parse((await conn2.call('GET', '/api/v1/namespaces/default/configmaps')).body) as { items: Array<{ metadata: { name: string; resourceVersion: string }; data: { value: string } }> };
      const stored = new Map(list.items.map((i) => [i.metadata.name, i]));
      const missing = [...acked.keys()].filter((k) => !stored.has(k));
      assert.deepEqual(missing, [], `acknowledged objects lost after SIGKILL (${acked.size} acknowledged, ${attempted} attempted)`);
      for (const [name, { rv, value }] of acked) {
        assert.equal(stored.get(name)!.data.value, value, `${name} content`);
        assert.equal(stored.get(name)!.metadata.resourceVersion, rv, `${name} resourceVersion`);
      }
      conn2.close();
    } finally {
      again.kill('SIGKILL');
    }
  });
});
