/**
 * The config schema (`api/kubecontrolplane/`) lists the store durabilities the operand accepts,
 * and `storage/` defines them; `api/` may not import `storage/`, so this test keeps the two lists
 * the same (apiserver/ sees both).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { storeDurabilities as configured } from '../api/kubecontrolplane/arguments.ts';
import { storeDurabilities as stored } from '../storage/sqlite.ts';

describe('store durabilities', () => {
  it('the operand config accepts exactly the modes the store has', () => {
    assert.deepEqual([...configured].sort(), [...stored].sort());
  });
});
