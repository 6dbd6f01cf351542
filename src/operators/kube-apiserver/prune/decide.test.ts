import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { NodeStatus } from '../../../api/operator/index.ts';
import { decidePrune, protectedRevisions, revisionLimits, type PruneDecision } from './decide.ts';

const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);
const five = revisionLimits(undefined);

describe('revisionLimits', () => {
  it('reads 0 or unset as 5 and -1 as unlimited', () => {
    assert.deepEqual(revisionLimits(undefined), { failed: 5, succeeded: 5 });
    assert.deepEqual(revisionLimits({ failedRevisionLimit: 0, succeededRevisionLimit: 2 }), { failed: 5, succeeded: 2 });
    assert.deepEqual(revisionLimits({ failedRevisionLimit: -1, succeededRevisionLimit: 1 }), { failed: Infinity, succeeded: 1 });
  });
});

describe('decidePrune', () => {
  const cases: { name: string; latest: number; nodes: NodeStatus[]; limits?: { failedRevisionLimit?: number; succeededRevisionLimit?: number }; existing?: number[]; want: PruneDecision }[] = [
    { name: 'nothing installed yet', latest: 0, nodes: [{ nodeName: 'm0' }], want: { kind: 'keepAll' } },
    { name: 'fewer revisions than the limit', latest: 5, nodes: [{ nodeName: 'm0', currentRevision: 5 }], want: { kind: 'keepAll' } },
    {
      name: 'every node at latest: the last 5 up to it',
      latest: 8,
      nodes: [
        { nodeName: 'm0', currentRevision: 8 },
        { nodeName: 'm1', currentRevision: 8 },
      ],
      want: { kind: 'prune', protectedRevisions: range(4, 8), deleteRevisions: range(1, 3), pruneNodes: ['m0', 'm1'] },
    },
    {
      name: 'a node far behind keeps its own last 5, and the revision it targets',
      latest: 12,
      nodes: [
        { nodeName: 'm0', currentRevision: 12 },
        { nodeName: 'm1', currentRevision: 3, targetRevision: 12 },
      ],
      want: { kind: 'prune', protectedRevisions: [1, 2, 3, ...range(8, 12)], deleteRevisions: range(4, 7), pruneNodes: ['m0', 'm1'] },
    },
    {
      name: 'the last failed revision and the failed limit before it',
      latest: 20,
      limits: { failedRevisionLimit: 2, succeededRevisionLimit: 1 },
      nodes: [
        { nodeName: 'm0', currentRevision: 20 },
        { nodeName: 'm1', currentRevision: 20, lastFailedRevision: 15 },
      ],
      want: { kind: 'prune', protectedRevisions: [14, 15, 20], deleteRevisions: [...range(1, 13), ...range(16, 19)], pruneNodes: ['m0', 'm1'] },
    },
    {
      name: 'a node below latest keeps max(F, S) up to latest; a node with nothing on disk gets no pruner',
      latest: 10,
      limits: { failedRevisionLimit: 3, succeededRevisionLimit: 1 },
      nodes: [
        { nodeName: 'm0', currentRevision: 9 },
        { nodeName: 'm1' },
      ],
      want: { kind: 'prune', protectedRevisions: [8, 9, 10], deleteRevisions: range(1, 7), pruneNodes: ['m0'] },
    },
    {
      name: 'only revisions that exist in the API are deleted',
      latest: 9,
      existing: [2, 6, 7, 8, 9],
      nodes: [{ nodeName: 'm0', currentRevision: 9 }],
      want: { kind: 'prune', protectedRevisions: range(5, 9), deleteRevisions: [2], pruneNodes: ['m0'] },
    },
    { name: 'unlimited succeeded keeps everything', latest: 30, limits: { succeededRevisionLimit: -1 }, nodes: [{ nodeName: 'm0', currentRevision: 30 }], want: { kind: 'keepAll' } },
    {
      name: 'the latest is kept even with no node',
      latest: 7,
      limits: { failedRevisionLimit: 1, succeededRevisionLimit: 1 },
      nodes: [],
      want: { kind: 'prune', protectedRevisions: [7], deleteRevisions: range(1, 6), pruneNodes: [] },
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const got = decidePrune({ latestAvailableRevision: c.latest, nodeStatuses: c.nodes, limits: revisionLimits(c.limits), existingRevisions: c.existing ?? range(1, c.latest) });
      assert.deepEqual(got, c.want);
    });
  }

  it('never deletes a revision a node is at, targets or last failed on, nor the latest', () => {
    const nodes: NodeStatus[] = [
      { nodeName: 'a', currentRevision: 2, targetRevision: 40, lastFailedRevision: 17 },
      { nodeName: 'b', currentRevision: 33 },
    ];
    const keep = protectedRevisions(41, nodes, { failed: 1, succeeded: 1 });
    for (const r of [2, 40, 17, 33, 41]) assert.ok(keep.has(r), `revision ${r}`);
    assert.deepEqual([...keep].sort((x, y) => x - y), [2, 17, 33, 40, 41]);
    assert.deepEqual(five, { failed: 5, succeeded: 5 });
  });
});
