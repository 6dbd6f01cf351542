/**
 * The audit log through a real API server and kubectl: a create and a get are audit lines
 * with the user, verb, objectRef and code; a Secret's data and the bearer token never reach
 * the file; what the policy says None is not logged.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { parseAuditPolicy } from '../../src/apiserver/audit/policy.ts';
import { startTestServer } from '../support/server.ts';

interface AuditLine {
  kind: string;
  apiVersion: string;
  level: string;
  auditID: string;
  stage: string;
  requestURI: string;
  verb: string;
  user: { username?: string; groups?: string[] };
  sourceIPs: string[];
  userAgent?: string;
  objectRef?: Record<string, string>;
  responseStatus: { code: number };
  requestReceivedTimestamp: string;
  stageTimestamp: string;
}

describe('audit log (a real API server)', () => {
  it('records a create and a get with user, verb, objectRef and code, and never a token or a secret', async (t) => {
    const dir = mkdtempSync(join(tmpdir(), 'shipyard-audit-'));
    t.after(() => rmSync(dir, { recursive: true, force: true }));
    const path = join(dir, 'log', 'audit.log');
    const policy = parseAuditPolicy({
      apiVersion: 'audit.k8s.io/v1',
      kind: 'Policy',
      rules: [
        { level: 'None', nonResourceURLs: ['/api*', '/openapi*', '/version'] },
        { level: 'None', resources: [{ group: 'coordination.k8s.io' }, { group: '', resources: ['endpoints', 'services'] }] },
        { level: 'Metadata', resources: [{ group: '', resources: ['configmaps', 'secrets'] }] },
      ],
    });
    const ts = await startTestServer({ audit: { policy, path } });
    let stopped = false;
    t.after(() => (stopped ? undefined : ts.stop()));
    const created = await ts.kubectl(['create', 'configmap', 'audited', '-n', 'default', '--from-literal=k=v']);
    assert.equal(created.code, 0, created.stderr);
    const got = await ts.kubectl(['get', 'configmap', 'audited', '-n', 'default', '-o', 'name']);
    assert.equal(got.code, 0, got.stderr);
    const secret = await ts.kubectl(['create', 'secret', 'generic', 'hush', '-n', 'default', '--from-literal=password=sup3r-s3cret-value']);
    assert.equal(secret.code, 0, secret.stderr);
    const missing = await ts.request('GET', '/api/v1/namespaces/default/configmaps/nope');
    assert.equal(missing.status, 404);
    const anonymous = await ts.request('GET', '/api/v1/namespaces/default/configmaps', { token: null });
    assert.equal(anonymous.status, 401);
    const token = ts.server.adminToken;
    // stop() answers the last request and flushes the log.
    await ts.stop();
    stopped = true;

    const text = readFileSync(path, 'utf8');
    const events = text.split('\n').filter(Boolean).map((l) => JSON.parse(l) as AuditLine);
    assert.ok(!text.includes(token), 'the bearer token is not in the log');
    assert.ok(!text.includes('sup3r-s3cret-value') && !text.includes(Buffer.from('sup3r-s3cret-value').toString('base64')), "the Secret's data is not in the log");
    assert.ok(!/authorization/i.test(text), 'no Authorization header');
    for (const e of events) {
      assert.deepEqual([e.kind, e.apiVersion, e.stage, e.level], ['Event', 'audit.k8s.io/v1', 'ResponseComplete', 'Metadata']);
      assert.match(e.auditID, /^[0-9a-f-]{36}$/);
      assert.deepEqual(e.sourceIPs, ['127.0.0.1']);
      assert.match(e.requestReceivedTimestamp, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
      assert.ok(e.stageTimestamp >= e.requestReceivedTimestamp);
      assert.ok(e.objectRef?.resource === 'configmaps' || e.objectRef?.resource === 'secrets', `only what the policy selects: ${e.requestURI}`);
    }
    const find = (verb: string, resource: string, code: number) => events.find((e) => e.verb === verb && e.objectRef?.resource === resource && e.responseStatus.code === code);
    const create = find('create', 'configmaps', 201);
    assert.ok(create, text);
    assert.equal(create.user.username, 'admin');
    assert.ok(create.user.groups?.includes('system:masters'), JSON.stringify(create.user));
    assert.deepEqual(create.objectRef, { resource: 'configmaps', namespace: 'default', name: 'audited', apiVersion: 'v1' }, 'a create is named by the object it created');
    assert.match(create.requestURI, /^\/api\/v1\/namespaces\/default\/configmaps/);
    assert.match(create.userAgent ?? '', /^kubectl/);
    const get = find('get', 'configmaps', 200);
    assert.ok(get, text);
    assert.equal(get.user.username, 'admin');
    assert.deepEqual(get.objectRef, { resource: 'configmaps', namespace: 'default', name: 'audited', apiVersion: 'v1' });
    assert.ok(find('create', 'secrets', 201), text);
    assert.deepEqual(find('get', 'configmaps', 404)?.objectRef?.name, 'nope');
    const unauthenticated = find('list', 'configmaps', 401);
    assert.ok(unauthenticated, text);
    assert.deepEqual(unauthenticated.user, {});
  });
});
