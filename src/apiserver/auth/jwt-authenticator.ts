/**
 * Authentication of service-account tokens (JWTs this server signed). A token is accepted when
 * its signature checks out with `sa.pub`, it is within `nbf`..`exp`, one of its audiences is
 * one the API server accepts, and the objects it is bound to still exist with the uids it
 * names: deleting a ServiceAccount (or the pod a token was issued for) revokes its tokens.
 *
 * Those existence checks are store reads; a client sends the same token with every request, so
 * a success is remembered briefly (kube-apiserver caches token authentication likewise). The
 * cost is that a revocation takes up to `cacheTtlMs` to bite. The cache is keyed by the whole
 * header and looked up before anything else, so a cached token costs one map lookup, not a
 * regular-expression match over its kilobyte as well.
 */
import { SERVICE_ACCOUNT_ISSUER, parseServiceAccountClaims, serviceAccountUser } from './service-account-claims.ts';
import type { ServiceAccountKeys } from './service-account-keys.ts';
import type { UserInfo } from './tokens.ts';

/** The uids of live objects, or undefined when there is no such object. */
export interface BoundObjectLookup {
  serviceAccountUid(namespace: string, name: string): Promise<string | undefined>;
  podUid(namespace: string, name: string): Promise<string | undefined>;
}

export interface JwtAuthenticatorOptions {
  readonly keys: Pick<ServiceAccountKeys, 'verify'>;
  /** Audiences the API server answers to; a token naming none of them is refused. */
  readonly audiences?: readonly string[];
  readonly lookup: BoundObjectLookup;
  /** Milliseconds since the epoch (tests pass a fake clock). */
  readonly now?: () => number;
  readonly cacheTtlMs?: number;
  readonly maxCached?: number;
  /** Why a well-formed token was refused (for a debug log; the token itself is never passed). */
  readonly onReject?: (reason: string) => void;
}

export interface JwtAuthenticator {
  /** The user a `Bearer <jwt>` header stands for, or undefined. */
  authenticate(authorization: string | undefined): Promise<UserInfo | undefined>;
}

const bearerJwt = /^Bearer\s+([A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+)\s*$/i;

/** Whether the header carries something shaped like a JWT (cheap; says nothing of validity). */
export function looksLikeJwt(authorization: string | undefined): boolean {
  return authorization !== undefined && bearerJwt.test(authorization);
}

export function createJwtAuthenticator(o: JwtAuthenticatorOptions): JwtAuthenticator {
  const audiences = new Set(o.audiences?.length ? o.audiences : [SERVICE_ACCOUNT_ISSUER]);
  const now = o.now ?? Date.now;
  const ttl = o.cacheTtlMs ?? 10_000;
  const maxCached = o.maxCached ?? 4096;
  /** By `Authorization` header value. */
  const verified = new Map<string, { user: UserInfo; untilMs: number }>();
  const reject = (reason: string): undefined => {
    o.onReject?.(reason);
    return undefined;
  };

  return {
    async authenticate(authorization) {
      if (authorization === undefined) return undefined;
      const t = now();
      const hit = verified.get(authorization);
      if (hit) {
        if (t < hit.untilMs) return hit.user;
        verified.delete(authorization);
      }
      const m = bearerJwt.exec(authorization);
      if (!m) return undefined;
      const token = m[1]!;
      const payload = o.keys.verify(token);
      if (!payload) return reject('signature or header invalid');
      const claims = parseServiceAccountClaims(payload);
      if (!claims) return reject('not a service-account token');
      if (claims.iss !== SERVICE_ACCOUNT_ISSUER) return reject(`issuer ${JSON.stringify(claims.iss)} is not accepted`);
      const seconds = Math.floor(t / 1000);
      if (claims.exp <= seconds) return reject('token has expired');
      if (claims.nbf > seconds) return reject('token is not valid yet');
      if (!claims.aud.some((a) => audiences.has(a))) return reject('token audiences are not accepted by this server');
      const ns = claims['kubernetes.io'].namespace;
      const sa = claims['kubernetes.io'].serviceaccount;
      const saUid = await o.lookup.serviceAccountUid(ns, sa.name);
      if (saUid === undefined) return reject(`service account ${ns}/${sa.name} does not exist`);
      if (saUid !== sa.uid) return reject(`service account ${ns}/${sa.name} was recreated (uid differs)`);
      const pod = claims['kubernetes.io'].pod;
      if (pod) {
        const podUid = await o.lookup.podUid(ns, pod.name);
        if (podUid === undefined) return reject(`pod ${ns}/${pod.name} the token is bound to does not exist`);
        if (podUid !== pod.uid) return reject(`pod ${ns}/${pod.name} the token is bound to was recreated (uid differs)`);
      }
      const user = serviceAccountUser(ns, sa);
      if (verified.size >= maxCached) verified.clear();
      verified.set(authorization, { user, untilMs: Math.min(t + ttl, claims.exp * 1000) });
      return user;
    },
  };
}
