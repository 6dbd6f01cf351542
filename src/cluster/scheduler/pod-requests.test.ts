import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { V1Container } from '@kubernetes/client-node';
import { DEFAULT_MEMORY_REQUEST, DEFAULT_MILLI_CPU_REQUEST, podRequests } from './pod-requests.ts';

const c = (requests?: Record<string, string>, extra: Partial<V1Container> = {}): V1Container => ({ name: 'c', resources: requests ? { requests } : undefined, ...extra });
const Mi = 2 ** 20;

describe('pod requests', () => {
  it('sums the containers', () => {
    const r = podRequests({ containers: [c({ cpu: '100m', memory: '64Mi' }), c({ cpu: '0.5', memory: '1Gi' })] });
    assert.deepEqual(r.requests, { milliCpu: 600, memory: 64 * Mi + 1024 * Mi });
  });

  it('takes the largest init container when it exceeds the containers', () => {
    const spec = { initContainers: [c({ cpu: '2' }), c({ memory: '10Mi' })], containers: [c({ cpu: '1', memory: '100Mi' })] };
    assert.deepEqual(podRequests(spec).requests, { milliCpu: 2000, memory: 100 * Mi });
  });

  it('adds sidecars to the containers and to later init containers', () => {
    const spec = {
      initContainers: [c({ cpu: '200m' }, { restartPolicy: 'Always' }), c({ cpu: '1' })],
      containers: [c({ cpu: '300m' })],
    };
    // The second init container runs beside the sidecar: 1000m + 200m beats 300m + 200m.
    assert.deepEqual(podRequests(spec).requests, { milliCpu: 1200, memory: 0 });
    const small = { initContainers: [c({ cpu: '200m' }, { restartPolicy: 'Always' }), c({ cpu: '100m' })], containers: [c({ cpu: '300m' })] };
    assert.deepEqual(podRequests(small).requests, { milliCpu: 500, memory: 0 });
  });

  it('adds the pod overhead', () => {
    assert.deepEqual(podRequests({ containers: [c({ cpu: '1' })], overhead: { cpu: '250m', memory: '120Mi' } }).requests, { milliCpu: 1250, memory: 120 * Mi });
  });

  it('uses limits where requests are missing, as API defaulting would', () => {
    const r = podRequests({ containers: [{ name: 'c', resources: { limits: { cpu: '1', memory: '1Gi' }, requests: { cpu: '100m' } } }] });
    assert.deepEqual(r.requests, { milliCpu: 100, memory: 1024 * Mi });
  });

  it('counts request-less containers with kube\'s defaults for scoring only', () => {
    const r = podRequests({ containers: [c(), c({ cpu: '50m' })] });
    assert.deepEqual(r.requests, { milliCpu: 50, memory: 0 });
    assert.deepEqual(r.nonZero, { milliCpu: DEFAULT_MILLI_CPU_REQUEST + 50, memory: 2 * DEFAULT_MEMORY_REQUEST });
  });
});
