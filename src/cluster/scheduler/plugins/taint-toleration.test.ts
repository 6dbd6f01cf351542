import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { V1Node, V1Pod, V1Taint, V1Toleration } from '@kubernetes/client-node';
import { taintToleration } from './taint-toleration.ts';

const node = (...taints: V1Taint[]): V1Node => ({ metadata: { name: 'n1' }, spec: { taints } });
const pod = (...tolerations: V1Toleration[]): V1Pod => ({ spec: { containers: [], tolerations } });
const gpu: V1Taint = { key: 'dedicated', value: 'gpu', effect: 'NoSchedule' };

describe('TaintToleration', () => {
  it('names the first untolerated NoSchedule/NoExecute taint as kube 1.32 does', () => {
    assert.deepEqual(taintToleration(pod(), node(gpu)), { code: 'UnschedulableAndUnresolvable', reasons: ['node(s) had untolerated taint {dedicated: gpu}'] });
    assert.deepEqual(taintToleration(pod(), node({ key: 'node.kubernetes.io/not-ready', effect: 'NoExecute' }))?.reasons, ['node(s) had untolerated taint {node.kubernetes.io/not-ready: }']);
    const second: V1Taint = { key: 'b', value: '2', effect: 'NoExecute' };
    assert.deepEqual(taintToleration(pod({ key: 'dedicated', value: 'gpu' }), node(gpu, second))?.reasons, ['node(s) had untolerated taint {b: 2}']);
  });

  it('ignores PreferNoSchedule, which only steers scoring', () => {
    assert.equal(taintToleration(pod(), node({ key: 'soft', effect: 'PreferNoSchedule' })), undefined);
  });

  it('passes tolerated taints', () => {
    assert.equal(taintToleration(pod({ key: 'dedicated', operator: 'Equal', value: 'gpu', effect: 'NoSchedule' }), node(gpu)), undefined);
    assert.equal(taintToleration(pod({ key: 'dedicated', operator: 'Exists' }), node(gpu)), undefined);
  });
});
