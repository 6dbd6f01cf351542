import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { V1Node, V1Pod } from '@kubernetes/client-node';
import { compileNodeAffinity, nodeAffinity } from './node-affinity.ts';

// The matching rules themselves are tested with api/node-affinity.ts.
const node = (name: string, labels: Record<string, string> = {}): V1Node => ({ metadata: { name, labels } });

describe('NodeAffinity', () => {
  it('refuses with kube-scheduler\'s wording', () => {
    const pod: V1Pod = { spec: { containers: [], nodeSelector: { disk: 'ssd' } } };
    assert.deepEqual(nodeAffinity(compileNodeAffinity(pod), node('n1')), { code: 'UnschedulableAndUnresolvable', reasons: ["node(s) didn't match Pod's node affinity/selector"] });
    assert.equal(nodeAffinity(compileNodeAffinity(pod), node('n1', { disk: 'ssd' })), undefined);
  });

  it('reads both the pod\'s nodeSelector and its required node affinity', () => {
    const pod: V1Pod = {
      spec: { containers: [], nodeSelector: { disk: 'ssd' }, affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'zone', operator: 'In', values: ['a'] }] }] } } } },
    };
    const matches = compileNodeAffinity(pod);
    assert.equal(nodeAffinity(matches, node('n', { zone: 'a', disk: 'ssd' })), undefined);
    assert.notEqual(nodeAffinity(matches, node('n', { zone: 'a' })), undefined);
    assert.notEqual(nodeAffinity(matches, node('n', { disk: 'ssd' })), undefined);
    assert.equal(nodeAffinity(compileNodeAffinity({ spec: { containers: [] } }), node('n')), undefined, 'no selector: any node');
  });
});
