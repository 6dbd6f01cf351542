import assert from 'node:assert/strict';
import { it } from 'node:test';
import { InlineSyncPolicy } from './inline-sync.ts';

it('inline sync policy: quick syncs stay inline, a slow spell moves them to the pool for a while, then inline is tried again', () => {
  let now = 0;
  const policy = new InlineSyncPolicy({ slowMs: 3, poolForMs: 5_000, now: () => now });
  for (let i = 0; i < 100; i++) policy.record(0.2);
  assert.equal(policy.shouldInline(), true, 'a fast disk');
  policy.record(9);
  assert.equal(policy.shouldInline(), true, 'one slow sync does not decide');
  for (let i = 0; i < 10 && policy.shouldInline(); i++) policy.record(12);
  assert.equal(policy.shouldInline(), false, 'a slow spell sends syncs to the pool');
  now += 4_999;
  assert.equal(policy.shouldInline(), false);
  now += 1;
  assert.equal(policy.shouldInline(), true, 'tried inline again after the pool period');
  policy.record(12);
  assert.equal(policy.shouldInline(), true, 'the new try starts from what it measures, not from the old spell');
});
