import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseDelegateUrls, ruleFor } from './delegate-urls.ts';
import { parseUpstream } from './proxy.ts';

describe('oauth-proxy delegate URLs', () => {
  it('the longest matching prefix decides; a rule without a resource checks its verb on the path', () => {
    const rules = parseDelegateUrls('{"/": {"verb": "get"}, "/metrics/admin": {"resource": "namespaces", "verb": "get", "namespace": "x"}}');
    assert.deepEqual(ruleFor(rules, '/metrics'), { prefix: '/', verb: 'get' });
    assert.deepEqual(ruleFor(rules, '/metrics/admin/x'), { prefix: '/metrics/admin', verb: 'get', resource: { verb: 'get', resource: 'namespaces', namespace: 'x' } });
    assert.equal(ruleFor(parseDelegateUrls('{"/metrics": {"verb": "get"}}'), '/other'), undefined);
  });

  it('refuses what it cannot check, naming the prefix and field', () => {
    assert.throws(() => parseDelegateUrls('nope'), /--openshift-delegate-urls: not valid JSON/);
    assert.throws(() => parseDelegateUrls('[]'), /must be a JSON object/);
    assert.throws(() => parseDelegateUrls('{"metrics": {"verb": "get"}}'), /prefix "metrics" must start with \//);
    assert.throws(() => parseDelegateUrls('{"/": {"resource": "pods"}}'), /"\/": verb is required/);
    assert.throws(() => parseDelegateUrls('{"/": {"verb": "get", "resourceName": "x"}}'), /unknown field "resourceName"/);
    assert.throws(() => parseDelegateUrls('{"/": {"verb": "get", "namespace": "x"}}'), /"\/": group, namespace, name and subresource need a resource/);
  });

  it('upstreams: a Unix socket or a loopback address, nothing else', () => {
    assert.deepEqual(parseUpstream('unix:///var/run/mcd/metrics.sock'), { socketPath: '/var/run/mcd/metrics.sock' });
    assert.deepEqual(parseUpstream('http://127.1.0.3:8797'), { host: '127.1.0.3', port: 8797 });
    assert.throws(() => parseUpstream('http://192.0.2.1:8797'), /must be unix:\/\/\/path or http:\/\/<127\.x\.y\.z>:<port>/);
    assert.throws(() => parseUpstream('unix://relative.sock'), /must be absolute/);
  });
});
