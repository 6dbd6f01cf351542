import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { servingFrom } from './serving.ts';

describe('servingFrom', () => {
  const infra = { status: { apiServerURL: 'https://127.0.2.1:6443' } };
  const network = { spec: { serviceNetwork: ['127.66.0.0/16'] }, status: { serviceNetwork: ['127.66.0.0/16'] } };

  it('advertises the load balancer\'s URL and serves its host, the kubernetes Service IP and names, and extra names', () => {
    assert.deepEqual(servingFrom(infra, network, ['api.example.test']), {
      advertiseUrl: 'https://127.0.2.1:6443',
      tlsSans: ['127.0.2.1', '127.66.0.1', 'localhost', 'kubernetes', 'kubernetes.default', 'kubernetes.default.svc', 'kubernetes.default.svc.cluster.local', 'api.example.test'],
    });
  });

  it('takes the Network spec when its status is empty', () => {
    assert.equal(servingFrom(infra, { spec: { serviceNetwork: ['127.64.0.0/16'] } }).tlsSans[1], '127.64.0.1');
  });

  it('names the missing or bad field', () => {
    assert.throws(() => servingFrom(undefined, network), /infrastructures\.config\.openshift\.io\/cluster: status\.apiServerURL is not set/);
    assert.throws(() => servingFrom({ status: { apiServerURL: 'not a url' } }, network), /status\.apiServerURL: not a URL/);
    assert.throws(() => servingFrom(infra, { status: {} }), /networks\.config\.openshift\.io\/cluster: status\.serviceNetwork is empty/);
  });
});
