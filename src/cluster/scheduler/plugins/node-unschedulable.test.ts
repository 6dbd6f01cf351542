import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { V1Node, V1Pod, V1Toleration } from '@kubernetes/client-node';
import { nodeUnschedulable } from './node-unschedulable.ts';

const node = (unschedulable?: boolean): V1Node => ({ metadata: { name: 'n1' }, spec: { unschedulable } });
const pod = (tolerations?: V1Toleration[]): V1Pod => ({ metadata: { name: 'p' }, spec: { containers: [], tolerations } });

describe('NodeUnschedulable', () => {
  it('passes a schedulable node', () => {
    assert.equal(nodeUnschedulable(pod(), node()), undefined);
    assert.equal(nodeUnschedulable(pod(), node(false)), undefined);
  });

  it('refuses a cordoned node with kube-scheduler\'s wording, as unresolvable', () => {
    assert.deepEqual(nodeUnschedulable(pod(), node(true)), { code: 'UnschedulableAndUnresolvable', reasons: ['node(s) were unschedulable'] });
  });

  it('lets a pod that tolerates the unschedulable taint in', () => {
    assert.equal(nodeUnschedulable(pod([{ key: 'node.kubernetes.io/unschedulable', operator: 'Exists', effect: 'NoSchedule' }]), node(true)), undefined);
    assert.equal(nodeUnschedulable(pod([{ operator: 'Exists' }]), node(true)), undefined, 'a wildcard toleration tolerates everything');
  });

  it('is not fooled by a toleration for another effect or key', () => {
    assert.ok(nodeUnschedulable(pod([{ key: 'node.kubernetes.io/unschedulable', operator: 'Exists', effect: 'NoExecute' }]), node(true)));
    assert.ok(nodeUnschedulable(pod([{ key: 'other', operator: 'Exists' }]), node(true)));
  });
});
