import assert from 'node:assert/strict';
import { request } from 'node:http';
import { describe, it } from 'node:test';
import { Registry } from 'prom-client';
import { createComponentMetrics } from './metrics.ts';
import { parseMetricsAddress, serveMetrics } from './metrics-server.ts';

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

  it('takes only host:port with a loopback host', () => {
    assert.deepEqual(parseMetricsAddress('127.128.3.7:9001'), { host: '127.128.3.7', port: 9001 });
    for (const bad of ['0.0.0.0:9001', ':9001', '10.0.0.1:9001', '127.0.0.1', '127.0.0.256:1', 'localhost:9001']) {
      assert.throws(() => parseMetricsAddress(bad), /127\.0\.0\.0\/8/, bad);
    }
  });
});
