/**
 * Shared helpers for the end-to-end suites: polling with a deadline, kubectl JSON reads,
 * kubectl table parsing, Status assertions and a streaming HTTPS request for watches.
 * Not a test file itself (no `.test.ts` suffix), so test/all.test.ts does not import it.
 */
import assert from 'node:assert/strict';
import { request as httpsRequest } from 'node:https';
import { fileURLToPath } from 'node:url';
import type { TestServer } from '../support/server.ts';
import { until } from '../support/until.ts';

export const fixturesDir = fileURLToPath(new URL('./fixtures/', import.meta.url));
export const fixture = (name: string): string => fixturesDir + name;

export type Json = any;

/**
 * Calls `fn` until it returns something other than undefined/false, taking a throw as "not
 * yet", and fails after the deadline with the last error seen. The suites' one poll loop is
 * test/support/until.ts; this is its end-to-end default (every 100 ms, errors retried).
 */
export function pollUntil<T>(what: string, fn: () => Promise<T | undefined | false>, opts: { timeoutMs?: number; intervalMs?: number } = {}): Promise<T> {
  return until(what, fn, { timeoutMs: opts.timeoutMs, everyMs: opts.intervalMs ?? 100, retryErrors: true });
}

export interface KubectlResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

export function describeResult(args: readonly string[], r: KubectlResult): string {
  return `kubectl ${args.join(' ')} → exit ${r.code}\nstdout: ${r.stdout.trim()}\nstderr: ${r.stderr.trim()}`;
}

/** Runs kubectl and asserts a zero exit; returns the result. */
export async function kubectlOk(ts: TestServer, args: readonly string[], opts?: { input?: string; env?: Record<string, string>; timeoutMs?: number }): Promise<KubectlResult> {
  const r = await ts.kubectl(args, opts);
  assert.equal(r.code, 0, describeResult(args, r));
  return r;
}

/** Runs kubectl and asserts a non-zero exit; returns the result. */
export async function kubectlFails(ts: TestServer, args: readonly string[], opts?: { input?: string; env?: Record<string, string>; timeoutMs?: number }): Promise<KubectlResult> {
  const r = await ts.kubectl(args, opts);
  assert.notEqual(r.code, 0, `expected failure: ${describeResult(args, r)}`);
  return r;
}

/** `kubectl get ... -o json`, parsed (asserts exit 0). */
export async function kubectlJson(ts: TestServer, args: readonly string[]): Promise<Json> {
  const r = await kubectlOk(ts, ['get', ...args, '-o', 'json']);
  return JSON.parse(r.stdout);
}

/** A raw GET returning the parsed body, or undefined on 404 (asserts 200 otherwise). */
export async function getObject(ts: TestServer, path: string): Promise<Json | undefined> {
  const res = await ts.request('GET', path, { accept: 'application/json' });
  if (res.status === 404) return undefined;
  assert.equal(res.status, 200, `GET ${path} → ${res.status} ${res.body}`);
  return JSON.parse(res.body);
}

/** A raw request with a JSON body; returns status and the parsed body. */
export async function sendJson(ts: TestServer, method: string, path: string, body?: unknown, contentType = 'application/json'): Promise<{ status: number; body: Json; text: string }> {
  const res = await ts.request(method, path, { body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body), contentType: body === undefined ? undefined : contentType, accept: 'application/json' });
  let parsed: Json;
  try {
    parsed = JSON.parse(res.body);
  } catch {
    parsed = undefined;
  }
  return { status: res.status, body: parsed, text: res.body };
}

/**
 * Parses kubectl's column output (tabwriter-aligned): each cell is the text between the
 * start of its header and the start of the next header.
 */
export function parseTable(stdout: string): { header: string[]; rows: string[][] } {
  const lines = stdout.split('\n').filter((l) => l.trim() !== '');
  if (!lines.length) return { header: [], rows: [] };
  const starts: number[] = [];
  const header: string[] = [];
  for (const m of lines[0].matchAll(/\S+(?: \S+)*/g)) {
    starts.push(m.index ?? 0);
    header.push(m[0]);
  }
  const rows = lines.slice(1).map((l) => starts.map((s, i) => l.slice(s, i + 1 < starts.length ? starts[i + 1] : undefined).trim()));
  return { header, rows };
}

export interface StatusBody {
  kind: string;
  apiVersion: string;
  status: string;
  message?: string;
  reason?: string;
  code?: number;
  details?: { name?: string; group?: string; kind?: string; causes?: { reason?: string; message?: string; field?: string }[]; retryAfterSeconds?: number };
}

