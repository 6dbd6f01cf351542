/**
 * Fetching Ignition resources over http(s), as Ignition does at first boot: the machine-config
 * server may not be up yet when a node boots, so connection failures and 5xx answers are
 * retried with doubling backoff (100 ms up to 5 s, Ignition's figures) until a deadline; any
 * other status fails at once. Only loopback hosts are dialled, redirects included, and https
 * trusts exactly the CAs the config names.
 */
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { setTimeout as delay } from 'node:timers/promises';
import { assertLoopbackUrl, dialAddress } from '../cloudclient/loopback.ts';

export interface FetchRequest {
  readonly url: string;
  readonly headers?: Readonly<Record<string, string>>;
  /** PEM bundles to trust for https; empty means Node's default store. */
  readonly certificateAuthorities?: readonly Buffer[];
  /** Overall limit for this fetch, retries included (Ignition's `timeouts.httpTotal`). */
  readonly timeoutMs?: number;
  readonly signal?: AbortSignal;
}

export type Fetcher = (request: FetchRequest) => Promise<Buffer>;

export interface FetcherOptions {
  /** Default overall limit when the request sets none. */
  readonly deadlineMs?: number;
  readonly initialBackoffMs?: number;
  readonly maxBackoffMs?: number;
  /** Ignition's `timeouts.httpResponseHeaders` default: 10 s. */
  readonly responseHeaderTimeoutMs?: number;
  readonly maxBytes?: number;
}

export class FetchError extends Error {
  constructor(
    message: string,
    readonly status?: number,
  ) {
    super(message);
    this.name = 'FetchError';
  }
}

const maxRedirects = 5;

export function createLoopbackFetcher(options: FetcherOptions = {}): Fetcher {
  const deadlineMs = options.deadlineMs ?? 10 * 60_000;
  const initialBackoffMs = options.initialBackoffMs ?? 100;
  const maxBackoffMs = options.maxBackoffMs ?? 5_000;
  const headerTimeoutMs = options.responseHeaderTimeoutMs ?? 10_000;
  const maxBytes = options.maxBytes ?? 64 * 1024 * 1024;

  return async (req) => {
    assertLoopbackUrl(req.url);
    const deadline = Date.now() + (req.timeoutMs && req.timeoutMs > 0 ? req.timeoutMs : deadlineMs);
    let backoff = initialBackoffMs;
    let lastError = '';
    for (let attempt = 1; ; attempt++) {
      req.signal?.throwIfAborted();
      try {
        const res = await once(req, { headerTimeoutMs, maxBytes, deadline });
        if (res.status >= 200 && res.status < 300) return res.body;
        lastError = `HTTP ${res.status}`;
        if (res.status < 500) throw new FetchError(`GET ${req.url}: ${lastError}`, res.status);
      } catch (err) {
        // Cancelled mid-request, the HTTP layer throws its own AbortError; the caller's reason
        // (why the boot was cancelled) is the one worth reporting.
        if (req.signal?.aborted) throw req.signal.reason ?? err;
        if (err instanceof FetchError) throw err;
        lastError = (err as Error).message;
        if ((err as Error).name === 'NotLoopbackError') throw err;
      }
      const wait = Math.min(backoff, deadline - Date.now());
      if (wait <= 0) throw new FetchError(`GET ${req.url}: gave up after ${attempt} attempts: ${lastError}`);
      await delay(wait, undefined, { signal: req.signal }).catch((err: unknown) => {
        throw req.signal?.reason ?? err;
      });
      backoff = Math.min(backoff * 2, maxBackoffMs);
    }
  };
}

interface Response {
  readonly status: number;
  readonly body: Buffer;
}

async function once(req: FetchRequest, limits: { headerTimeoutMs: number; maxBytes: number; deadline: number }): Promise<Response> {
  let url = req.url;
  for (let hop = 0; ; hop++) {
    const res = await get(url, req, limits);
    const location = res.headers.location;
    if (res.statusCode && [301, 302, 303, 307, 308].includes(res.statusCode) && location) {
      res.resume();
      if (hop >= maxRedirects) throw new FetchError(`GET ${req.url}: too many redirects`);
      url = new URL(location, url).toString();
      assertLoopbackUrl(url, `to follow a redirect to ${url}`);
      continue;
    }
    return { status: res.statusCode ?? 0, body: await readBody(res, limits.maxBytes, url) };
  }
}

function get(raw: string, req: FetchRequest, limits: { headerTimeoutMs: number; deadline: number }): Promise<IncomingMessage> {
  const url = new URL(raw);
  const https = url.protocol === 'https:';
  const cas = req.certificateAuthorities?.length ? req.certificateAuthorities.map((b) => b.toString('utf8')) : undefined;
  return new Promise((resolve, reject) => {
    const r = (https ? httpsRequest : httpRequest)(
      {
        host: dialAddress(url.hostname),
        port: url.port || (https ? 443 : 80),
        path: `${url.pathname}${url.search}`,
        method: 'GET',
        headers: { 'User-Agent': 'shipyard-ignition', ...req.headers, Host: url.host },
        ...(https ? { servername: url.hostname === 'localhost' ? 'localhost' : undefined, ca: cas } : {}),
        agent: false,
        signal: req.signal,
      },
      resolve,
    );
    // The deadline bounds the wait, but the last attempt still gets a fair second to answer.
    const timeout = Math.max(Math.min(limits.headerTimeoutMs, limits.deadline - Date.now()), Math.min(limits.headerTimeoutMs, 1_000));
    r.setTimeout(timeout, () => r.destroy(new Error(`no response within ${timeout} ms`)));
    r.on('error', reject);
    r.end();
  });
}

function readBody(res: IncomingMessage, maxBytes: number, url: string): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    res.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBytes) {
        res.destroy();
        reject(new FetchError(`GET ${url}: body exceeds ${maxBytes} bytes`));
        return;
      }
      chunks.push(chunk);
    });
    res.on('end', () => resolve(Buffer.concat(chunks)));
    res.on('error', reject);
  });
}
