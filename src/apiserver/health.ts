/**
 * `/healthz`, `/livez` and `/readyz` as kube-apiserver serves them (k8s.io/apiserver's healthz
 * package): each endpoint runs its named checks; `ok` when all pass (`?verbose` lists them),
 * otherwise 500 with one line per check and the failed ones' reasons withheld (the endpoint is
 * public; the reasons go to the log). `/<endpoint>/<check>` runs one check and says why it failed.
 * `?exclude=<check>` skips a check. The `shutdown` check is readyz's alone, so a replica that is
 * shutting down stops being ready while it still serves and stays live.
 */
import type { ServerResponse } from 'node:http';

export type HealthEndpoint = 'healthz' | 'livez' | 'readyz';

export interface HealthCheck {
  readonly name: string;
  /** Why the check fails, or undefined when it passes. */
  check(): string | undefined;
}

export const pingCheck: HealthCheck = { name: 'ping', check: () => undefined };

/** kube-apiserver's readyz `shutdown` check: fails from the moment shutdown begins. */
export function shutdownCheck(shuttingDown: () => boolean): HealthCheck {
  return { name: 'shutdown', check: () => (shuttingDown() ? 'process is shutting down' : undefined) };
}

export interface HealthTarget {
  readonly endpoint: HealthEndpoint;
  /** A single check (`/readyz/shutdown`), or the whole endpoint. */
  readonly check?: string;
}

const ENDPOINTS = new Set<string>(['healthz', 'livez', 'readyz']);

export class HealthEndpoints {
  constructor(
    private readonly checks: Readonly<Record<HealthEndpoint, readonly HealthCheck[]>>,
    /** Told the failed checks' reasons, which the response withholds. */
    private readonly onFailure: (endpoint: HealthEndpoint, detail: string) => void = () => {},
  ) {}

  /** The endpoint (and check) a path names, if it is one of ours. */
  target(path: string): HealthTarget | undefined {
    // Every request asks: most are told no from their first segment, without splitting the path.
    const start = path.indexOf('/') + 1;
    const end = start ? path.indexOf('/', start) : -1;
    if (!start || !ENDPOINTS.has(end < 0 ? path.slice(start) : path.slice(start, end))) return undefined;
    const [, first, second, ...rest] = path.split('/');
    if (!first || !ENDPOINTS.has(first) || rest.length) return undefined;
    const endpoint = first as HealthEndpoint;
    if (second === undefined) return { endpoint };
    return this.checks[endpoint].some((c) => c.name === second) ? { endpoint, check: second } : undefined;
  }

  serve(res: ServerResponse, target: HealthTarget, query: URLSearchParams): void {
    const checks = this.checks[target.endpoint];
    if (target.check !== undefined) {
      const failure = checks.find((c) => c.name === target.check)?.check();
      if (failure === undefined) return write(res, 200, 'ok');
      // As Go's http.Error: the text and a newline.
      return write(res, 500, `internal server error: ${failure}\n`);
    }
    const excluded = new Set(query.getAll('exclude'));
    let lines = '';
    const failed: string[] = [];
    for (const c of checks) {
      if (excluded.delete(c.name)) {
        lines += `[+]${c.name} excluded: ok\n`;
        continue;
      }
      const failure = c.check();
      if (failure === undefined) lines += `[+]${c.name} ok\n`;
      else {
        lines += `[-]${c.name} failed: reason withheld\n`;
        failed.push(`[-]${c.name} failed: ${failure}`);
      }
    }
    if (excluded.size) lines += `warn: some health checks cannot be excluded: no matches for ${[...excluded].map((n) => JSON.stringify(n)).join(',')}\n`;
    if (failed.length) {
      this.onFailure(target.endpoint, failed.join('\n'));
      return write(res, 500, `${lines}${target.endpoint} check failed\n`);
    }
    write(res, 200, query.has('verbose') ? `${lines}${target.endpoint} check passed\n` : 'ok');
  }
}

function write(res: ServerResponse, code: number, body: string): void {
  if (res.headersSent) return;
  const bytes = Buffer.from(body);
  res.writeHead(code, { 'Content-Type': 'text/plain; charset=utf-8', 'X-Content-Type-Options': 'nosniff', 'Content-Length': bytes.length, 'Cache-Control': 'no-cache, private' });
  res.end(bytes);
}
