/**
 * The proxy's request path: the rule for the request's path (delegate-urls.ts) is checked by
 * delegated authentication and authorization (runtime/delegated-auth.ts: a TokenReview, then a
 * SubjectAccessReview, decisions cached briefly under a hash of the token), and only an allowed
 * request is passed to the upstream, without the caller's token. Answers as kube-rbac-proxy
 * words them: 401 `Unauthorized`, 403 `Forbidden (...)`, 500 when the API server cannot be
 * asked, 502 when the upstream is down.
 */
import { request, type IncomingMessage, type ServerResponse } from 'node:http';
import { createDelegatedAuth, type DelegatedAuth, type ReviewClient } from '../../../runtime/delegated-auth.ts';
import type { Logger } from '../../../runtime/logger.ts';
import { ruleFor, type DelegateRule } from './delegate-urls.ts';

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
  readonly client: ReviewClient;
  readonly rules: readonly DelegateRule[];
  readonly upstream: Upstream;
  readonly logger: Logger;
}

const text = { 'content-type': 'text/plain; charset=utf-8' };

export function createProxyHandler(o: ProxyOptions): (req: IncomingMessage, res: ServerResponse) => void {
  // One checker per rule, each with its own cache.
  const checks = new Map<DelegateRule, DelegatedAuth>(o.rules.map((rule) => [rule, createDelegatedAuth({ client: o.client, ...(rule.resource ? { resource: rule.resource } : { nonResourceVerb: rule.verb }) })]));
  return (req, res) => {
    const path = (req.url ?? '/').split('?')[0]!;
    const rule = ruleFor(o.rules, path);
    if (!rule) return void res.writeHead(403, text).end(`Forbidden (path ${path} is not proxied)\n`);
    void checks.get(rule)!.check(req).then((d) => {
      if (d.allowed) return forward(req, res, o.upstream, o.logger);
      if (d.cause) o.logger.warn({ err: d.cause }, 'access review failed');
      res.writeHead(d.status, text).end(`${d.message}\n`);
    });
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
    if (!res.headersSent) res.writeHead(502, text).end('Bad Gateway\n');
    else res.destroy();
  });
  req.pipe(out);
}
