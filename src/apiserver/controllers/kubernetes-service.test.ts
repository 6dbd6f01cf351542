/** The decisions behind the `kubernetes` Service: which replicas are live, and what to repair. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { formatMicroTime } from '../../api/time.ts';
import type { KubeObject } from '../registry/resource.ts';
import { desiredService, desiredSubsets, ENDPOINT_ANNOTATION, IDENTITY_LABEL, leaseName, liveReplicas, repairService } from './kubernetes-service.ts';

const NOW = Date.parse('2026-11-25T12:00:00Z');

function lease(endpoint: string, renewedSecondsAgo: number, o: { duration?: number; label?: string } = {}) {
  return {
    metadata: { name: leaseName(endpoint.split(':')[0]!, Number(endpoint.split(':')[1])), labels: { [IDENTITY_LABEL]: o.label ?? 'kube-apiserver' }, annotations: { [ENDPOINT_ANNOTATION]: endpoint } },
    spec: { leaseDurationSeconds: o.duration ?? 30, renewTime: formatMicroTime(NOW - renewedSecondsAgo * 1000) },
  };
}

describe('kubernetes Service', () => {
  it('counts replicas whose leases are current, and only API-server leases with a loopback endpoint', () => {
    const live = liveReplicas(
      [
        lease('127.1.0.2:6443', 5),
        lease('127.1.0.3:6443', 31),
        lease('127.1.0.4:6443', 29),
        lease('127.1.0.5:6443', 1, { label: 'other' }),
        // Not loopback (a documentation address, RFC 5737): never counted.
        lease('192.0.2.1:6443', 1),
      ],
      NOW,
    );
    assert.deepEqual(live, [{ ip: '127.1.0.2', port: 6443 }, { ip: '127.1.0.4', port: 6443 }]);
  });

  it('names each replica’s lease after its address and port', () => {
    assert.match(leaseName('127.1.0.2', 6443), /^apiserver-[0-9a-f]{16}$/);
    assert.notEqual(leaseName('127.1.0.2', 6443), leaseName('127.1.0.2', 6444));
  });

  it('lists replicas sorted, one subset per port', () => {
    assert.deepEqual(desiredSubsets([{ ip: '127.1.0.9', port: 6443 }, { ip: '127.1.0.2', port: 6443 }, { ip: '127.1.0.3', port: 7443 }]), [
      { addresses: [{ ip: '127.1.0.2' }, { ip: '127.1.0.9' }], ports: [{ name: 'https', port: 6443, protocol: 'TCP' }] },
      { addresses: [{ ip: '127.1.0.3' }], ports: [{ name: 'https', port: 7443, protocol: 'TCP' }] },
    ]);
  });

  it('leaves a right Service alone, fixes an edited one, and re-creates one with another ClusterIP', () => {
    const svc: KubeObject = desiredService(6443);
    svc.metadata = { ...svc.metadata, uid: 'u', resourceVersion: '7' };
    assert.equal(repairService(svc, 6443), 'ok');
    const edited = structuredClone(svc);
    edited.spec.type = 'NodePort';
    edited.spec.ports = [{ name: 'https', port: 8443, protocol: 'TCP', targetPort: 1, nodePort: 30001 }];
    edited.spec.selector = { app: 'x' };
    edited.metadata.labels = { provider: 'someone' };
    const fixed = repairService(edited, 6443);
    assert.ok(typeof fixed === 'object');
    assert.equal(fixed.spec.type, 'ClusterIP');
    assert.deepEqual(fixed.spec.ports, [{ name: 'https', port: 443, protocol: 'TCP', targetPort: 6443 }]);
    assert.equal(fixed.spec.selector, undefined);
    assert.deepEqual(fixed.metadata.labels, { component: 'apiserver', provider: 'kubernetes' });
    assert.equal(fixed.metadata.uid, 'u', 'fixed in place');
    assert.equal(repairService({ ...svc, spec: { ...svc.spec, clusterIP: '127.64.3.3' } }, 6443), 'recreate');
  });

  it('takes a targetPort another live replica listens on as right, so replicas on different ports do not take turns rewriting it', () => {
    const written: KubeObject = desiredService(7443);
    assert.equal(repairService(written, 6443, undefined, [7443, 6443]), 'ok');
    const fixed = repairService(written, 6443, undefined, [6443]);
    assert.ok(typeof fixed === 'object', 'the replica on 7443 is gone: the port is put right');
    assert.equal(fixed.spec.ports[0].targetPort, 6443);
  });
});
