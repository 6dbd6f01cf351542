import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { V1DaemonSet, V1Node, V1PodSpec, V1Taint } from '@kubernetes/client-node';
import { compilePlacement, pinToNode, targetNodeOf, withDefaultTolerations } from './placement.ts';
import type { DaemonSet, Node, Pod } from './types.ts';

const ds = (spec: Partial<V1PodSpec>): DaemonSet => ({ spec: { selector: {}, template: { spec: { containers: [], ...spec } } } }) as V1DaemonSet as DaemonSet;
const node = (name: string, labels: Record<string, string> = {}, taints: V1Taint[] = []): Node => ({ metadata: { name, labels }, spec: { taints } }) as V1Node as Node;
const fit = (d: DaemonSet, n: Node) => {
  const f = compilePlacement(d)(n);
  return [f.shouldRun, f.shouldContinueRunning];
};

describe('DaemonSet placement', () => {
  it('runs where nodeSelector and required node affinity match', () => {
    const d = ds({
      nodeSelector: { role: 'worker' },
      affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'zone', operator: 'In', values: ['a', 'b'] }] }, { matchFields: [{ key: 'metadata.name', operator: 'In', values: ['special'] }] }] } } },
    });
    assert.deepEqual(fit(d, node('n1', { role: 'worker', zone: 'a' })), [true, true]);
    assert.deepEqual(fit(d, node('n2', { role: 'worker', zone: 'c' })), [false, false]);
    assert.deepEqual(fit(d, node('special', { role: 'worker' })), [true, true]);
    assert.deepEqual(fit(d, node('n3', { role: 'infra', zone: 'a' })), [false, false]);
  });

  it('keeps off NoSchedule taints it does not tolerate but lets a running pod stay; NoExecute evicts', () => {
    const d = ds({ tolerations: [{ key: 'gpu', operator: 'Exists' }] });
    assert.deepEqual(fit(d, node('a', {}, [{ key: 'dedicated', value: 'db', effect: 'NoSchedule' }])), [false, true]);
    assert.deepEqual(fit(d, node('b', {}, [{ key: 'maintenance', effect: 'NoExecute' }])), [false, false]);
    assert.deepEqual(fit(d, node('c', {}, [{ key: 'gpu', value: 'x', effect: 'NoExecute' }])), [true, true]);
    assert.deepEqual(fit(d, node('d', {}, [{ key: 'soft', effect: 'PreferNoSchedule' }])), [true, true]);
  });

  it('tolerates what kube tolerates for every daemon: not ready, unreachable, pressure, cordoned', () => {
    const taints = ['not-ready:NoExecute', 'unreachable:NoExecute', 'disk-pressure:NoSchedule', 'memory-pressure:NoSchedule', 'pid-pressure:NoSchedule', 'unschedulable:NoSchedule'].map((s) => {
      const [k, effect] = s.split(':');
      return { key: `node.kubernetes.io/${k}`, effect } as V1Taint;
    });
    assert.deepEqual(fit(ds({}), node('sick', {}, taints)), [true, true]);
    const netDown = node('net', {}, [{ key: 'node.kubernetes.io/network-unavailable', effect: 'NoSchedule' }]);
    assert.deepEqual(fit(ds({}), netDown), [false, true]);
    assert.deepEqual(fit(ds({ hostNetwork: true }), netDown), [true, true]);
  });

  it('honours a template pinned to one node by nodeName', () => {
    assert.deepEqual(fit(ds({ nodeName: 'x' }), node('y')), [false, false]);
    assert.deepEqual(fit(ds({ nodeName: 'x' }), node('x')), [true, true]);
  });

  it('adds the default tolerations once, replacing an equal one', () => {
    const t = withDefaultTolerations([{ key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 }, { key: 'gpu', operator: 'Exists' }], false);
    assert.equal(t.length, 7);
    assert.deepEqual(t[0], { key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute' });
    assert.deepEqual(withDefaultTolerations(t, false), t);
  });
});

describe('pinning a pod to its node', () => {
  it('replaces required node affinity with metadata.name, and reads it back', () => {
    const affinity = pinToNode({ nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'a', operator: 'Exists' }] }] } }, podAntiAffinity: {} }, 'n7');
    assert.deepEqual(affinity.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution, { nodeSelectorTerms: [{ matchFields: [{ key: 'metadata.name', operator: 'In', values: ['n7'] }] }] });
    assert.deepEqual(affinity.podAntiAffinity, {});
    assert.equal(targetNodeOf({ spec: { containers: [], affinity } } as Pod), 'n7');
    assert.equal(targetNodeOf({ spec: { containers: [], affinity, nodeName: 'bound' } } as Pod), 'bound');
    assert.equal(targetNodeOf({ spec: { containers: [] } } as Pod), undefined);
  });
});
