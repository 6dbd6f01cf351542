/**
 * The bytes an Ignition resource stands for: a `data:` URL decoded (nothing at all is an empty
 * file), gunzipped when it says `compression: gzip`, and checked against its verification hash.
 * Remote sources are read only by a caller that can fetch: first boot, which is Ignition itself;
 * a running node's daemon, like the MCO's, writes inline contents only.
 */
import { createHash } from 'node:crypto';
import { gunzipSync } from 'node:zlib';
import { decodeDataUrl, type IgnitionResource } from '../api/ignition/index.ts';

/** Fetches a remote (non-`data:`) source's raw bytes. */
export type RemoteReader = (resource: IgnitionResource) => Promise<Buffer>;

const maxDecompressedBytes = 256 * 1024 * 1024;

export function isInline(resource: IgnitionResource | undefined): boolean {
  const source = resource?.source ?? '';
  return source === '' || /^data:/i.test(source);
}

export async function readResource(resource: IgnitionResource, remote?: RemoteReader): Promise<Buffer> {
  const source = resource.source ?? '';
  let raw: Buffer;
  if (source === '') raw = Buffer.alloc(0);
  else if (/^data:/i.test(source)) {
    const decoded = decodeDataUrl(source);
    if (!decoded.ok) throw new Error(decoded.message);
    raw = decoded.data;
  } else if (remote) {
    raw = await remote(resource);
  } else {
    throw new Error(`${source}: only data: URLs can be written on a running node`);
  }
  const data = resource.compression === 'gzip' ? gunzip(raw, source) : raw;
  verify(resource, data);
  return data;
}

function gunzip(raw: Buffer, source: string): Buffer {
  try {
    return gunzipSync(raw, { maxOutputLength: maxDecompressedBytes });
  } catch (err) {
    throw new Error(`decompressing ${describeSource(source)}: ${(err as Error).message}`);
  }
}

/** Since spec 3.1 the hash is of the decompressed bytes. */
function verify(resource: IgnitionResource, data: Buffer): void {
  const hash = resource.verification?.hash;
  if (!hash) return;
  const dash = hash.indexOf('-');
  const expected = hash.slice(dash + 1).toLowerCase();
  const actual = createHash(hash.slice(0, dash)).update(data).digest('hex');
  if (actual !== expected) throw new Error(`${describeSource(resource.source ?? '')}: content does not match verification hash ${hash.slice(0, dash)}-${expected.slice(0, 12)}…`);
}

/** A data URL can be megabytes; errors name it by kind. */
export function describeSource(source: string): string {
  return /^data:/i.test(source) ? 'inline data' : source;
}
