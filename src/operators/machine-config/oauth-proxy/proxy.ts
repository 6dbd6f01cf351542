/**
 * The proxy's request path: a bearer token is authenticated with a TokenReview, the caller's
 * access is checked with a SubjectAccessReview (delegate-urls.ts), and only then is the request
 * passed to the upstream, without the token. Decisions are cached for a short while per token
 * and rule (hashed, never the token itself), so a scraper every few seconds costs the API server
 * one review pair a minute. Answers as kube-rbac-proxy words them: 401 `Unauthorized`, 403
 * `Forbidden (user=..., verb=..., resource=..., subresource=...)`, 502 when the upstream is down.
 */
import { createHash } from 'node:crypto';
import { request, type IncomingMessage, type ServerResponse } from 'node:http';
import type { ApiClient } from '../../../runtime/client.ts';
import { errorText } from '../../../runtime/client.ts';
import type { Logger } from '../../../runtime/logger.ts';
import { accessAttributes, ruleFor, type DelegateRule } from './delegate-urls.ts';

/** Where requests go: a Unix socket (a volume the pod's containers share) or an address. */
export type Upstream = { readonly socketPath: string } | { readonly host: string; readonly port: number };

export function parseUpstream(url: string): Upstream {
  if (url.startsWith('unix://')) {
    const socketPath = url.slice('unix://'.length);
    if (!socketPath.startsWith('/')) throw new Error(`--upstream ${url}: a unix socket path must be absolute`);
    return { socketPath };
  }
  const m = /^http:\/\/(127\.\d{1,3}\.\d{1,3}\.\d{1,3}):(\d{1,5})\/?$/.exec(url);
  if (!m) throw new Error(`--upstream ${url}: must be unix:///path or http://<127.x.y.z>:<port>`);
  return { host: m[1]!, port: Number(m[2]) };
}

export interface ProxyOptions {
  readonly client: ApiClient;
  readonly rules: readonly DelegateRule[];
  readonly upstream: Upstream;
  readonly logger: Logger;
  /** How long a decision is reused; default 60 s. */
  readonly cacheTtlMs?: number;
  readonly now?: () => number;
}

interface UserInfo {
  readonly username: string;
  readonly uid?: string;
  readonly groups?: readonly string[];
  readonly extra?: Record<string, readonly string[]>;
}

type Decision = { allowed: true } | { allowed: false; status: 401 | 403; message: string };

export function createProxyHandler(o: ProxyOptions): (req: IncomingMessage, res: ServerResponse) => void {
  const ttl = o.cacheTtlMs ?? 60_000;
  const now = o.now ?? Date.now;
  const cache = new Map<string, { decision: Decision; until: number }>();

  async function decide(token: string, rule: DelegateRule, path: string): Promise<Decision> {
    const key = createHash('sha256').update(token).update('\0').update(rule.prefix).update('\0').update(rule.resource ? '' : path).digest('hex');
    const hit = cache.get(key);
    if (hit && hit.until > now()) return hit.decision;
    const review = await o.client.request<{ status?: { authenticated?: boolean; user?: UserInfo } }>('POST', '/apis/authentication.k8s.io/v1/tokenreviews', {
      body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenReview', spec: { token } },
    });
    let decision: Decision;
    const user = review?.status?.user;
    if (!review?.status?.authenticated || !user?.username) decision = { allowed: false, status: 401, message: 'Unauthorized' };
    else {
      const attrs = accessAttributes(rule, path);
      const sar = await o.client.request<{ status?: { allowed?: boolean } }>('POST', '/apis/authorization.k8s.io/v1/subjectaccessreviews', {
        body: { apiVersion: 'authorization.k8s.io/v1', kind: 'SubjectAccessReview', spec: { user: user.username, uid: user.uid, groups: user.groups, extra: user.extra, ...attrs } },
      });
      decision = sar?.status?.allowed
        ? { allowed: true }
        : { allowed: false, status: 403, message: `Forbidden (user=${user.username}, verb=${rule.verb}, resource=${rule.resource ?? ''}, subresource=${rule.subresource ?? ''})` };
    }
    if (cache.size >= 1000) cache.clear();
    cache.set(key, { decision, until: now() + ttl });
    return decision;
  }

  return (req, res) => {
    const path = (req.url ?? '/').split('?')[0]!;
    const rule = ruleFor(o.rules, path);
    const token = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(req.headers.authorization ?? '')?.[1];
    if (!token) return void res.writeHead(401, { 'content-type': 'text/plain; charset=utf-8' }).end('Unauthorized\n');
    if (!rule) return void res.writeHead(403, { 'content-type': 'text/plain; charset=utf-8' }).end(`Forbidden (path ${path} is not proxied)\n`);
    decide(token, rule, path).then(
      (d) => {
        if (!d.allowed) return void res.writeHead(d.status, { 'content-type': 'text/plain; charset=utf-8' }).end(`${d.message}\n`);
        forward(req, res, o.upstream, o.logger);
      },
      (err: unknown) => {
        o.logger.warn({ err: errorText(err) }, 'access review failed');
        res.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' }).end('Internal Server Error\n');
      },
    );
  };
}

function forward(req: IncomingMessage, res: ServerResponse, upstream: Upstream, logger: Logger): void {
  const headers = { ...req.headers };
  // The caller's credential is for this proxy, never for what sits behind it.
  delete headers.authorization;
  const out = request({ ...upstream, method: req.method, path: req.url, headers }, (answer) => {
    res.writeHead(answer.statusCode ?? 502, answer.headers);
    answer.pipe(res);
  });
  out.on('error', (err) => {
    logger.warn({ err: err.message }, 'upstream unreachable');
    if (!res.headersSent) res.writeHead(502, { 'content-type': 'text/plain; charset=utf-8' }).end('Bad Gateway\n');
    else res.destroy();
  });
  req.pipe(out);
}
