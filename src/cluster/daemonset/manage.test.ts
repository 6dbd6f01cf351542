import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { V1DaemonSet, V1Pod } from '@kubernetes/client-node';
import { allowsSurge, decideNode, type NodeInput } from './manage.ts';
import type { DaemonSet, Pod } from './types.ts';

const NOW = Date.parse('2024-06-01T12:00:00Z');
let seq = 0;
function pod(name: string, o: { hash?: string; ready?: boolean; phase?: string; deleting?: boolean; age?: number } = {}): Pod {
  return {
    metadata: {
      name,
      labels: { 'controller-revision-hash': o.hash ?? 'new' },
      creationTimestamp: new Date(NOW - (o.age ?? 1000 + seq++)).toISOString() as unknown as Date,
      deletionTimestamp: o.deleting ? (new Date(NOW).toISOString() as unknown as Date) : undefined,
    },
    status: { phase: o.phase ?? 'Running', conditions: o.ready ? [{ type: 'Ready', status: 'True', lastTransitionTime: new Date(NOW - 60_000).toISOString() as unknown as Date }] : [] },
  } as V1Pod as Pod;
}
const input = (pods: Pod[], o: Partial<NodeInput> = {}): NodeInput => ({ fit: { shouldRun: true, shouldContinueRunning: true }, pods, hash: 'new', surge: false, minReadySeconds: 0, nowMs: NOW, inBackoff: false, ...o });
const deleted = (d: ReturnType<typeof decideNode>) => d.delete.map((p) => p.metadata?.name);

describe('decideNode', () => {
  it('creates where a pod should run and none is', () => {
    assert.equal(decideNode(input([])).create, true);
    assert.equal(decideNode(input([], { fit: { shouldRun: false, shouldContinueRunning: true } })).create, false);
  });

  it('removes pods from a node where none may stay, except those already going', () => {
    const d = decideNode(input([pod('a'), pod('b', { deleting: true })], { fit: { shouldRun: false, shouldContinueRunning: false } }));
    assert.deepEqual(deleted(d), ['a']);
  });

  it('keeps only the oldest pod without surge, and waits for a deleting one to go', () => {
    assert.deepEqual(deleted(decideNode(input([pod('young', { age: 10 }), pod('old', { age: 99_000 })]))), ['young']);
    const going = decideNode(input([pod('going', { deleting: true })]));
    assert.deepEqual([going.create, going.delete.length], [false, 0]);
  });

  it('replaces failed pods, unless the node is in backoff', () => {
    const d = decideNode(input([pod('crashed', { phase: 'Failed' })]));
    assert.deepEqual([deleted(d), d.failed.length, d.create], [['crashed'], 1, false]);
    const held = decideNode(input([pod('crashed', { phase: 'Failed' })], { inBackoff: true }));
    assert.deepEqual([held.delete.length, held.backedOff], [0, true]);
  });

  it('with surge, keeps old and new side by side until the new one is available', () => {
    const waiting = decideNode(input([pod('old', { hash: 'old', ready: true, age: 99_000 }), pod('new', { age: 10 })], { surge: true }));
    assert.deepEqual(deleted(waiting), []);
    const done = decideNode(input([pod('old', { hash: 'old', ready: true, age: 99_000 }), pod('new', { ready: true, age: 10 })], { surge: true }));
    assert.deepEqual(deleted(done), ['old']);
    const oldBroken = decideNode(input([pod('old', { hash: 'old', age: 99_000 }), pod('new', { age: 10 })], { surge: true }));
    assert.deepEqual(deleted(oldBroken), ['old']);
    const replacement = decideNode(input([pod('going', { deleting: true })], { surge: true }));
    assert.equal(replacement.create, true, 'with surge a replacement need not wait for the deleting pod');
  });

  it('allows surge only for RollingUpdate with a non-zero maxSurge', () => {
    const d = (strategy: object) => ({ spec: { updateStrategy: strategy } }) as V1DaemonSet as DaemonSet;
    assert.equal(allowsSurge(d({ type: 'RollingUpdate', rollingUpdate: { maxSurge: '10%' } })), true);
    assert.equal(allowsSurge(d({ type: 'RollingUpdate', rollingUpdate: { maxSurge: 0 } })), false);
    assert.equal(allowsSurge(d({ type: 'OnDelete' })), false);
  });
});
