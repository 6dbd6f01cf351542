/**
 * Bearer-token authentication. The admin token is generated on first start into
 * `<pki>/tokens.csv` (mode 0600, the kube-apiserver `--token-auth-file` format:
 * `token,user,uid,"group1,group2"`); further lines may add users. Tokens are compared in
 * constant time and never logged.
 */
import { randomBytes, timingSafeEqual, createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createFileOnce } from '../../api/files.ts';

export interface UserInfo {
  readonly name: string;
  readonly uid: string;
  readonly groups: readonly string[];
  /** Extra attributes (a service account token's pod, say), as kube's user.Info carries them. */
  readonly extra?: Readonly<Record<string, readonly string[]>>;
}

export interface TokenAuthenticator {
  /** The user for an `Authorization` header value, or undefined. */
  authenticate(authorization: string | undefined): UserInfo | undefined;
  readonly adminToken: string;
}

function digest(token: string): Buffer {
  return createHash('sha256').update(token).digest();
}

function parseLine(line: string): { token: string; user: UserInfo } | undefined {
  const m = /^([^,]+),([^,]+),([^,]+)(?:,"?([^"]*)"?)?$/.exec(line.trim());
  if (!m) return undefined;
  const groups = m[4] ? m[4].split(',').map((g) => g.trim()).filter(Boolean) : [];
  // Every authenticated user is in system:authenticated, as kube's authenticator chain adds it.
  if (!groups.includes('system:authenticated')) groups.push('system:authenticated');
  return { token: m[1]!, user: { name: m[2]!, uid: m[3]!, groups } };
}

export function ensureTokenAuthenticator(pkiDir: string): TokenAuthenticator {
  const file = join(pkiDir, 'tokens.csv');
  // Replicas starting together on one data directory: the first file made is everyone's.
  if (!existsSync(file)) createFileOnce(file, `${randomBytes(32).toString('base64url')},admin,admin,"system:masters,system:authenticated"\n`, 0o600);
  const entries = readFileSync(file, 'utf8').split('\n').map(parseLine).filter((e): e is NonNullable<typeof e> => e !== undefined);
  if (entries.length === 0) throw new Error(`${file}: no token entries`);
  const byDigest = entries.map((e) => ({ digest: digest(e.token), user: e.user }));
  // A token as long as none in the file cannot be one of them, so it is not hashed: a
  // service-account JWT comes through here first on every request it makes. Only the lengths
  // of the file's tokens can be told from the time taken, and those are no secret.
  const lengths = new Set(entries.map((e) => e.token.length));
  // Headers already verified, so that a client's every request does not hash its token again
  // (kube-apiserver caches token authentication likewise). Bounded; only successes are kept.
  const verified = new Map<string, UserInfo>();
  const maxVerified = 1024;
  return {
    adminToken: entries[0]!.token,
    authenticate(authorization) {
      if (!authorization) return undefined;
      const cached = verified.get(authorization);
      if (cached) return cached;
      const m = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
      if (!m || !lengths.has(m[1]!.length)) return undefined;
      const d = digest(m[1]!);
      // Every entry is compared so the time taken does not reveal which one matched.
      let found: UserInfo | undefined;
      for (const e of byDigest) if (timingSafeEqual(e.digest, d)) found = e.user;
      if (found) {
        if (verified.size >= maxVerified) verified.clear();
        verified.set(authorization, found);
      }
      return found;
    },
  };
}
