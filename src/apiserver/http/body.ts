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

export async function readBody(req: IncomingMessage, limit = maxBodyBytes): Promise<Buffer> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) {
    req.resume();
    throw errors.entityTooLarge(limit);
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) {
      req.resume();
      throw errors.entityTooLarge(limit);
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

export function mediaType(contentType: string | undefined): string {
  return (contentType ?? '').split(';')[0]!.trim().toLowerCase();
}

export const protobufType = 'application/vnd.kubernetes.protobuf';

/** Deeper documents are refused: every walker over a body (patches, schemas) recurses. */
export const maxNestingDepth = 100;

function checkDepth(value: unknown): void {
  const stack: Array<[unknown, number]> = [[value, 0]];
  while (stack.length) {
    const [v, depth] = stack.pop()!;
    if (typeof v !== 'object' || v === null) continue;
    if (depth >= maxNestingDepth) throw errors.badRequest(`the request body is nested more than ${maxNestingDepth} levels deep`);
    for (const child of Object.values(v)) if (typeof child === 'object' && child !== null) stack.push([child, depth + 1]);
  }
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
 * Assumes `text` already parsed as JSON.
 */
export function findDuplicateJsonKeys(text: string): string[] {
  const dups: string[] = [];
  let i = 0;
  const ws = (): void => {
    while (i < text.length && ' \t\r\n'.includes(text[i]!)) i++;
  };
  const str = (): string => {
    const start = i;
    i++;
    while (text[i] !== '"') i += text[i] === '\\' ? 2 : 1;
    i++;
    return JSON.parse(text.slice(start, i)) as string;
  };
  const value = (path: string): void => {
    ws();
    const c = text[i];
    if (c === '{') {
      i++;
      const keys = new Set<string>();
      ws();
      if (text[i] === '}') {
        i++;
        return;
      }
      for (;;) {
        ws();
        const key = str();
        const child = path ? `${path}.${key}` : key;
        if (keys.has(key)) dups.push(child);
        keys.add(key);
        ws();
        i++; // ':'
        value(child);
        ws();
        if (text[i++] === '}') return;
      }
    } else if (c === '[') {
      i++;
      ws();
      if (text[i] === ']') {
        i++;
        return;
      }
      for (let n = 0; ; n++) {
        value(`${path}[${n}]`);
        ws();
        if (text[i++] === ']') return;
      }
    } else if (c === '"') str();
    else while (i < text.length && !',]} \t\r\n'.includes(text[i]!)) i++;
  };
  value('');
  return dups;
}
