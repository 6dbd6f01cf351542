/**
 * RFC 2397 `data:` URLs, the inline file contents of every MachineConfig. Both forms occur:
 * `data:,hello%20world` (percent-encoded bytes, what the MCO renders for text) and
 * `data:text/plain;base64,aGVsbG8=` (what users paste). Decoding yields bytes, not text: a
 * file may be gzip.
 */

export type DataUrlResult = { ok: true; data: Buffer; mediaType: string } | { ok: false; message: string };

const base64Body = /^[A-Za-z0-9+/]*={0,2}$/;

export function decodeDataUrl(url: string): DataUrlResult {
  if (!/^data:/i.test(url)) return { ok: false, message: 'not a data URL' };
  const comma = url.indexOf(',');
  if (comma < 0) return { ok: false, message: 'invalid data URL: missing ","' };
  const params = url.slice(5, comma).split(';');
  const isBase64 = params.length > 1 && params[params.length - 1]!.toLowerCase() === 'base64';
  if (isBase64) params.pop();
  const mediaType = params.join(';');
  const bytes = percentDecode(url.slice(comma + 1));
  if (!bytes) return { ok: false, message: 'invalid data URL: malformed percent-encoding' };
  if (!isBase64) return { ok: true, data: bytes, mediaType };
  const text = bytes.toString('latin1').replace(/[\r\n\t ]/g, '');
  // Buffer.from(..., 'base64') skips garbage silently; a typo must be an error, not a truncated file.
  if (!base64Body.test(text) || text.length % 4 === 1) return { ok: false, message: 'invalid data URL: malformed base64' };
  return { ok: true, data: Buffer.from(text, 'base64'), mediaType };
}

function percentDecode(s: string): Buffer | undefined {
  const out: number[] = [];
  for (let i = 0; i < s.length; ) {
    if (s[i] === '%') {
      const hex = s.slice(i + 1, i + 3);
      if (!/^[0-9A-Fa-f]{2}$/.test(hex)) return undefined;
      out.push(parseInt(hex, 16));
      i += 3;
    } else {
      const c = String.fromCodePoint(s.codePointAt(i)!);
      for (const b of Buffer.from(c, 'utf8')) out.push(b);
      i += c.length;
    }
  }
  return Buffer.from(out);
}

/** Text as a readable `data:,` URL; bytes (or `base64: true`) as `data:;base64,`. */
export function encodeDataUrl(data: string | Uint8Array, options: { base64?: boolean } = {}): string {
  if (typeof data === 'string' && !options.base64) return `data:,${encodeURIComponent(data)}`;
  return `data:;base64,${Buffer.from(data).toString('base64')}`;
}
