/**
 * A component's own metrics endpoint guarded as the machine-config daemon serves it when run
 * without its oauth-proxy (HTTPS, every request reviewed by the API server), against a real
 * API server with RBAC enforced, the reviewer running as a ServiceAccount bound to kube's
 * system:auth-delegator: no token 401; a token the API server does not know 401; a ServiceAccount
 * without `get /metrics` 403; one bound to system:monitoring gets the metrics. A resource rule
 * (OpenShift's `namespaces get`) is checked as one. Decisions are cached on the clock given (a
 * grant shows once a denial's short life is over), a reviewer without the right to review answers
 * 500, and no caller's token reaches the log.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { Gauge, Registry } from '../../src/api/prometheus.ts';
import { ApiClient } from '../../src/runtime/client.ts';
import { FakeClock } from '../../src/runtime/clock.ts';
import { createDelegatedAuth, type DelegatedAuthOptions } from '../../src/runtime/delegated-auth.ts';
import { loadKubeConfig } from '../../src/runtime/kubeconfig.ts';
import { createLogger } from '../../src/runtime/logger.ts';
import { serveMetrics } from '../../src/runtime/metrics-server.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { httpsGet, metricsCallers, writeServingPair } from '../support/metrics-access.ts';
import { tokenKubeconfig } from '../support/service-account.ts';

const NS = 'guarded-metrics';
const ACCOUNTS = ['reviewer', 'scraper', 'nobody', 'reader', 'latecomer'] as const;

describe('metrics guarded by delegated authentication and authorization, against a real API server', { timeout: 120_000 }, () => {
  let ts: TestServer;
  let dir: string;
  let caPem = '';
  const tokens = {} as Record<(typeof ACCOUNTS)[number], string>;
  const clients: ApiClient[] = [];
  const stops: AbortController[] = [];
  const closed: Promise<void>[] = [];
  const logged: string[] = [];
  const bind = `127.0.${200 + Math.floor(Math.random() * 50)}.${2 + Math.floor(Math.random() * 250)}`;
  const registry = new Registry();
  new Gauge({ name: 'mcd_state', help: 'test', labelNames: ['state'], registers: [registry] }).set({ state: 'Done' }, 1);

  const get = (address: string, path: string, token?: string): Promise<{ status: number; body: string }> => {
    const [host, port] = address.split(':');
    return httpsGet(host!, Number(port), path, caPem, token);
  };

  /** A client of the test server as one of the ServiceAccounts. */
  function clientAs(account: (typeof ACCOUNTS)[number]): ApiClient {
    const file = tokenKubeconfig(ts, tokens[account], join(dir, `${account}.kubeconfig`));
    const client = new ApiClient(loadKubeConfig({ kubeconfig: file, env: {} }));
    clients.push(client);
    return client;
  }

  async function serve(auth: Omit<DelegatedAuthOptions, 'client'> = {}, reviewer: (typeof ACCOUNTS)[number] = 'reviewer'): Promise<string> {
    const stop = new AbortController();
    stops.push(stop);
    const destination = new PassThrough();
    destination.setEncoding('utf8').on('data', (line: string) => logged.push(line));
    const server = await serveMetrics({
      registry,
      address: `${bind}:0`,
      signal: stop.signal,
      tls: { certFile: join(dir, 'tls.crt'), keyFile: join(dir, 'tls.key') },
      auth: createDelegatedAuth({ client: clientAs(reviewer), ...auth }),
      logger: createLogger({ component: 'guarded-metrics-test', destination }),
    });
    closed.push(server.closed);
    return server.address;
  }

  before(async () => {
    ts = await startTestServer();
    dir = mkdtempSync(join(tmpdir(), 'shipyard-guarded-metrics-'));
    const admin = new ApiClient(loadKubeConfig({ kubeconfig: ts.server.kubeconfigPath, env: {} }));
    clients.push(admin);
    Object.assign(tokens, await metricsCallers(ts, admin, NS, ACCOUNTS));
    caPem = await writeServingPair(dir, 'machine-config-daemon', bind);
  });

  after(async () => {
    for (const s of stops) s.abort();
    await Promise.all(closed);
    for (const c of clients) c.close();
    await ts?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('answers only callers the API server authenticates and allows GET on the path, over TLS', async () => {
    const address = await serve();
    assert.deepEqual(await get(address, '/metrics'), { status: 401, body: 'Unauthorized\n' });
    assert.deepEqual(await get(address, '/metrics', 'not-a-token'), { status: 401, body: 'Unauthorized\n' });
    assert.deepEqual(await get(address, '/metrics', tokens.nobody), { status: 403, body: `Forbidden (user=system:serviceaccount:${NS}:nobody, verb=get, resource=, subresource=)\n` });
    const allowed = await get(address, '/metrics', tokens.scraper);
    assert.equal(allowed.status, 200, allowed.body);
    assert.match(allowed.body, /^mcd_state\{state="Done"\} 1$/m);
    assert.equal((await get(address, '/metrics', tokens.reader)).status, 403, 'reading namespaces is not reading /metrics');
    assert.equal((await get(address, '/healthz')).status, 401, 'every path is guarded, as behind the proxy');
  });

  it('a resource rule, as OpenShift\'s daemon used it, is checked as a resource', async () => {
    const address = await serve({ resource: { verb: 'get', resource: 'namespaces' } });
    assert.equal((await get(address, '/metrics', tokens.reader)).status, 200);
    assert.deepEqual(await get(address, '/metrics', tokens.scraper), { status: 403, body: `Forbidden (user=system:serviceaccount:${NS}:scraper, verb=get, resource=namespaces, subresource=)\n` });
  });

  it('a denial is reused only briefly: a grant shows once it has expired on the clock', async () => {
    const clock = new FakeClock();
    const address = await serve({ clock, denyTtlMs: 3_000 });
    assert.equal((await get(address, '/metrics', tokens.latecomer)).status, 403);
    const granted = await ts.kubectl(['create', 'clusterrolebinding', 'guarded-latecomer-monitoring', '--clusterrole=system:monitoring', `--serviceaccount=${NS}:latecomer`]);
    assert.equal(granted.code, 0, granted.stderr);
    assert.equal((await get(address, '/metrics', tokens.latecomer)).status, 403, 'the cached denial, within its 3 s');
    clock.advance(3_001);
    assert.equal((await get(address, '/metrics', tokens.latecomer)).status, 200);
  });

  it('a reviewer the API server will not answer is a 500, and no caller\'s token is ever logged', async () => {
    const address = await serve({}, 'nobody');
    assert.deepEqual(await get(address, '/metrics', tokens.scraper), { status: 500, body: 'Internal Server Error\n' });
    const text = logged.join('');
    assert.match(text, /metrics request not reviewed/);
    for (const name of ACCOUNTS) assert.ok(!text.includes(tokens[name]), `${name}'s token is not in the log`);
  });
});
