import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { OwnershipGraph, type ObservedObject } from './graph.ts';

const obj = (uid: string, owners: Array<{ uid: string; block?: boolean }> = [], extra: { deleting?: string[] } = {}): ObservedObject => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: {
    uid,
    name: `cm-${uid}`,
    namespace: 'ns',
    ownerReferences: owners.map((o) => ({ uid: o.uid, apiVersion: 'apps/v1', kind: 'ReplicaSet', name: `rs-${o.uid}`, blockOwnerDeletion: o.block })),
    ...(extra.deleting ? { deletionTimestamp: '2026-11-25T00:00:00Z', finalizers: extra.deleting } : {}),
  },
});

describe('OwnershipGraph', () => {
  it('an owner known only from a reference is virtual and is checked once', () => {
    const g = new OwnershipGraph();
    assert.deepEqual(g.observe(obj('d1', [{ uid: 'o1' }])).attemptToDelete, ['o1']);
    assert.equal(g.get('o1')?.observed, false);
    assert.deepEqual(g.get('o1')?.identity, { apiVersion: 'apps/v1', kind: 'ReplicaSet', namespace: 'ns', name: 'rs-o1' });
    // A second dependent of the same owner does not ask again.
    assert.deepEqual(g.observe(obj('d2', [{ uid: 'o1' }])).attemptToDelete, []);
    g.observe({ apiVersion: 'apps/v1', kind: 'ReplicaSet', metadata: { uid: 'o1', name: 'rs-o1', namespace: 'ns' } });
    assert.equal(g.get('o1')?.observed, true);
    assert.deepEqual([...g.get('o1')!.dependents].sort(), ['d1', 'd2']);
  });

  it('deleting an owner queues its dependents and keeps it as a virtual node while they reference it', () => {
    const g = new OwnershipGraph();
    g.observe({ apiVersion: 'apps/v1', kind: 'ReplicaSet', metadata: { uid: 'o1', name: 'rs-o1', namespace: 'ns' } });
    g.observe(obj('d1', [{ uid: 'o1' }]));
    assert.deepEqual(g.remove('o1').attemptToDelete, ['d1']);
    assert.equal(g.get('o1')?.observed, false);
    g.remove('d1');
    assert.equal(g.get('o1'), undefined, 'a virtual node with no dependents left is forgotten');
    assert.equal(g.size, 0);
  });

  it('dropping a reference unlinks the dependent from its owner', () => {
    const g = new OwnershipGraph();
    g.observe(obj('d1', [{ uid: 'o1' }, { uid: 'o2' }]));
    g.observe(obj('d1', [{ uid: 'o2' }]));
    assert.equal(g.get('o1'), undefined);
    assert.deepEqual([...g.get('o2')!.dependents], ['d1']);
  });

  it('a foreground deletion queues the owner and its dependents once, and blocking dependents are counted', () => {
    const g = new OwnershipGraph();
    g.observe({ apiVersion: 'apps/v1', kind: 'ReplicaSet', metadata: { uid: 'o1', name: 'rs-o1', namespace: 'ns' } });
    g.observe(obj('d1', [{ uid: 'o1', block: true }]));
    g.observe(obj('d2', [{ uid: 'o1' }]));
    const deleting = { apiVersion: 'apps/v1', kind: 'ReplicaSet', metadata: { uid: 'o1', name: 'rs-o1', namespace: 'ns', deletionTimestamp: 'x', finalizers: ['foregroundDeletion'] } };
    assert.deepEqual(g.observe(deleting).attemptToDelete.sort(), ['d1', 'd2', 'o1']);
    assert.deepEqual(g.observe(deleting).attemptToDelete, [], 'no transition, no work');
    assert.deepEqual(g.blockingDependents('o1').map((n) => n.uid), ['d1']);
    // The blocking dependent goes: the owner is looked at again.
    assert.deepEqual(g.remove('d1').attemptToDelete, ['o1']);
    assert.deepEqual(g.blockingDependents('o1'), []);
  });

  it('a dependent that stops blocking a foreground-deleting owner frees it', () => {
    const g = new OwnershipGraph();
    g.observe({ apiVersion: 'apps/v1', kind: 'ReplicaSet', metadata: { uid: 'o1', name: 'rs-o1', namespace: 'ns', deletionTimestamp: 'x', finalizers: ['foregroundDeletion'] } });
    g.observe(obj('d1', [{ uid: 'o1', block: true }]));
    assert.deepEqual(g.observe(obj('d1', [{ uid: 'o1', block: false }])).attemptToDelete, ['o1']);
  });

  it('the orphan finalizer asks for orphaning once', () => {
    const g = new OwnershipGraph();
    assert.deepEqual(g.observe(obj('o1', [], { deleting: ['orphan'] })).attemptToOrphan, ['o1']);
    assert.deepEqual(g.observe(obj('o1', [], { deleting: ['orphan'] })).attemptToOrphan, []);
  });
});
