import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { V1Node } from '@kubernetes/client-node';
import type { Machine, MachineSet } from '../../../api/machine/index.ts';
import { formatTimestamp } from '../../../api/time.ts';
import { availableInMs, machineSetStatus, type Node } from './status.ts';

const NOW = Date.parse('2024-06-01T12:00:00Z');
const SET_LABEL = 'machine.openshift.io/cluster-api-machineset';

function set(o: { minReadySeconds?: number; generation?: number } = {}): MachineSet {
  return {
    metadata: { name: 'w', namespace: 'ns', uid: 'u-w', ...(o.generation !== undefined ? { generation: o.generation } : {}) },
    spec: {
      replicas: 3,
      ...(o.minReadySeconds !== undefined ? { minReadySeconds: o.minReadySeconds } : {}),
      selector: { matchLabels: { [SET_LABEL]: 'w' }, matchExpressions: [{ key: 'tier', operator: 'In', values: ['b', 'a'] }] },
      template: { metadata: { labels: { [SET_LABEL]: 'w', tier: 'a', extra: 'x' } }, spec: {} },
    },
    status: { errorReason: 'kept', replicas: 9 },
  };
}

function machine(name: string, labels: Record<string, string>, nodeName?: string): Machine {
  return { metadata: { name, namespace: 'ns', labels }, spec: {}, status: nodeName ? { nodeRef: { kind: 'Node', name: nodeName } } : {} };
}

function node(name: string, ready: 'True' | 'False' | 'Unknown' | undefined, sinceMs = NOW - 3600_000): V1Node {
  return { metadata: { name }, status: { conditions: ready ? [{ type: 'Ready', status: ready, lastTransitionTime: formatTimestamp(sinceMs) as never }] : [] } };
}

const lookup = (nodes: V1Node[]) => (name: string): Node | undefined => nodes.find((n) => n.metadata?.name === name);

describe('machineSetStatus', () => {
  const full = { [SET_LABEL]: 'w', tier: 'a', extra: 'x' };
  const partial = { [SET_LABEL]: 'w', tier: 'a' };

  it('counts replicas, fully labeled, ready and available; writes the selector string and the generation', () => {
    const machines = [machine('m1', full, 'n1'), machine('m2', partial, 'n2'), machine('m3', full, 'gone'), machine('m4', full)];
    const { status, nextAvailableInMs } = machineSetStatus(set({ generation: 4 }), machines, lookup([node('n1', 'True'), node('n2', 'False')]), NOW);
    assert.deepEqual(status, {
      replicas: 4,
      fullyLabeledReplicas: 3,
      readyReplicas: 1,
      availableReplicas: 1,
      labelSelector: `${SET_LABEL}=w,tier in (a,b)`,
      observedGeneration: 4,
    });
    assert.equal(nextAvailableInMs, undefined);
  });

  it('leaves the status fields it does not own to their writers', () => {
    const { status } = machineSetStatus(set(), [], lookup([]), NOW);
    assert.equal('errorReason' in status, false);
    assert.equal(status.replicas, 0);
  });

  it('a Node Ready for less than minReadySeconds is ready, not available, and says when it will be', () => {
    const machines = [machine('m1', full, 'n1'), machine('m2', full, 'n2'), machine('m3', full, 'n3')];
    const nodes = [node('n1', 'True', NOW - 60_000), node('n2', 'True', NOW - 10_000), node('n3', 'True', NOW - 25_000)];
    const { status, nextAvailableInMs } = machineSetStatus(set({ minReadySeconds: 30 }), machines, lookup(nodes), NOW);
    assert.equal(status.readyReplicas, 3);
    assert.equal(status.availableReplicas, 1);
    // n3 goes first: 5 s to go, plus the millisecond that makes "ready since + 30 s" strictly past.
    assert.equal(nextAvailableInMs, 5001);
    const later = machineSetStatus(set({ minReadySeconds: 30 }), machines, lookup(nodes), NOW + nextAvailableInMs!);
    assert.equal(later.status.availableReplicas, 2);
    assert.equal(later.nextAvailableInMs, 15_000);
  });
});

describe('availableInMs', () => {
  it('is 0 without minReadySeconds, undefined for a Node not Ready', () => {
    assert.equal(availableInMs(node('n', 'True', NOW), 0, NOW), 0);
    assert.equal(availableInMs(node('n', 'Unknown'), 10, NOW), undefined);
    assert.equal(availableInMs(undefined, 10, NOW), undefined);
  });

  it('is strict at the boundary, as upstream: not available at exactly minReadySeconds', () => {
    assert.equal(availableInMs(node('n', 'True', NOW - 10_000), 10, NOW), 1);
    assert.equal(availableInMs(node('n', 'True', NOW - 10_001), 10, NOW), 0);
  });
});
