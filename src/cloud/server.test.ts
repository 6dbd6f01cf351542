import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { CloudApiError, CloudClient } from '../cloudclient/client.ts';
import { createCloud, type Cloud } from './cloud.ts';
import { startCloudServer, type CloudServer } from './server.ts';
import { tokenPath } from './token.ts';

interface Raw {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: { code?: number; reason?: string; message?: string; field?: string; [k: string]: unknown };
}

function raw(port: number, method: string, path: string, opts: { token?: string; body?: string | Buffer; contentType?: string } = {}): Promise<Raw> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        method,
        path,
        agent: false,
        headers: {
          ...(opts.token ? { Authorization: `Bearer ${opts.token}` } : {}),
          ...(opts.body !== undefined ? { 'Content-Type': opts.contentType ?? 'application/json', 'Content-Length': Buffer.byteLength(opts.body) } : {}),
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: JSON.parse(Buffer.concat(chunks).toString() || '{}') }));
      },
    );
    req.on('error', reject);
    req.end(opts.body);
  });
}

describe('cloud API server', () => {
  let dir: string;
  let cloud: Cloud;
  let server: CloudServer;
  let token: string;
  let client: CloudClient;

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'shipyard-cloud-api-'));
    cloud = await createCloud({ dataDir: dir, hooks: { boot: async () => {}, stop: async () => {} }, bootDelayMs: 0 });
    server = await startCloudServer({ cloud, dataDir: dir, port: 0 });
    token = (await readFile(tokenPath(dir), 'utf8')).trim();
    client = new CloudClient({ url: server.url, token });
  });
  after(async () => {
    await server.close();
    await cloud.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('writes its token into the data directory, readable only by its owner', async () => {
    assert.match(token, /^[A-Za-z0-9_-]{43}$/);
    assert.equal((await stat(tokenPath(dir))).mode & 0o777, 0o600);
    assert.match(server.url, /^http:\/\/127\.0\.0\.1:\d+$/);
  });

  it('answers 401 without a valid bearer token', async () => {
    for (const t of [undefined, 'wrong', `${token}x`]) {
      const res = await raw(server.port, 'GET', '/v1/instances', t ? { token: t } : {});
      assert.equal(res.status, 401);
      assert.equal(res.headers['www-authenticate'], 'Bearer');
      assert.deepEqual(res.body, { code: 401, reason: 'Unauthorized', message: 'a valid bearer token is required' });
    }
    assert.equal((await raw(server.port, 'GET', '/healthz')).status, 200);
    const wrongClient = new CloudClient({ url: server.url, token: 'nope' });
    await assert.rejects(wrongClient.listInstances(), (err: unknown) => err instanceof CloudApiError && err.status === 401 && err.reason === 'Unauthorized');
  });

  it('runs, lists, gets, stops, starts, reboots and terminates instances through the client', async () => {
    const created = await client.runInstance({ name: 'api-node', type: 's.medium', zone: 'local-b', userData: '{"ignition":{"version":"3.4.0"}}', tags: { cluster: 'c1' } });
    assert.equal(created.state, 'pending');
    assert.equal(created.zone, 'local-b');
    assert.equal((created as Record<string, unknown>).userData, undefined, 'user data is never returned');
    await cloud.settled(created.id);
    assert.equal((await client.getInstance(created.id))?.state, 'running');
    assert.deepEqual((await client.listInstances({ name: 'api-node' })).map((i) => i.id), [created.id]);
    assert.deepEqual((await client.listInstances({ tags: { cluster: 'c1' }, state: 'running' })).map((i) => i.id), [created.id]);
    assert.deepEqual(await client.listInstances({ tags: { cluster: 'other' } }), []);
    assert.equal((await client.stopInstance(created.id)).state, 'stopping');
    await cloud.settled(created.id);
    assert.equal((await client.startInstance(created.id)).state, 'pending');
    await cloud.settled(created.id);
    assert.equal((await client.rebootInstance(created.id)).state, 'running');
    await cloud.settled(created.id);
    assert.equal((await client.terminateInstance(created.id)).state, 'shutting-down');
    await cloud.settled(created.id);
    assert.equal((await client.getInstance(created.id))?.state, 'terminated');
    assert.equal(await client.getInstance('i-ffffffffffffffff0'), undefined);
  });

  it('lists zones and instance types', async () => {
    assert.deepEqual((await client.zones()).map((z) => z.name), ['local-a', 'local-b', 'local-c']);
    const types = await client.instanceTypes();
    assert.deepEqual(types.find((t) => t.name === 's.medium'), { name: 's.medium', cpu: 2, memory: '8Gi', memoryMiB: 8192, maxPods: 110 });
    assert.equal(types.find((t) => t.name === 'm6i.xlarge')?.aliasOf, 's.large');
  });

  it('answers bad input with a 4xx that names the problem', async () => {
    const post = (body: string | Buffer, contentType?: string) => raw(server.port, 'POST', '/v1/instances', { token, body, ...(contentType ? { contentType } : {}) });
    const cases: Array<[Promise<Raw>, number, string, RegExp, string?]> = [
      [post('{"name":'), 400, 'BadRequest', /^request body is not valid JSON/],
      [post('"just a string"'), 400, 'BadRequest', /must be a JSON object/],
      [post('{"name":"x","type":"x"}'), 400, 'InvalidParameterValue', /^instance type "x" is unknown/, 'type'],
      [post('{"name":7,"type":"s.small"}'), 400, 'InvalidParameterValue', /^name must be a string$/, 'name'],
      [post('{"name":"x","type":"s.small"}', 'text/plain'), 415, 'UnsupportedMediaType', /must be application\/json/],
      [post(Buffer.alloc(3 * 1024 * 1024, 0x20)), 413, 'PayloadTooLarge', /exceeds/],
      [raw(server.port, 'GET', '/v1/instances?state=melted', { token }), 400, 'InvalidParameterValue', /state "melted" is unknown/, 'state'],
      [raw(server.port, 'GET', '/v1/instances?colour=red', { token }), 400, 'InvalidParameterValue', /unknown query parameter "colour"/, 'colour'],
      [raw(server.port, 'GET', '/v1/instances/i-00000000000000000', { token }), 404, 'InstanceNotFound', /does not exist/],
      [raw(server.port, 'POST', '/v1/instances/i-00000000000000000/explode', { token }), 404, 'NotFound', /unknown action "explode"/],
      [raw(server.port, 'GET', '/v2/things', { token }), 404, 'NotFound', /no route/],
      [raw(server.port, 'PUT', '/v1/instances', { token }), 405, 'MethodNotAllowed', /allowed: GET, POST/],
    ];
    for (const [pending, status, reason, message, field] of cases) {
      const res = await pending;
      assert.equal(res.status, status, `${reason}: ${JSON.stringify(res.body)}`);
      assert.equal(res.body.code, status);
      assert.equal(res.body.reason, reason);
      assert.match(res.body.message ?? '', message);
      if (field) assert.equal(res.body.field, field);
    }
    assert.equal((await raw(server.port, 'GET', '/healthz')).status, 200, 'still serving');
    const dup = await client.runInstance({ name: 'dup', type: 's.small' });
    await assert.rejects(client.runInstance({ name: 'dup', type: 's.small' }), (err: unknown) => err instanceof CloudApiError && err.status === 409 && err.reason === 'NameInUse');
    await cloud.settled(dup.id);
  });

  it('refuses to bind or dial anything but loopback', async () => {
    await assert.rejects(startCloudServer({ cloud, dataDir: dir, host: 'cloud.example' }), /not a loopback address/);
    assert.throws(() => new CloudClient({ url: 'http://cloud.example:6500', token }), /not a loopback address/);
  });
});
