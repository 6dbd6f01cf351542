/**
 * The oauth-proxy that guards the machine-config daemon's metrics, started in-process as its
 * container starts it, against a real API server with RBAC enforced, running as a
 * ServiceAccount bound to kube's system:auth-delegator: no token 401; a token the API server
 * does not know 401; a ServiceAccount without `get /metrics` 403; one bound to
 * system:monitoring gets the upstream's answer, served from a Unix socket, and the upstream
 * never sees the caller's token. A resource rule (OpenShift's `namespaces get`) is checked as one.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { start } from '../../src/operators/machine-config/oauth-proxy/component.ts';
import { ApiClient } from '../../src/runtime/client.ts';
import { ClientConfig } from '../../src/runtime/kubeconfig.ts';
import { httpsGet, metricsCallers, writeServingPair } from '../support/metrics-access.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { tokenKubeconfig } from '../support/service-account.ts';
import { until } from '../support/until.ts';

const NS = 'proxy-test';

describe('oauth-proxy against a real API server', { timeout: 120_000 }, () => {
  let ts: TestServer;
  let admin: ApiClient;
  let dir: string;
  let upstream: Server;
  let caPem = '';
  const tokens: Record<string, string> = {};
  const seenAuthorization: (string | undefined)[] = [];
  const stops: AbortController[] = [];
  const running: Promise<void>[] = [];
  const bind = `127.0.${200 + Math.floor(Math.random() * 50)}.${2 + Math.floor(Math.random() * 250)}`;

  const get = (port: number, path: string, token?: string) => httpsGet(bind, port, path, caPem, token);

  async function startProxy(port: number, delegate: string): Promise<void> {
    const stop = new AbortController();
    stops.push(stop);
    const run = start({
      signal: stop.signal,
      args: [`--https-address=${bind}:${port}`, `--upstream=unix://${join(dir, 'metrics.sock')}`, `--tls-cert=${join(dir, 'tls.crt')}`, `--tls-key=${join(dir, 'tls.key')}`, `--openshift-delegate-urls=${delegate}`, '--kubeconfig', join(dir, 'kubeconfig')],
      env: {},
    });
    run.catch(() => {});
    running.push(run);
    await until('the proxy answers', async () => (await get(port, '/metrics')).status === 401, { retryErrors: true, timeoutMs: 30_000 });
  }

  before(async () => {
    ts = await startTestServer();
    dir = mkdtempSync(join(tmpdir(), 'shipyard-oauth-proxy-'));
    const config = new ClientConfig();
    config.loadFromFile(ts.server.kubeconfigPath);
    admin = new ApiClient(config);
    // The proxy runs as `reviewer`, bound to system:auth-delegator.
    Object.assign(tokens, await metricsCallers(ts, admin, NS, ['reviewer', 'scraper', 'nobody', 'reader'] as const));
    tokenKubeconfig(ts, tokens.reviewer!, join(dir, 'kubeconfig'));
    caPem = await writeServingPair(dir, 'oauth-proxy', bind);
    upstream = createServer((req, res) => {
      seenAuthorization.push(req.headers.authorization);
      res.writeHead(200, { 'content-type': 'text/plain' }).end(`mcd_up 1\npath ${req.url}\n`);
    });
    await new Promise<void>((resolve) => upstream.listen(join(dir, 'metrics.sock'), resolve));
  });

  after(async () => {
    for (const s of stops) s.abort();
    await Promise.all(running.map((r) => r.catch(() => {})));
    upstream?.close();
    admin?.close();
    await ts?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('passes only callers the API server authenticates and allows GET on the path, without their token', async () => {
    const port = 19001 + Math.floor(Math.random() * 500);
    await startProxy(port, '{"/": {"verb": "get"}}');
    assert.deepEqual(await get(port, '/metrics'), { status: 401, body: 'Unauthorized\n' });
    assert.equal((await get(port, '/metrics', 'not-a-token')).status, 401);
    const denied = await get(port, '/metrics', tokens.nobody);
    assert.equal(denied.status, 403);
    assert.equal(denied.body, `Forbidden (user=system:serviceaccount:${NS}:nobody, verb=get, resource=, subresource=)\n`);
    const allowed = await get(port, '/metrics', tokens.scraper);
    assert.deepEqual(allowed, { status: 200, body: 'mcd_up 1\npath /metrics\n' });
    assert.equal((await get(port, '/metrics', tokens.reader)).status, 403, 'reading namespaces is not reading /metrics');
    assert.ok(seenAuthorization.length > 0 && seenAuthorization.every((a) => a === undefined), 'the upstream never sees a caller\'s credential');
  });

  it('a resource rule, as OpenShift\'s daemon used it, is checked as a resource', async () => {
    const port = 19600 + Math.floor(Math.random() * 300);
    await startProxy(port, '{"/metrics": {"resource": "namespaces", "verb": "get"}}');
    assert.equal((await get(port, '/metrics', tokens.reader)).status, 200);
    assert.equal((await get(port, '/metrics', tokens.scraper)).status, 403);
    assert.equal((await get(port, '/other', tokens.reader)).status, 403, 'a path no rule covers is refused');
  });
});
