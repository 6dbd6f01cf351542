/**
 * The token file: which `Authorization` headers it authenticates, including tokens of lengths
 * that differ from the admin's (the length check that spares a JWT the hash must not refuse them).
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it, type TestContext } from 'node:test';
import { ensureTokenAuthenticator } from './tokens.ts';

function pkiDir(t: TestContext, lines?: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'shipyard-tokens-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  if (lines !== undefined) writeFileSync(join(dir, 'tokens.csv'), lines, { mode: 0o600 });
  return dir;
}

describe('token file authentication', () => {
  it('makes an admin token in system:masters on first start', (t) => {
    const auth = ensureTokenAuthenticator(pkiDir(t));
    const user = auth.authenticate(`Bearer ${auth.adminToken}`);
    assert.equal(user?.name, 'admin');
    assert.deepEqual(user?.groups, ['system:masters', 'system:authenticated']);
  });

  it('accepts every listed token whatever its length, and refuses others of the same lengths', (t) => {
    const auth = ensureTokenAuthenticator(pkiDir(t, 'short-tok,alice,u1,"devs"\na-much-longer-token-for-bob,bob,u2\n'));
    assert.equal(auth.authenticate('Bearer short-tok')?.name, 'alice');
    assert.deepEqual(auth.authenticate('bearer   short-tok ')?.groups, ['devs', 'system:authenticated']);
    assert.equal(auth.authenticate('Bearer a-much-longer-token-for-bob')?.name, 'bob');
    assert.equal(auth.authenticate('Bearer short-toX'), undefined);
    assert.equal(auth.authenticate('Bearer a-much-longer-token-for-bod'), undefined);
    assert.equal(auth.authenticate('Bearer eyJhbGciOiJFUzI1NiJ9.eyJzdWIiOiJ4In0.c2ln'), undefined);
    assert.equal(auth.authenticate('Basic short-tok'), undefined);
    assert.equal(auth.authenticate(undefined), undefined);
  });
});
