/**
 * Reading and decoding request bodies: a size cap (3 MiB, as kube-apiserver's default
 * `--max-request-bytes` for resources), JSON or YAML by Content-Type, and decode errors
 * that say where the document broke.
 */
import type { IncomingMessage } from 'node:http';
import { parse as parseYaml, YAMLParseError } from 'yaml';
import { errors } from '../errors.ts';
import { decodeKubernetesProtobuf, ProtobufDecodeError } from '../protobuf/index.ts';

export const maxBodyBytes = 3 * 1024 * 1024;

/**
 * The whole body. Listeners, not `for await`: the async iterator costs a promise per chunk and
 * its end-of-stream machinery, a measurable share of every create's CPU (issue 13, item 7).
 * Like the iterator it replaced, it destroys the request when it stops reading early.
 */
export function readBody(req: IncomingMessage, limit = maxBodyBytes): Promise<Buffer> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) {
    req.resume();
    return Promise.reject(errors.entityTooLarge(limit));
  }
  if (req.readableEnded) return Promise.resolve(Buffer.alloc(0));
  if (req.destroyed) return Promise.reject(prematureClose());
  return new Promise<Buffer>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const stop = (): void => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
      req.off('close', onClose);
    };
    const onData = (chunk: Buffer): void => {
      size += chunk.length;
      if (size > limit) {
        stop();
        req.resume();
        reject(errors.entityTooLarge(limit));
        req.destroy();
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = (): void => {
      stop();
      resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size));
    };
    const onError = (e: Error): void => {
      stop();
      reject(e);
    };
    const onClose = (): void => {
      stop();
      reject(prematureClose());
    };
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
    req.on('close', onClose);
  });
}

/** What the stream iterator threw for a request closed before its end. */
function prematureClose(): Error {
  return Object.assign(new Error('Premature close'), { code: 'ERR_STREAM_PREMATURE_CLOSE' });
}

/** The last Content-Type read and its media type: clients send the same one on request after request. */
let lastContentType: string | undefined;
let lastMediaType = '';

export function mediaType(contentType: string | undefined): string {
  if (contentType === lastContentType) return lastMediaType;
  const type = (contentType ?? '').split(';')[0]!.trim().toLowerCase();
  lastContentType = contentType;
  lastMediaType = type;
  return type;
}

export const protobufType = 'application/vnd.kubernetes.protobuf';

/** Deeper documents are refused: every walker over a body (patches, schemas) recurses. */
export const maxNestingDepth = 100;

function checkDepth(value: unknown): void {
  if (tooDeep(value, 0)) throw errors.badRequest(`the request body is nested more than ${maxNestingDepth} levels deep`);
}

/** Recursive (at most `maxNestingDepth` frames), allocating nothing: every create's body passes here. */
function tooDeep(v: unknown, depth: number): boolean {
  if (typeof v !== 'object' || v === null) return false;
  if (depth >= maxNestingDepth) return true;
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) if (tooDeep(v[i], depth + 1)) return true;
    return false;
  }
  for (const key in v) if (Object.hasOwn(v, key) && tooDeep((v as Record<string, unknown>)[key], depth + 1)) return true;
  return false;
}

/** Decodes a JSON, YAML or Kubernetes-protobuf body; anything else is the caller's to refuse. */
export function decodeBody(body: Buffer, type: string): unknown {
  if (type === protobufType) {
    try {
      return decodeKubernetesProtobuf(body).object;
    } catch (e) {
      if (e instanceof ProtobufDecodeError) throw errors.badRequest(`error decoding protobuf request body: ${e.message}`);
      throw e;
    }
  }
  const text = body.toString('utf8');
  if (type === 'application/yaml' || type === 'application/apply-patch+yaml' || type === 'application/x-yaml' || type === 'text/yaml') {
    try {
      // YAML 1.1 without timestamps, as Go's sigs.k8s.io/yaml reads documents.
      const value: unknown = parseYaml(text, { version: '1.1', schema: 'yaml-1.1', customTags: (tags) => tags.filter((t) => (t as { tag?: string }).tag !== 'tag:yaml.org,2002:timestamp'), uniqueKeys: true });
      checkDepth(value);
      return value;
    } catch (e) {
      if (e instanceof YAMLParseError) {
        const pos = e.linePos?.[0];
        throw errors.badRequest(`error converting YAML to JSON: yaml: ${pos ? `line ${pos.line}, column ${pos.col}: ` : ''}${e.message.split('\n')[0]}`);
      }
      throw errors.badRequest(`error converting YAML to JSON: ${(e as Error).message}`);
    }
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    throw errors.badRequest(`error decoding request body as JSON: ${(e as Error).message}`);
  }
  checkDepth(value);
  return value;
}

