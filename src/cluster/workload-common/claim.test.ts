import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { V1Pod } from '@kubernetes/client-node';
import { planClaim } from './claim.ts';
import { compileLabelSelector } from '../../api/label-selector.ts';

const owner = { metadata: { name: 'rs', namespace: 'ns', uid: 'u-rs' } };
const matches = compileLabelSelector({ matchLabels: { app: 'web' } }).matches!;
const ref = (uid: string) => [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'x', uid, controller: true }];
const pod = (name: string, labels: Record<string, string>, extra: Partial<NonNullable<V1Pod['metadata']>> = {}): V1Pod => ({ metadata: { name, namespace: 'ns', uid: `u-${name}`, labels, ...extra } });

describe('planClaim', () => {
  it('keeps what it controls and matches, adopts matching orphans, releases what stopped matching', () => {
    const mine = pod('mine', { app: 'web' }, { ownerReferences: ref('u-rs') });
    const relabelled = pod('relabelled', { app: 'debug' }, { ownerReferences: ref('u-rs') });
    const orphan = pod('orphan', { app: 'web' });
    const stranger = pod('stranger', { app: 'web' }, { ownerReferences: ref('u-other') });
    const unrelated = pod('unrelated', { app: 'db' });
    const dying = pod('dying', { app: 'web' }, { deletionTimestamp: new Date() });
    const plan = planClaim(owner, matches, [mine, relabelled, orphan, stranger, unrelated, dying, mine]);
    assert.deepEqual(plan.owned.map((p) => p.metadata?.name), ['mine']);
    assert.deepEqual(plan.adopt.map((p) => p.metadata?.name), ['orphan']);
    assert.deepEqual(plan.release.map((p) => p.metadata?.name), ['relabelled']);
  });

  it('neither adopts nor releases while the owner is being deleted', () => {
    const deleting = { metadata: { ...owner.metadata, deletionTimestamp: '2024-01-01T00:00:00Z' } };
    const plan = planClaim(deleting, matches, [pod('orphan', { app: 'web' }), pod('relabelled', { app: 'x' }, { ownerReferences: ref('u-rs') })]);
    assert.deepEqual([plan.adopt.length, plan.release.length, plan.owned.length], [0, 0, 0]);
  });
});
