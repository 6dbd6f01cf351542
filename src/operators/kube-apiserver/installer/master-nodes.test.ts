import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { V1Node } from '@kubernetes/client-node';
import { masterNodesCondition } from './master-nodes.ts';

const node = (name: string, ready?: { status: string; reason?: string; message?: string; since?: string }): V1Node =>
  ({
    metadata: { name },
    status: { conditions: ready ? [{ type: 'Ready', status: ready.status, reason: ready.reason, message: ready.message, lastTransitionTime: ready.since }] : [] },
  }) as unknown as V1Node;

describe('NodeControllerDegraded', () => {
  it('False with upstream\'s message when every master is Ready', () => {
    assert.deepEqual(masterNodesCondition([node('m0', { status: 'True' }), node('m1', { status: 'True' })]), { type: 'NodeControllerDegraded', status: 'False', reason: 'MasterNodesReady', message: 'All master nodes are ready' });
  });

  it('True naming each master that is not, since when and why, in name order', () => {
    const c = masterNodesCondition([
      node('m2', { status: 'Unknown', reason: 'NodeStatusUnknown', message: 'Kubelet stopped posting node status.', since: '2026-11-27T10:00:00Z' }),
      node('m0', { status: 'True' }),
      node('m1'),
    ]);
    assert.equal(c.status, 'True');
    assert.equal(c.reason, 'MasterNodesReady');
    assert.equal(c.message, 'The master nodes not ready: node "m1" not ready since unknown because NoReadyCondition (the node has not reported Ready), node "m2" not ready since 2026-11-27T10:00:00Z because NodeStatusUnknown (Kubelet stopped posting node status.)');
  });
});
