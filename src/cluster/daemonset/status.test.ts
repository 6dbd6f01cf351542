import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { V1Pod } from '@kubernetes/client-node';
import { daemonSetCounts } from './status.ts';
import type { Pod } from './types.ts';

const NOW = Date.parse('2024-06-01T12:00:00Z');
const pod = (hash: string, readyAgoMs?: number, ageMs = 1000): Pod =>
  ({
    metadata: { name: `p${ageMs}`, labels: { 'controller-revision-hash': hash }, creationTimestamp: new Date(NOW - ageMs).toISOString() as unknown as Date },
    status: { conditions: readyAgoMs === undefined ? [] : [{ type: 'Ready', status: 'True', lastTransitionTime: new Date(NOW - readyAgoMs).toISOString() as unknown as Date }] },
  }) as V1Pod as Pod;

describe('DaemonSet status', () => {
  it('counts desired, scheduled, misscheduled, ready, available and updated nodes, judging each by its oldest pod', () => {
    const counts = daemonSetCounts({
      nodes: [
        { name: 'a', shouldRun: true },
        { name: 'b', shouldRun: true },
        { name: 'c', shouldRun: true },
        { name: 'd', shouldRun: false },
      ],
      podsByNode: new Map([
        ['a', [pod('new', 60_000)]],
        // The old pod is older, so it is the one judged.
        ['b', [pod('new', 60_000, 10), pod('old', 2_000, 99_000)]],
        ['d', [pod('new')]],
      ]),
      hash: 'new',
      minReadySeconds: 10,
      nowMs: NOW,
    });
    assert.deepEqual(counts, {
      desiredNumberScheduled: 3,
      currentNumberScheduled: 2,
      numberMisscheduled: 1,
      numberReady: 2,
      numberAvailable: 1,
      updatedNumberScheduled: 1,
      numberUnavailable: 2,
    });
  });
});
