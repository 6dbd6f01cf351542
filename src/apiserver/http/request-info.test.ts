import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ApiError } from '../errors.ts';
import { parseRequestInfo } from './request-info.ts';

const q = (s = '') => new URLSearchParams(s);

describe('parseRequestInfo', () => {
  const cases: Array<[method: string, path: string, query: string, expected: object]> = [
    ['GET', '/api/v1/namespaces/default/pods', '', { kind: 'resource', group: '', version: 'v1', namespace: 'default', resource: 'pods', verb: 'list' }],
    ['GET', '/api/v1/namespaces/default/pods', 'watch=true', { kind: 'resource', resource: 'pods', verb: 'watch' }],
    ['GET', '/api/v1/namespaces/default/pods/web', '', { kind: 'resource', namespace: 'default', name: 'web', verb: 'get' }],
    ['POST', '/api/v1/namespaces/default/pods/web/eviction', '', { kind: 'resource', name: 'web', subresource: 'eviction', verb: 'create' }],
    ['DELETE', '/apis/apps/v1/namespaces/x/deployments', '', { kind: 'resource', group: 'apps', resource: 'deployments', verb: 'deletecollection' }],
    ['PATCH', '/apis/apps/v1/namespaces/x/deployments/web/scale', '', { kind: 'resource', group: 'apps', name: 'web', subresource: 'scale', verb: 'patch' }],
    // The namespace itself and its subresources are cluster-scoped requests.
    ['GET', '/api/v1/namespaces/kube-system', '', { kind: 'resource', namespace: undefined, resource: 'namespaces', name: 'kube-system', verb: 'get' }],
    ['PUT', '/api/v1/namespaces/x/finalize', '', { kind: 'resource', namespace: undefined, resource: 'namespaces', name: 'x', subresource: 'finalize', verb: 'update' }],
    ['PUT', '/api/v1/namespaces/x/status', '', { kind: 'resource', namespace: undefined, resource: 'namespaces', name: 'x', subresource: 'status' }],
    ['GET', '/api/v1/nodes/n1/status', '', { kind: 'resource', resource: 'nodes', name: 'n1', subresource: 'status' }],
    ['GET', '/apis/example.com/v1/widgets', '', { kind: 'resource', group: 'example.com', resource: 'widgets', verb: 'list' }],
    ['GET', '/api', '', { kind: 'discovery', legacy: true }],
    ['GET', '/apis', '', { kind: 'discovery', legacy: false }],
    ['GET', '/apis/apps', '', { kind: 'discovery', group: 'apps' }],
    ['GET', '/apis/apps/v1', '', { kind: 'discovery', group: 'apps', version: 'v1' }],
    ['GET', '/healthz', '', { kind: 'nonresource', path: '/healthz' }],
  ];
  for (const [method, path, query, expected] of cases) {
    it(`${method} ${path}${query ? `?${query}` : ''}`, () => {
      const info = parseRequestInfo(method, path, q(query));
      for (const [k, v] of Object.entries(expected)) assert.equal((info as unknown as Record<string, unknown>)[k], v, k);
    });
  }

  it('refuses extra segments after a subresource and unknown methods', () => {
    assert.throws(() => parseRequestInfo('GET', '/api/v1/namespaces/d/pods/p/log/extra', q()), (e) => e instanceof ApiError && e.code === 400);
    assert.throws(() => parseRequestInfo('TRACE', '/api/v1/pods', q()), (e) => e instanceof ApiError && e.code === 405);
    assert.throws(() => parseRequestInfo('GET', '/api/v1/namespaces/%E0%A4%A', q()), (e) => e instanceof ApiError && e.code === 400);
  });
});