/**
 * Duplicate keys in a JSON object, as dotted paths. kube's strict decoder refuses them under
 * fieldValidation=Strict; JSON.parse silently keeps the last, so the text is scanned.
 * Assumes `text` already parsed as JSON. Every create and update runs this (the default is
 * Warn), so it scans char codes, decodes only keys that hold escapes, and builds a path only
 * for a duplicate.
 */
export function findDuplicateJsonKeys(text: string): string[] {
  const dups: string[] = [];
  /** Where the scan is: object keys and array indexes, root first. */
  const path: Array<string | number> = [];
  let i = 0;
  const ws = (): void => {
    for (;;) {
      const c = text.charCodeAt(i);
      if (c === 32 || c === 9 || c === 10 || c === 13) i++;
      else return;
    }
  };
  /** Moves past the string starting at `i` (a value: long strings are common, so it jumps from quote to quote). */
  const skipString = (): void => {
    i++;
    for (;;) {
      const q = text.indexOf('"', i);
      let b = q - 1;
      while (text.charCodeAt(b) === 92 /* \ */) b--;
      i = q + 1;
      if ((q - 1 - b) % 2 === 0) return; // not escaped: an even number of backslashes before it
    }
  };
  /** Reads the key starting at `i` (short: scanned char by char, decoded only when it holds an escape). */
  const key = (): string => {
    const start = i;
    let escaped = false;
    i++;
    for (;;) {
      const c = text.charCodeAt(i);
      if (c === 34 /* " */) break;
      if (c === 92) {
        escaped = true;
        i += 2;
      } else i++;
    }
    i++;
    return escaped ? (JSON.parse(text.slice(start, i)) as string) : text.slice(start + 1, i - 1);
  };
  const rendered = (): string => {
    let out = '';
    for (const segment of path) out = typeof segment === 'number' ? `${out}[${segment}]` : out ? `${out}.${segment}` : segment;
    return out;
  };
  const value = (): void => {
    ws();
    const c = text.charCodeAt(i);
    if (c === 123 /* { */) {
      i++;
      ws();
      if (text.charCodeAt(i) === 125 /* } */) {
        i++;
        return;
      }
      const keys = new Set<string>();
      for (;;) {
        ws();
        const k = key();
        path.push(k);
        if (keys.has(k)) dups.push(rendered());
        keys.add(k);
        ws();
        i++; // ':'
        value();
        path.pop();
        ws();
        if (text.charCodeAt(i++) === 125) return;
      }
    } else if (c === 91 /* [ */) {
      i++;
      ws();
      if (text.charCodeAt(i) === 93 /* ] */) {
        i++;
        return;
      }
      for (let n = 0; ; n++) {
        path.push(n);
        value();
        path.pop();
        ws();
        if (text.charCodeAt(i++) === 93) return;
      }
    } else if (c === 34) skipString();
    else {
      // A number, true, false or null: up to the next delimiter.
      for (;;) {
        const d = text.charCodeAt(i);
        if (Number.isNaN(d) || d === 44 || d === 93 || d === 125 || d === 32 || d === 9 || d === 10 || d === 13) return;
        i++;
      }
    }
  };
  value();
  return dups;
}
