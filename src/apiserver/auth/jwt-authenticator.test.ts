/**
 * Service-account tokens: the signing key on disk, and which tokens the JWT authenticator
 * accepts (a fake clock and an in-memory view of the bound objects stand in for the store).
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it, type TestContext } from 'node:test';
import { createJwtAuthenticator, looksLikeJwt, type BoundObjectLookup } from './jwt-authenticator.ts';
import { boundTokenClaims, SERVICE_ACCOUNT_ISSUER } from './service-account-claims.ts';
import { ensureServiceAccountKeys } from './service-account-keys.ts';

const NOW = 1_800_000_000_000;

/** A fresh key directory, removed when the test `t` ends. */
function keyDir(t: TestContext): string {
  const dir = mkdtempSync(join(tmpdir(), 'shipyard-sa-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

function fixture(t: TestContext) {
  const dir = keyDir(t);
  const keys = ensureServiceAccountKeys(dir);
  const objects = new Map<string, string>([
    ['sa/default/builder', 'sa-uid-1'],
    ['pod/default/web-1', 'pod-uid-1'],
  ]);
  const reads: string[] = [];
  const read = async (key: string): Promise<string | undefined> => {
    reads.push(key);
    return objects.get(key);
  };
  const lookup: BoundObjectLookup = { serviceAccountUid: (ns, name) => read(`sa/${ns}/${name}`), podUid: (ns, name) => read(`pod/${ns}/${name}`) };
  let now = NOW;
  const rejected: string[] = [];
  const auth = createJwtAuthenticator({ keys, lookup, audiences: [SERVICE_ACCOUNT_ISSUER, 'https://vault.example'], now: () => now, cacheTtlMs: 10_000, onReject: (r) => rejected.push(r) });
  const token = (o: { audiences?: string[]; pod?: boolean; issuedAt?: number; expirationSeconds?: number; saUid?: string } = {}) =>
    keys.sign(
      boundTokenClaims({
        namespace: 'default',
        serviceAccount: { name: 'builder', uid: o.saUid ?? 'sa-uid-1' },
        pod: o.pod ? { name: 'web-1', uid: 'pod-uid-1' } : undefined,
        audiences: o.audiences ?? [SERVICE_ACCOUNT_ISSUER],
        issuedAtSeconds: o.issuedAt ?? Math.floor(NOW / 1000),
        expirationSeconds: o.expirationSeconds ?? 3600,
        jti: 'j',
      }) as unknown as Record<string, unknown>,
    );
  return { dir, keys, objects, reads, auth, token, rejected, advance: (ms: number) => (now += ms) };
}

describe('service-account signing key', () => {
  it('is made once: sa.key private (0600), sa.pub beside it, and reused by the next start', (t) => {
    const f = fixture(t);
    assert.equal(statSync(join(f.dir, 'sa.key')).mode & 0o077, 0);
    assert.match(readFileSync(join(f.dir, 'sa.pub'), 'utf8'), /BEGIN PUBLIC KEY/);
    const again = ensureServiceAccountKeys(f.dir);
    assert.equal(again.keyId, f.keys.keyId);
    assert.ok(again.verify(f.token()), 'a token signed before a restart still verifies');
  });

  it('signs ES256 and refuses tampered payloads, other algorithms and other keys', (ctx) => {
    const f = fixture(ctx);
    const t = f.token();
    const [h, p, s] = t.split('.') as [string, string, string];
    assert.deepEqual(JSON.parse(Buffer.from(h, 'base64url').toString()), { alg: 'ES256', kid: f.keys.keyId });
    const forged = Buffer.from(JSON.stringify({ ...JSON.parse(Buffer.from(p, 'base64url').toString()), sub: 'system:serviceaccount:default:admin' })).toString('base64url');
    assert.equal(f.keys.verify(`${h}.${forged}.${s}`), undefined);
    const none = Buffer.from(JSON.stringify({ alg: 'none' })).toString('base64url');
    assert.equal(f.keys.verify(`${none}.${p}.`), undefined);
    assert.equal(ensureServiceAccountKeys(keyDir(ctx)).verify(t), undefined);
  });
});

describe('JWT authenticator', () => {
  it('accepts a current token as the service account, with its groups', async (t) => {
    const f = fixture(t);
    const user = await f.auth.authenticate(`Bearer ${f.token({ pod: true })}`);
    assert.deepEqual(user, { name: 'system:serviceaccount:default:builder', uid: 'sa-uid-1', groups: ['system:serviceaccounts', 'system:serviceaccounts:default', 'system:authenticated'] });
    assert.ok(looksLikeJwt(`Bearer ${f.token()}`));
    assert.ok(!looksLikeJwt('Bearer opaque-admin-token'));
  });

  it('accepts any audience the server accepts, and refuses a token for another audience', async (t) => {
    const f = fixture(t);
    assert.ok(await f.auth.authenticate(`Bearer ${f.token({ audiences: ['https://vault.example'] })}`));
    assert.equal(await f.auth.authenticate(`Bearer ${f.token({ audiences: ['https://elsewhere.example'] })}`), undefined);
    assert.match(f.rejected.at(-1)!, /audiences/);
  });

  it('refuses expired and not-yet-valid tokens', async (t) => {
    const f = fixture(t);
    const issued = Math.floor(NOW / 1000) - 3600 - 1;
    assert.equal(await f.auth.authenticate(`Bearer ${f.token({ issuedAt: issued })}`), undefined);
    assert.match(f.rejected.at(-1)!, /expired/);
    assert.equal(await f.auth.authenticate(`Bearer ${f.token({ issuedAt: Math.floor(NOW / 1000) + 120 })}`), undefined);
    assert.match(f.rejected.at(-1)!, /not valid yet/);
  });

  it('refuses tokens of a deleted or re-created service account, and of a deleted pod', async (t) => {
    const f = fixture(t);
    assert.equal(await f.auth.authenticate(`Bearer ${f.token({ saUid: 'an-older-uid' })}`), undefined);
    assert.match(f.rejected.at(-1)!, /recreated/);
    const podBound = f.token({ pod: true });
    f.objects.delete('pod/default/web-1');
    assert.equal(await f.auth.authenticate(`Bearer ${podBound}`), undefined);
    assert.match(f.rejected.at(-1)!, /pod default\/web-1/);
    const plain = f.token();
    f.objects.delete('sa/default/builder');
    assert.equal(await f.auth.authenticate(`Bearer ${plain}`), undefined);
    assert.match(f.rejected.at(-1)!, /does not exist/);
  });

  it('remembers a success for the cache period only, then looks again', async (t) => {
    const f = fixture(t);
    const header = `Bearer ${f.token()}`;
    assert.ok(await f.auth.authenticate(header));
    assert.ok(await f.auth.authenticate(header));
    assert.equal(f.reads.length, 1, 'the second request was served from the cache');
    f.objects.delete('sa/default/builder');
    f.advance(5_000);
    assert.ok(await f.auth.authenticate(header), 'still cached');
    f.advance(5_001);
    assert.equal(await f.auth.authenticate(header), undefined, 'revoked once the cache entry ran out');
  });

  it('never serves a cached token past its expiry', async (t) => {
    const f = fixture(t);
    const header = `Bearer ${f.token({ issuedAt: Math.floor(NOW / 1000) - 3600 + 2 })}`;
    assert.ok(await f.auth.authenticate(header));
    f.advance(2_000);
    assert.equal(await f.auth.authenticate(header), undefined);
  });
});
