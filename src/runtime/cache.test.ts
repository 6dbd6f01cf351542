/**
 * The cache's own contract, without a server: keys, index upkeep under relabels and
 * deletes, and the add/update/delete diff a relist produces.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { KubernetesObject } from '@kubernetes/client-node';
import { NAMESPACE_INDEX, ObjectCache, objectKey } from './cache.ts';

type Obj = KubernetesObject & { metadata: { ownerUid?: string } };

const obj = (name: string, rv: string, opts: { ns?: string; owner?: string } = {}): Obj => ({
  metadata: { name, resourceVersion: rv, ...(opts.ns ? { namespace: opts.ns } : {}), ...(opts.owner ? { ownerReferences: [{ apiVersion: 'v1', kind: 'X', name: 'o', uid: opts.owner }] } : {}) },
});

const byOwner = { owner: (o: { readonly metadata?: { readonly ownerReferences?: readonly { readonly uid: string }[] } }) => (o.metadata?.ownerReferences ?? []).map((r) => r.uid) };

describe('runtime/cache', () => {
  it('keys namespaced objects as namespace/name and cluster-scoped ones as name', () => {
    assert.equal(objectKey(obj('n', '1', { ns: 'a' })), 'a/n');
    assert.equal(objectKey(obj('node-1', '1')), 'node-1');
  });

  it('keeps the namespace and custom indexes in step with upserts and removals', () => {
    const c = new ObjectCache<Obj>(byOwner);
    c.upsert(obj('x', '1', { ns: 'a', owner: 'u1' }));
    c.upsert(obj('y', '1', { ns: 'b', owner: 'u1' }));
    assert.deepEqual(c.byIndex('owner', 'u1').map(objectKey).sort(), ['a/x', 'b/y']);
    c.upsert(obj('x', '2', { ns: 'a', owner: 'u2' }));
    assert.deepEqual(c.byIndex('owner', 'u1').map(objectKey), ['b/y']);
    assert.deepEqual(c.byIndex('owner', 'u2').map(objectKey), ['a/x']);
    assert.equal(c.remove('b/y')?.metadata?.name, 'y');
    assert.deepEqual(c.byIndex('owner', 'u1'), []);
    assert.deepEqual(c.byIndex(NAMESPACE_INDEX, 'b'), []);
    assert.deepEqual(c.byIndex(NAMESPACE_INDEX, 'a').map(objectKey), ['a/x']);
    assert.equal(c.remove('nope'), undefined);
    assert.throws(() => new ObjectCache<Obj>({ [NAMESPACE_INDEX]: () => [] }), /built in/);
  });

  it('diffs a relist: adds, updates only on a new resourceVersion, deletes what is gone', () => {
    const c = new ObjectCache<Obj>(byOwner);
    c.replace([obj('same', '1', { ns: 'a' }), obj('bump', '1', { ns: 'a' }), obj('gone', '1', { ns: 'a', owner: 'u' })]);
    const r = c.replace([obj('same', '1', { ns: 'a' }), obj('bump', '2', { ns: 'a' }), obj('new', '3', { ns: 'a' })]);
    assert.deepEqual(r.added.map(objectKey), ['a/new']);
    assert.deepEqual(r.updated.map((u) => [objectKey(u.obj), u.old.metadata?.resourceVersion, u.obj.metadata?.resourceVersion]), [['a/bump', '1', '2']]);
    assert.deepEqual(r.deleted.map(objectKey), ['a/gone']);
    assert.deepEqual(c.keys().sort(), ['a/bump', 'a/new', 'a/same']);
    assert.deepEqual(c.byIndex('owner', 'u'), []);
  });

  it('freezes what it stores', () => {
    const c = new ObjectCache<Obj>();
    const { obj: stored } = c.upsert(obj('x', '1', { ns: 'a' }));
    assert.ok(Object.isFrozen(stored.metadata));
    assert.throws(() => {
      (stored.metadata as { name?: string }).name = 'y';
    }, TypeError);
  });
});
