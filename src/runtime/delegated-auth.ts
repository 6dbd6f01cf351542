/**
 * Delegated authentication and authorization for an endpoint a component serves itself (its
 * `/metrics`), as controller-runtime's metrics filter and kube-rbac-proxy do it: the caller's
 * bearer token goes to the API server in a TokenReview, and the user it names in a
 * SubjectAccessReview, by default for the request's verb on its path as a non-resource URL (so
 * whoever may GET /metrics on the API server, kube's `system:monitoring`, may read it), or for
 * one resource rule when given (OpenShift's `{"resource": "namespaces", "verb": "get"}` form).
 * The component's ServiceAccount needs kube's `system:auth-delegator`.
 *
 * Decisions are cached per token and check, under a hash (never the token itself): an allowed
 * one briefly, a denied one more briefly still, so a scraper every few seconds costs the API
 * server one review pair per allowed period while a grant or a new token takes effect soon.
 * Answers as kube-rbac-proxy words them: 401 `Unauthorized`, 403 `Forbidden (user=..., verb=...,
 * resource=..., subresource=...)`; 500 when the API server cannot be asked (never cached).
 */
import { createHash } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { realClock, type Clock } from './clock.ts';

/** A SubjectAccessReview's resource attributes, checked instead of the request's path. */
export interface ResourceRule {
  readonly verb: string;
  readonly resource: string;
  readonly group?: string;
  readonly namespace?: string;
  readonly name?: string;
  readonly subresource?: string;
}

/** The one call it makes; an ApiClient has it. */
export interface ReviewClient {
  request<T>(method: string, path: string, opts: { body: unknown }): Promise<T>;
}

export interface DelegatedAuthOptions {
  readonly client: ReviewClient;
  /** Check this resource rule for every request; without it, the request's verb on its path. */
  readonly resource?: ResourceRule;
  /** Without `resource`: check this verb on the request's path, whatever its method (oauth-proxy's `{"verb": "get"}` rule). */
  readonly nonResourceVerb?: string;
  readonly clock?: Clock;
  /** How long an allowed decision is reused; default 10 s. */
  readonly allowTtlMs?: number;
  /** How long a 401 or 403 is reused; default 3 s. */
  readonly denyTtlMs?: number;
  /** Decisions kept at most; the oldest go first. Default 1024. */
  readonly maxEntries?: number;
}

export type AuthDecision =
  | { readonly allowed: true; readonly user: string }
  /** `message` is the answer's body; `cause`, for the server's log only, says why a 500. */
  | { readonly allowed: false; readonly status: 401 | 403 | 500; readonly message: string; readonly cause?: string };

export interface DelegatedAuth {
  /** Never rejects: an API server that cannot be asked is a 500 decision. */
  check(req: IncomingMessage): Promise<AuthDecision>;
}

interface UserInfo {
  readonly username?: string;
  readonly uid?: string;
  readonly groups?: readonly string[];
  readonly extra?: Record<string, readonly string[]>;
}

const unauthorized: AuthDecision = { allowed: false, status: 401, message: 'Unauthorized' };

/** The bearer token of an `Authorization` header, or undefined when there is none. */
export function bearerToken(req: IncomingMessage): string | undefined {
  return /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(req.headers.authorization ?? '')?.[1];
}

/** A non-resource request's verb, as the API server derives it (HEAD reads as GET does). */
function nonResourceVerb(method: string | undefined): string {
  const m = (method ?? 'GET').toLowerCase();
  return m === 'head' ? 'get' : m;
}

export function createDelegatedAuth(o: DelegatedAuthOptions): DelegatedAuth {
  const clock = o.clock ?? realClock;
  const allowTtl = o.allowTtlMs ?? 10_000;
  const denyTtl = o.denyTtlMs ?? 3_000;
  const maxEntries = o.maxEntries ?? 1024;
  const cache = new Map<string, { decision: AuthDecision; until: number }>();

  function remember(key: string, decision: AuthDecision): void {
    cache.delete(key);
    // Map keeps insertion order, so the first key is the oldest decision.
    while (cache.size >= maxEntries) cache.delete(cache.keys().next().value!);
    cache.set(key, { decision, until: clock.now() + (decision.allowed ? allowTtl : denyTtl) });
  }

  async function review(token: string, attrs: Record<string, unknown>, verb: string): Promise<AuthDecision> {
    const tr = await o.client.request<{ status?: { authenticated?: boolean; user?: UserInfo } }>('POST', '/apis/authentication.k8s.io/v1/tokenreviews', {
      body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenReview', spec: { token } },
    });
    const user = tr?.status?.user;
    if (!tr?.status?.authenticated || !user?.username) return unauthorized;
    const sar = await o.client.request<{ status?: { allowed?: boolean } }>('POST', '/apis/authorization.k8s.io/v1/subjectaccessreviews', {
      body: { apiVersion: 'authorization.k8s.io/v1', kind: 'SubjectAccessReview', spec: { user: user.username, uid: user.uid, groups: user.groups, extra: user.extra, ...attrs } },
    });
    if (sar?.status?.allowed) return { allowed: true, user: user.username };
    return { allowed: false, status: 403, message: `Forbidden (user=${user.username}, verb=${verb}, resource=${o.resource?.resource ?? ''}, subresource=${o.resource?.subresource ?? ''})` };
  }

  return {
    async check(req) {
      const token = bearerToken(req);
      if (!token) return unauthorized;
      const path = (req.url ?? '/').split('?')[0]!;
      const verb = o.resource ? o.resource.verb : (o.nonResourceVerb ?? nonResourceVerb(req.method));
      const attrs = o.resource ? { resourceAttributes: { ...o.resource } } : { nonResourceAttributes: { path, verb } };
      const key = createHash('sha256').update(token).update('\0').update(JSON.stringify(attrs)).digest('hex');
      const hit = cache.get(key);
      if (hit && hit.until > clock.now()) return hit.decision;
      let decision: AuthDecision;
      try {
        decision = await review(token, attrs, verb);
      } catch (err) {
        // Not cached: the next scrape asks again. The cause is for the server's log, not the caller.
        return { allowed: false, status: 500, message: 'Internal Server Error', cause: `access review failed: ${(err as Error).message}` };
      }
      remember(key, decision);
      return decision;
    },
  };
}
