/**
 * Security by default: the server speaks only TLS, refuses requests without a valid token,
 * keeps its keys and tokens private on disk, and never writes tokens or Secret contents to
 * its logs, even at debug level and when requests fail.
 */
import assert from 'node:assert/strict';
import { statSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import pino from 'pino';
import { startTestServer, type TestServer } from '../support/server.ts';

describe('security by default', () => {
  let ts: TestServer;
  let logged = '';
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      logged += chunk.toString();
      done();
    },
  });

  before(async () => {
    ts = await startTestServer({ logger: pino({ level: 'debug' }, sink) });
  });
  after(async () => {
    await ts.stop();
  });

  it('answers plain HTTP on its port with no API response', async () => {
    const url = new URL(ts.server.url);
    const outcome = await new Promise<string>((resolve) => {
      const req = httpRequest({ host: url.hostname, port: url.port, path: '/api/v1/namespaces', method: 'GET' }, (res) => {
        res.resume();
        resolve(`status ${res.statusCode}`);
      });
      req.on('error', (e) => resolve(`error ${e.message}`));
      req.setTimeout(5000, () => req.destroy(new Error('timeout')));
      req.end();
    });
    assert.ok(!/status 200/.test(outcome), `plain HTTP must not be served: ${outcome}`);
  });

  it('keeps keys, tokens and the kubeconfig readable by the owner only', () => {
    for (const f of ['pki/ca.key', 'pki/apiserver.key', 'pki/tokens.csv', 'kubeconfig']) {
      assert.equal(statSync(join(ts.dataDir, f)).mode & 0o077, 0, `${f} must not be readable by group or others`);
    }
  });

  it('never logs the token or Secret data', async () => {
    const secretValue = 'sup3r-s3cret-value-9f1c';
    const create = await ts.request('POST', '/api/v1/namespaces/default/secrets', {
      body: JSON.stringify({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 'db' }, stringData: { password: secretValue } }),
      contentType: 'application/json',
    });
    assert.equal(create.status, 201, create.body);
    const stored = JSON.parse(create.body) as { data: { password: string } };
    assert.equal(Buffer.from(stored.data.password, 'base64').toString(), secretValue, 'stringData is folded into data');
    // Failing requests too: a bad token, and an invalid Secret that echoes nothing of its value.
    assert.equal((await ts.request('GET', '/api/v1/namespaces/default/secrets/db', { token: `${ts.server.adminToken}x` })).status, 401);
    const bad = await ts.request('POST', '/api/v1/namespaces/default/secrets', {
      body: JSON.stringify({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 'bad' }, data: { password: `${secretValue}!!` } }),
      contentType: 'application/json',
    });
    assert.equal(bad.status, 422, bad.body);
    assert.ok(!bad.body.includes(secretValue), 'the error must not echo the secret value');
    await ts.kubectl(['get', 'secrets', '-o', 'yaml']);
    assert.ok(logged.includes('"msg":"request"'), 'debug request logging was on');
    assert.ok(!logged.includes(ts.server.adminToken), 'the admin token appeared in the log');
    assert.ok(!logged.includes(secretValue) && !logged.includes(Buffer.from(secretValue).toString('base64')), 'Secret data appeared in the log');
  });
});
