import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { V1Pod } from '@kubernetes/client-node';
import type { ApiClient } from '../runtime/client.ts';
import { expand, expandArgs, fieldValue, resolveEnv, resourceFieldValue } from './env.ts';

const pod: V1Pod = { metadata: { name: 'web-1', namespace: 'shop', uid: 'u-1', labels: { app: 'web' }, annotations: { team: 'a' } }, spec: { containers: [{ name: 'c', resources: { requests: { cpu: '250m', memory: '64Mi' } } }] } };
const deps = { podIP: '127.128.3.7', hostIP: '127.1.0.4', nodeName: 'worker-0' };

describe('container environment', () => {
  it('expands $(VAR) as Kubernetes does: known names replaced, unknown kept, $$ escapes', () => {
    assert.equal(expand('$(A)-$(B)-$$(A)', { A: 'x' }), 'x-$(B)-$(A)');
    assert.deepEqual(expandArgs(['--bind-address=$(HOST_IP)', 'plain'], { HOST_IP: '127.1.0.1' }), ['--bind-address=127.1.0.1', 'plain']);
  });
  it('resolves downward-API fields, including the pod IP and the node name', () => {
    assert.equal(fieldValue(pod, 'status.podIP', deps), '127.128.3.7');
    assert.equal(fieldValue(pod, 'status.hostIP', deps), '127.1.0.4');
    assert.equal(fieldValue(pod, 'spec.nodeName', deps), 'worker-0');
    assert.equal(fieldValue(pod, "metadata.labels['app']", deps), 'web');
    assert.equal(fieldValue(pod, 'metadata.namespace', deps), 'shop');
    assert.equal(fieldValue(pod, 'spec.unknownField', deps), undefined);
  });
  it("gives every container the pod's hostname as HOSTNAME, as a container runtime does; the pod's own env wins", async () => {
    const noClient = {} as ApiClient;
    const container = pod.spec!.containers[0]!;
    assert.equal((await resolveEnv(pod, container, { ...deps, client: noClient })).HOSTNAME, 'web-1');
    const named: V1Pod = { ...pod, spec: { ...pod.spec!, hostname: 'db' } };
    assert.equal((await resolveEnv(named, container, { ...deps, client: noClient })).HOSTNAME, 'db');
    const own = { ...container, env: [{ name: 'HOSTNAME', value: 'mine' }] };
    assert.equal((await resolveEnv(pod, own, { ...deps, client: noClient })).HOSTNAME, 'mine');
  });
  it('resolves resource fields with a divisor', () => {
    assert.equal(resourceFieldValue(pod.spec!.containers[0]!, 'requests.cpu', '1m'), '250');
    assert.equal(resourceFieldValue(pod.spec!.containers[0]!, 'requests.cpu'), '1');
    assert.equal(resourceFieldValue(pod.spec!.containers[0]!, 'requests.memory', '1Mi'), '64');
  });
});