/** Asserts a failure `Status` body with this HTTP code and reason; returns it. */
export function assertFailureStatus(res: { status: number; body: string }, code: number, reason: string | readonly string[], context: string): StatusBody {
  const where = `${context}: HTTP ${res.status} ${res.body.slice(0, 600)}`;
  assert.equal(res.status, code, `status code — ${where}`);
  let s: StatusBody;
  try {
    s = JSON.parse(res.body) as StatusBody;
  } catch {
    assert.fail(`body is not JSON — ${where}`);
  }
  assert.equal(s.kind, 'Status', `kind — ${where}`);
  assert.equal(s.apiVersion, 'v1', `apiVersion — ${where}`);
  assert.equal(s.status, 'Failure', `status — ${where}`);
  assert.equal(s.code, code, `code field — ${where}`);
  const reasons = typeof reason === 'string' ? [reason] : reason;
  assert.ok(s.reason !== undefined && reasons.includes(s.reason), `reason ${JSON.stringify(s.reason)} not in ${JSON.stringify(reasons)} — ${where}`);
  return s;
}

/** The text a Status offers about what went wrong: message plus every cause's field and message. */
/** The ERROR event a watch from a compacted resourceVersion must carry: a 410 Expired Status. */
export function assertExpiredEvent(ev: Json): void {
  assert.equal(ev.type, 'ERROR');
  assert.equal(ev.object.kind, 'Status');
  assert.equal(ev.object.apiVersion, 'v1');
  assert.equal(ev.object.status, 'Failure');
  assert.equal(ev.object.code, 410);
  assert.equal(ev.object.reason, 'Expired');
  assert.match(ev.object.message, /too old resource version/);
}

export function statusText(s: StatusBody): string {
  return [s.message ?? '', ...(s.details?.causes ?? []).map((c) => `${c.field ?? ''} ${c.message ?? ''}`)].join('\n');
}

/** Asserts that some cause names this field (exactly), and the message mentions it too. */
export function assertCauseField(s: StatusBody, field: string, context: string): void {
  const fields = (s.details?.causes ?? []).map((c) => c.field);
  assert.ok(fields.includes(field), `${context}: expected a cause with field ${field}, got causes ${JSON.stringify(s.details?.causes)} (message ${JSON.stringify(s.message)})`);
  assert.ok((s.message ?? '').includes(field), `${context}: message should name ${field}: ${JSON.stringify(s.message)}`);
}

export interface StreamHandle {
  /** Resolves with the HTTP status once headers arrive. */
  readonly response: Promise<{ status: number; headers: Record<string, string | string[] | undefined> }>;
  /** Complete lines received so far. */
  readonly lines: string[];
  /** Resolves when the server ends the stream. */
  readonly ended: Promise<void>;
  close(): void;
}

/** A streaming GET (for watches): collects newline-separated chunks as they arrive. */
export function openStream(ts: TestServer, path: string, accept = 'application/json'): StreamHandle {
  const lines: string[] = [];
  let buffered = '';
  let resolveEnded!: () => void;
  const ended = new Promise<void>((r) => (resolveEnded = r));
  let req!: ReturnType<typeof httpsRequest>;
  const response = new Promise<{ status: number; headers: Record<string, string | string[] | undefined> }>((resolve, reject) => {
    req = httpsRequest(ts.server.url + path, { method: 'GET', headers: { authorization: `Bearer ${ts.server.adminToken}`, accept }, ca: ts.server.caCertPem }, (res) => {
      resolve({ status: res.statusCode ?? 0, headers: res.headers });
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        buffered += chunk;
        let i: number;
        while ((i = buffered.indexOf('\n')) >= 0) {
          const line = buffered.slice(0, i).trim();
          buffered = buffered.slice(i + 1);
          if (line) lines.push(line);
        }
      });
      const finish = () => {
        if (buffered.trim()) lines.push(buffered.trim());
        buffered = '';
        resolveEnded();
      };
      res.on('end', finish);
      res.on('close', finish);
      res.on('error', finish);
    });
    req.on('error', (err) => {
      reject(err);
      resolveEnded();
    });
    req.end();
  });
  response.catch(() => undefined);
  return { response, lines, ended, close: () => req.destroy() };
}

/** Races a promise against a deadline. */
export async function withTimeout<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([p, new Promise<T>((_, reject) => (timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms: ${what}`)), ms)))]);
  } finally {
    clearTimeout(timer);
  }
}


/**
 * A request with an explicit Content-Length that still reports the server's answer when the
 * server replies early and closes (e.g. 413 before the whole body was read). Also needed for
 * DELETE with a body: Node's client sends a DELETE body with neither Content-Length nor
 * chunked framing unless told, so `TestServer.request()` cannot send DeleteOptions.
 */
export function tolerantRequest(ts: TestServer, method: string, path: string, body: Buffer | string, contentType: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    let answered = false;
    const length = Buffer.byteLength(body);
    const req = httpsRequest(ts.server.url + path, { method, headers: { authorization: `Bearer ${ts.server.adminToken}`, 'content-type': contentType, 'content-length': String(length), accept: 'application/json' }, ca: ts.server.caCertPem }, (res) => {
      answered = true;
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
    });
    req.on('error', (err) => {
      if (!answered) reject(err);
    });
    req.end(body);
  });
}
