/**
 * Writing responses: JSON (or YAML) bodies, `Status` errors, `Warning` headers, and content
 * negotiation of the `Accept` header (JSON, YAML, server-side Table, PartialObjectMetadata),
 * answering JSON when a client prefers protobuf, as kubectl describe does.
 */
import type { ServerResponse } from 'node:http';
import { stringify as toYaml } from 'yaml';
import { ApiError, type Status } from '../errors.ts';

export type OutputFormat =
  | { readonly kind: 'json' }
  | { readonly kind: 'yaml' }
  | { readonly kind: 'table'; readonly version: 'v1' | 'v1beta1' }
  | { readonly kind: 'metadata'; readonly version: 'v1' | 'v1beta1' };

interface MediaRange {
  type: string;
  params: Record<string, string>;
}

function parseAccept(accept: string): MediaRange[] {
  return accept.split(',').map((part) => {
    const [type, ...params] = part.split(';').map((s) => s.trim());
    const p: Record<string, string> = {};
    for (const kv of params) {
      const eq = kv.indexOf('=');
      if (eq > 0) p[kv.slice(0, eq).trim()] = kv.slice(eq + 1).trim();
    }
    return { type: (type ?? '').toLowerCase(), params: p };
  });
}

/** The first format in the client's list we can produce; undefined when none. */
export function negotiate(accept: string | undefined): OutputFormat | undefined {
  if (!accept) return { kind: 'json' };
  for (const r of parseAccept(accept)) {
    const as = r.params.as;
    if (r.type === 'application/json' && as) {
      const g = r.params.g;
      const v = r.params.v === 'v1beta1' ? 'v1beta1' : 'v1';
      if (as === 'Table' && g === 'meta.k8s.io') return { kind: 'table', version: v };
      if ((as === 'PartialObjectMetadata' || as === 'PartialObjectMetadataList') && g === 'meta.k8s.io') return { kind: 'metadata', version: v };
      continue;
    }
    if (r.type === 'application/json' || r.type === '*/*' || r.type === 'application/*' || r.type === 'application/json-patch+json' || r.type === 'application/merge-patch+json') return { kind: 'json' };
    if (r.type === 'application/yaml') return { kind: 'yaml' };
  }
  // kubectl describe asks for protobuf first and JSON second; a protobuf-only client still gets JSON.
  if (parseAccept(accept).some((r) => r.type === 'application/vnd.kubernetes.protobuf')) return { kind: 'json' };
  return undefined;
}

export function writeBody(res: ServerResponse, code: number, body: unknown, format: OutputFormat = { kind: 'json' }, contentType?: string): void {
  if (format.kind === 'yaml') writeRaw(res, code, toYaml(body, { version: '1.1' }), 'application/yaml');
  else writeRaw(res, code, JSON.stringify(body), contentType ?? 'application/json');
}

export function writeRaw(res: ServerResponse, code: number, body: string | Buffer, contentType: string): void {
  if (res.headersSent) return;
  // A string body goes out as a string: Node joins it to the header text, so the corked write
  // has one chunk fewer and no Buffer of it is made here. Counting its bytes converts nothing.
  const length = typeof body === 'string' ? Buffer.byteLength(body) : body.length;
  res.writeHead(code, { 'Content-Type': contentType, 'Content-Length': length, 'Cache-Control': 'no-cache, private' });
  res.end(body);
}

export function writeError(res: ServerResponse, err: ApiError): void {
  const status: Status = err.toStatus();
  if (err.details?.retryAfterSeconds && !res.headersSent) res.setHeader('Retry-After', String(err.details.retryAfterSeconds));
  writeBody(res, err.code, status);
}

/** Kubernetes `Warning` headers: `299 - "message"`. */
export function addWarnings(res: ServerResponse, warnings: readonly string[]): void {
  if (!warnings.length || res.headersSent) return;
  res.setHeader('Warning', warnings.map((w) => `299 - ${JSON.stringify(w.replace(/[\r\n]+/g, ' '))}`));
}
