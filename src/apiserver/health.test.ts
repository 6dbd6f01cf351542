import assert from 'node:assert/strict';
import type { ServerResponse } from 'node:http';
import { describe, it } from 'node:test';
import { HealthEndpoints, pingCheck, shutdownCheck, type HealthEndpoint } from './health.ts';

/** What a handler wrote: status, headers and body (Node's response, reduced to what serve() uses). */
function recorder(): { res: ServerResponse; out: { code?: number; headers?: Record<string, unknown>; body?: string } } {
  const out: { code?: number; headers?: Record<string, unknown>; body?: string } = {};
  const res = {
    headersSent: false,
    writeHead(code: number, headers: Record<string, unknown>) {
      out.code = code;
      out.headers = headers;
      this.headersSent = true;
    },
    end(body: Buffer) {
      out.body = body.toString();
    },
  };
  return { res: res as unknown as ServerResponse, out };
}

describe('health endpoints as kube-apiserver serves them', () => {
  let stopping = false;
  const failures: string[] = [];
  const health = new HealthEndpoints({ healthz: [pingCheck], livez: [pingCheck], readyz: [pingCheck, shutdownCheck(() => stopping)] }, (endpoint: HealthEndpoint, detail: string) =>
    failures.push(`${endpoint}: ${detail}`),
  );
  const get = (path: string, query = '') => {
    const { res, out } = recorder();
    const target = health.target(path);
    assert.ok(target, `${path} is a health path`);
    health.serve(res, target, new URLSearchParams(query));
    return out;
  };

  it('knows its paths: the endpoints and their checks, nothing else', () => {
    assert.deepEqual(health.target('/readyz'), { endpoint: 'readyz' });
    assert.deepEqual(health.target('/readyz/shutdown'), { endpoint: 'readyz', check: 'shutdown' });
    assert.deepEqual(health.target('/livez/ping'), { endpoint: 'livez', check: 'ping' });
    assert.equal(health.target('/livez/shutdown'), undefined, 'shutdown is a readiness check only');
    assert.equal(health.target('/readyz/nope'), undefined);
    assert.equal(health.target('/readyz/ping/more'), undefined);
    assert.equal(health.target('/metrics'), undefined);
  });

  it('answers ok, or the list of checks with ?verbose', () => {
    const plain = get('/readyz');
    assert.equal(plain.code, 200);
    assert.equal(plain.body, 'ok');
    assert.equal(plain.headers?.['Content-Type'], 'text/plain; charset=utf-8');
    assert.equal(get('/readyz', 'verbose').body, '[+]ping ok\n[+]shutdown ok\nreadyz check passed\n');
    assert.equal(get('/readyz', 'verbose&exclude=shutdown&exclude=etcd').body, '[+]ping ok\n[+]shutdown excluded: ok\nwarn: some health checks cannot be excluded: no matches for "etcd"\nreadyz check passed\n');
  });

  it('fails readyz once shutting down, withholding the reason but logging it; livez still passes', () => {
    stopping = true;
    const ready = get('/readyz');
    assert.equal(ready.code, 500);
    assert.equal(ready.body, '[+]ping ok\n[-]shutdown failed: reason withheld\nreadyz check failed\n');
    assert.deepEqual(failures, ['readyz: [-]shutdown failed: process is shutting down']);
    const single = get('/readyz/shutdown');
    assert.equal(single.code, 500);
    assert.equal(single.body, 'internal server error: process is shutting down\n');
    assert.equal(get('/readyz', 'exclude=shutdown').code, 200, 'an excluded check does not fail the endpoint');
    assert.equal(get('/livez').code, 200);
    assert.equal(get('/healthz').body, 'ok');
  });
});
