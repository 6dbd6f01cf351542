import assert from 'node:assert/strict';
import { lstatSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { Registry } from '../api/prometheus.ts';
import { createComponentMetrics } from './metrics.ts';
import { parseMetricsAddress, serveMetrics } from './metrics-server.ts';
import { socketPath } from './unix-socket.ts';

function get(address: string, path: string): Promise<{ status: number; type: string; body: string }> {
  const [host, port] = address.split(':');
  return new Promise((resolve, reject) => {
    request({ host, port: Number(port), path, method: 'GET', agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, type: String(res.headers['content-type'] ?? ''), body: Buffer.concat(chunks).toString('utf8') }));
    })
      .on('error', reject)
      .end();
  });
}

/** A GET over a Unix socket, resolved once the connection has closed (nothing left open after the test). */
function getUnix(socket: string, path: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let status = 0;
    const req = request({ socketPath: socket, path, agent: false, headers: { connection: 'close' } }, (res) => {
      status = res.statusCode ?? 0;
      res.on('data', (c: Buffer) => chunks.push(c));
    });
    req.on('error', reject);
    req.on('close', () => resolve({ status, body: Buffer.concat(chunks).toString('utf8') }));
    req.end();
  });
}

describe('metrics server', () => {
  it('serves the registry at /metrics and ok at /healthz, 404 elsewhere, and closes when the signal aborts', async () => {
    const registry = new Registry();
    createComponentMetrics('machine-config-controller', registry).forController('render').observe({ key: 'worker', result: 'success', durationMs: 3 });
    const abort = new AbortController();
    const server = await serveMetrics({ registry, address: '127.0.0.1:0', signal: abort.signal });
    try {
      const metrics = await get(server.address, '/metrics');
      assert.equal(metrics.status, 200);
      assert.match(metrics.type, /^text\/plain/);
      assert.match(metrics.body, /machine_config_controller_reconcile_total\{controller="render",result="success"\} 1/);
      assert.deepEqual([(await get(server.address, '/healthz')).body, (await get(server.address, '/other')).status], ['ok', 404]);
    } finally {
      abort.abort();
      await server.closed;
    }
    await assert.rejects(get(server.address, '/healthz'), /ECONNREFUSED/);
  });

  it('serves on a Unix socket, replacing a socket file an earlier run left', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'shipyard-metrics-'));
    const socketPath = join(dir, 'metrics.sock');
    writeFileSync(socketPath, 'left behind');
    const registry = new Registry();
    createComponentMetrics('machine-config-daemon', registry).forController('daemon');
    const abort = new AbortController();
    try {
      const server = await serveMetrics({ registry, socketPath, signal: abort.signal });
      assert.equal(server.address, `unix:${socketPath}`);
      const metrics = (await getUnix(socketPath, '/metrics')).body;
      assert.match(metrics, /machine_config_daemon_reconcile_total\{controller="daemon",result="success"\} 0/);
      abort.abort();
      await server.closed;
    } finally {
      abort.abort();
      rmSync(dir, { recursive: true, force: true });
    }
    await assert.rejects(serveMetrics({ registry, signal: abort.signal }), /either an address or a socket path/);
  });

  it('serves on a socket whose path is past the 107 bytes a socket address holds, at that path', async () => {
    const base = mkdtempSync(join(tmpdir(), 'shipyard-metrics-'));
    const dir = join(base, 'pods', 'a'.repeat(40), 'rootfs', 'machine-config-daemon', 'var', 'run', 'machine-config-daemon');
    mkdirSync(dir, { recursive: true });
    const path = join(dir, 'metrics.sock');
    assert.ok(Buffer.byteLength(path) > 107, path);
    const registry = new Registry();
    const abort = new AbortController();
    const client = socketPath(path);
    try {
      const server = await serveMetrics({ registry, socketPath: path, signal: abort.signal });
      assert.ok(lstatSync(path).isSocket(), 'the socket is at the path asked for, not at a truncated one');
      assert.equal((await getUnix(client.path, '/healthz')).status, 200);
      abort.abort();
      await server.closed;
    } finally {
      abort.abort();
      client.close();
      rmSync(base, { recursive: true, force: true });
    }
  });

  it('takes only host:port with a loopback host', () => {
    assert.deepEqual(parseMetricsAddress('127.128.3.7:9001'), { host: '127.128.3.7', port: 9001 });
    for (const bad of ['0.0.0.0:9001', ':9001', '192.0.2.1:9001', '127.0.0.1', '127.0.0.256:1', 'localhost:9001']) {
      assert.throws(() => parseMetricsAddress(bad), /127\.0\.0\.0\/8/, bad);
    }
  });
});
