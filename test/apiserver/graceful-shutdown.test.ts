/**
 * Graceful termination of an API server replica (issue 17, item 6), in process: through the
 * shutdown delay `/readyz` fails while everything else is served (new connections too, each
 * response with `Connection: close`) and watches keep streaming; after it the listener closes,
 * watches end cleanly with a bookmark of how far they got, and a request in flight is answered
 * before the server stops. No duration is asserted: the delay is either far longer than the
 * test or zero, and each step is waited for as a condition.
 */
import assert from 'node:assert/strict';
import type { IncomingMessage } from 'node:http';
import { request } from 'node:https';
import { connect } from 'node:net';
import { describe, it } from 'node:test';
import { startTestServer, type TestServer } from '../support/server.ts';
import { until } from '../support/until.ts';

interface WatchStream {
  readonly lines: string[];
  /** Resolves when the stream ends: `clean` when the response completed, false when cut. */
  readonly ended: Promise<{ clean: boolean }>;
  readonly headers: IncomingMessage['headers'];
}

function openWatch(ts: TestServer, path: string): Promise<WatchStream> {
  return new Promise((resolve, reject) => {
    const req = request(ts.server.url + path, { headers: { authorization: `Bearer ${ts.server.adminToken}` }, ca: ts.server.caCertPem, agent: false }, (res) => {
      const lines: string[] = [];
      let buffered = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        buffered += chunk;
        const parts = buffered.split('\n');
        buffered = parts.pop()!;
        lines.push(...parts.filter(Boolean));
      });
      const ended = new Promise<{ clean: boolean }>((done) => {
        res.on('end', () => done({ clean: res.complete }));
        res.on('aborted', () => done({ clean: false }));
        res.on('error', () => done({ clean: false }));
      });
      resolve({ lines, ended, headers: res.headers });
    });
    req.on('error', reject);
    req.end();
  });
}

/** Whether a new TCP connection to the server is refused (its listener closed). */
function refused(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = connect({ host: '127.0.0.1', port });
    s.once('connect', () => {
      s.destroy();
      resolve(false);
    });
    s.once('error', () => resolve(true));
  });
}

const configMap = (name: string) => JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { k: 'v' } });

describe('API server graceful shutdown', () => {
  it('through the shutdown delay: /readyz fails, /livez passes, requests and watches are served, each response closes its connection', async (t) => {
    // Far longer than the test: close() ends it.
    const ts = await startTestServer({ shutdown: { delayMs: 10 * 60_000 } });
    t.after(() => ts.stop());
    const watch = await openWatch(ts, '/api/v1/namespaces/default/configmaps?watch=true&allowWatchBookmarks=true');
    assert.equal((await ts.request('GET', '/readyz')).status, 200);

    const shutdown = ts.server.shutdown();
    let shutdownDone = false;
    void shutdown.then(() => (shutdownDone = true));

    const ready = await ts.request('GET', '/readyz', { token: null });
    assert.equal(ready.status, 500);
    assert.match(ready.body, /^\[-\]shutdown failed: reason withheld$/m);
    assert.match(ready.body, /readyz check failed\n$/);
    const why = await ts.request('GET', '/readyz/shutdown');
    assert.equal(why.status, 500);
    assert.equal(why.body, 'internal server error: process is shutting down\n');
    const live = await ts.request('GET', '/livez', { token: null });
    assert.equal(live.status, 200);
    assert.equal(live.body, 'ok');

    const got = await ts.request('GET', '/api/v1/namespaces/default');
    assert.equal(got.status, 200, 'the API is served through the delay');
    assert.equal(got.headers.connection, 'close', 'a kept-alive client moves to a new connection, which the load balancer sends elsewhere');
    const created = await ts.request('POST', '/api/v1/namespaces/default/configmaps', { body: configMap('during-delay'), contentType: 'application/json' });
    assert.equal(created.status, 201, created.body);
    await until('the watch opened before the shutdown to see the create', () => watch.lines.some((l) => l.includes('"during-delay"')));
    assert.equal(await refused(ts.server.port), false, 'new connections are still accepted');
    assert.equal(shutdownDone, false);

    await ts.server.close();
    await shutdown;
  });

  it('after the delay: the listener closes, watches end cleanly with a bookmark, an in-flight request is answered, then the server stops', async (t) => {
    const ts = await startTestServer({ shutdown: { delayMs: 0 } });
    t.after(() => ts.stop());
    const watch = await openWatch(ts, '/api/v1/namespaces/default/configmaps?watch=true&allowWatchBookmarks=true');
    assert.equal(watch.headers.connection, 'close', 'a watch has its connection to itself, so its client re-watches on a new one');
    assert.equal((await ts.request('POST', '/api/v1/namespaces/default/configmaps', { body: configMap('before'), contentType: 'application/json' })).status, 201);
    await until('the watch to see the create', () => watch.lines.some((l) => l.includes('"before"')));

    // A create whose body is half sent: in flight until the test sends the rest. The server's
    // 100 Continue says its handler has the request.
    const body = configMap('in-flight');
    const half = Math.floor(body.length / 2);
    const inFlight = request(ts.server.url + '/api/v1/namespaces/default/configmaps', {
      method: 'POST',
      agent: false,
      ca: ts.server.caCertPem,
      headers: { authorization: `Bearer ${ts.server.adminToken}`, 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)), expect: '100-continue' },
    });
    const answered = new Promise<{ status: number; connection: string | undefined; body: string }>((resolve, reject) => {
      inFlight.on('response', (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (text += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, connection: res.headers.connection, body: text }));
      });
      inFlight.on('error', reject);
    });
    inFlight.flushHeaders();
    await new Promise<void>((resolve) => inFlight.once('continue', () => resolve()));
    inFlight.write(body.slice(0, half));

    let shutdownDone = false;
    const shutdown = ts.server.shutdown().then(() => (shutdownDone = true));
    await until('the listener to close', () => refused(ts.server.port));
    const end = await watch.ended;
    assert.equal(end.clean, true, 'the watch response ends, not cut');
    const last = JSON.parse(watch.lines.at(-1)!) as { type: string; object: { metadata: { resourceVersion: string } } };
    assert.equal(last.type, 'BOOKMARK', 'the last event says how far the watch got');
    assert.ok(Number(last.object.metadata.resourceVersion) > 0);
    assert.equal(shutdownDone, false, 'the server waits for the request in flight');

    inFlight.end(body.slice(half));
    const res = await answered;
    assert.equal(res.status, 201, res.body);
    assert.equal((JSON.parse(res.body) as { metadata: { name: string } }).metadata.name, 'in-flight');
    assert.equal(res.connection, 'close');
    await shutdown;
  });
});
