/**
 * The API client's connection handling against a plain HTTP server: idle kept-alive sockets are
 * closed by the client before the server's keep-alive timeout, and a slow answer is not cut off
 * by that idle timeout.
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { KubeConfig } from '@kubernetes/client-node';
import { ApiClient } from '../../src/runtime/client.ts';
import { until } from '../support/until.ts';

describe('runtime/client connections', () => {
  let server: Server;
  let kubeConfig: KubeConfig;
  const closedAt = new Map<Socket, number>();
  let connections = 0;

  before(async () => {
    // The API server's keep-alive timeout: the server itself would not close an idle socket for 65 s.
    server = createServer({ keepAliveTimeout: 65_000 }, (req, res) => {
      const delay = Number(new URL(req.url ?? '/', 'http://x').searchParams.get('delayMs') ?? 0);
      setTimeout(() => res.setHeader('Content-Type', 'application/json').end('{"kind":"Status","code":200}'), delay);
    });
    server.on('connection', (s) => {
      connections++;
      s.on('close', () => closedAt.set(s, performance.now()));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    kubeConfig = new KubeConfig();
    kubeConfig.loadFromOptions({
      // Plain HTTP needs skipTLSVerify in client-node's eyes; there is no TLS to verify here.
      clusters: [{ name: 'c', server: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, skipTLSVerify: true }],
      users: [{ name: 'u' }],
      contexts: [{ name: 'x', cluster: 'c', user: 'u' }],
      currentContext: 'x',
    });
  });

  after(async () => {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  });

  it('closes a socket left idle past idleSocketTimeoutMs itself, and opens a new one for the next request', async () => {
    const client = new ApiClient(kubeConfig, { idleSocketTimeoutMs: 200 });
    try {
      const before = connections;
      const askedAt = performance.now();
      await client.request('GET', '/api');
      assert.equal(connections, before + 1);
      // Well inside the server's 65 s, however slow the machine: only the client can have closed it.
      const closed = await until('the idle socket closed', () => [...closedAt.values()][0], 30_000);
      // Timers fire late, never early: the socket stayed open for its idle timeout at least.
      assert.ok(closed - askedAt >= 200, `the idle socket closed ${(closed - askedAt).toFixed(0)} ms after the request went out`);
      await client.request('GET', '/api');
      assert.equal(connections, before + 2, 'the next request went out on a new socket');
    } finally {
      client.close();
    }
  });

  it('does not cut off an answer slower than the idle timeout: a running request has its own deadline', async () => {
    const client = new ApiClient(kubeConfig, { idleSocketTimeoutMs: 100 });
    try {
      const status = await client.request<{ code: number }>('GET', '/api', { query: { delayMs: 400 } });
      assert.equal(status.code, 200);
    } finally {
      client.close();
    }
  });
});
