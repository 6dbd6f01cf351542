import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { serviceAdmission } from './bootstrap.ts';
import type { KubeObject, ResourceDefinition } from './registry/resource.ts';
import type { ObjectStore } from './registry/store.ts';

const services = { group: '', version: 'v1', resource: 'services', kind: 'Service' } as ResourceDefinition;

/** serviceAdmission reads only the Services already stored. */
function admitWith(existing: KubeObject[]) {
  const store = { list: async () => ({ items: existing }) } as unknown as ObjectStore;
  return (obj: KubeObject) => serviceAdmission(() => store)(services, obj);
}

const svc = (name: string, spec: Record<string, unknown>): KubeObject => ({ apiVersion: 'v1', kind: 'Service', metadata: { name, namespace: 'default' }, spec });

describe('Service admission: ClusterIPs and NodePorts', () => {
  it('allocates a free ClusterIP in 127.64.0.0/16 and a NodePort in 30000-32767', async () => {
    const obj = svc('web', { type: 'NodePort', ports: [{ port: 80 }] });
    await admitWith([])(obj);
    assert.match(obj.spec.clusterIP, /^127\.64\.\d+\.\d+$/);
    assert.notEqual(obj.spec.clusterIP, '127.64.0.1');
    assert.ok(obj.spec.ports[0].nodePort >= 30000 && obj.spec.ports[0].nodePort <= 32767);
  });

  it('refuses a requested ClusterIP that is not an address of the range, naming the field', async () => {
    await assert.rejects(admitWith([])(svc('bad', { clusterIP: '127.64.999.1', ports: [{ port: 80 }] })), (err: Error & { code?: number }) => {
      assert.equal(err.code, 422);
      assert.match(err.message, /^Service "bad" is invalid: spec\.clusterIP: Invalid value: "127\.64\.999\.1"/);
      return true;
    });
  });

  it('answers 422 when every NodePort is taken, instead of searching forever', async () => {
    const taken = Array.from({ length: 2768 }, (_, i) => svc(`s${i}`, { clusterIP: `127.64.1.${(i % 250) + 2}`, ports: [{ port: 80, nodePort: 30000 + i }] }));
    await assert.rejects(admitWith(taken)(svc('one-more', { type: 'NodePort', ports: [{ port: 80 }] })), /spec\.ports\[0\]\.nodePort: .*30000-32767 is full/);
  });
});
