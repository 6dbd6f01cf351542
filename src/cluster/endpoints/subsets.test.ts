import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { V1Pod, V1Service } from '@kubernetes/client-node';
import { desiredSubsets } from './controller.ts';

const svc: V1Service = { metadata: { name: 'web', namespace: 'd' }, spec: { selector: { app: 'web' }, ports: [{ name: 'http', port: 80, targetPort: 'http' as never }] } };
const pod = (name: string, ip: string, ready: boolean): V1Pod => ({
  metadata: { name, namespace: 'd', uid: name },
  spec: { nodeName: 'n1', containers: [{ name: 'c', ports: [{ name: 'http', containerPort: 8080 }] }] },
  status: { phase: 'Running', podIP: ip, conditions: [{ type: 'Ready', status: ready ? 'True' : 'False' }] },
});

describe('endpoints of a Service', () => {
  it('puts ready pods under addresses and the others under notReadyAddresses, resolving named ports', () => {
    const [subset] = desiredSubsets(svc, [pod('a', '127.128.0.3', true), pod('b', '127.128.0.2', false)]);
    assert.deepEqual(subset!.addresses!.map((a) => a.ip), ['127.128.0.3']);
    assert.deepEqual(subset!.notReadyAddresses!.map((a) => a.ip), ['127.128.0.2']);
    assert.deepEqual(subset!.ports, [{ name: 'http', port: 8080, protocol: 'TCP' }]);
  });
  it('leaves out pods without an IP and finished pods', () => {
    const done = { ...pod('c', '127.128.0.4', true), status: { phase: 'Succeeded', podIP: '127.128.0.4' } };
    const noIp = { ...pod('d', '', true), status: { phase: 'Pending' } };
    assert.deepEqual(desiredSubsets(svc, [done, noIp]), []);
  });
});
