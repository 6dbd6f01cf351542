/**
 * Which resource sources Shipyard accepts. Ignition itself also knows tftp, s3, gs and arn
 * sources; none of them exists in a loopback datacenter, so they are refused by name at parse
 * time rather than failing later, mid-boot, with a network error.
 */
import { decodeDataUrl } from './data-url.ts';

export type SourceScheme = 'data' | 'http' | 'https';

export const supportedSchemes: readonly SourceScheme[] = ['data', 'http', 'https'];
const knownUnsupported = new Set(['tftp', 's3', 'gs', 'arn', 'oem']);

export type SourceCheck = { ok: true; scheme: SourceScheme } | { ok: false; message: string };

export function checkSource(source: string): SourceCheck {
  const m = /^([A-Za-z][A-Za-z0-9+.-]*):/.exec(source);
  if (!m) return { ok: false, message: `unable to parse url ${JSON.stringify(source)}: no scheme` };
  const scheme = m[1]!.toLowerCase();
  if (scheme === 'data') {
    const decoded = decodeDataUrl(source);
    return decoded.ok ? { ok: true, scheme } : { ok: false, message: decoded.message };
  }
  if (scheme === 'http' || scheme === 'https') {
    let url: URL;
    try {
      url = new URL(source);
    } catch {
      return { ok: false, message: `unable to parse url ${JSON.stringify(source)}` };
    }
    if (!url.hostname) return { ok: false, message: `url ${JSON.stringify(source)} has no host` };
    return { ok: true, scheme };
  }
  if (knownUnsupported.has(scheme)) {
    return { ok: false, message: `url scheme "${scheme}" is not supported here (supported: ${supportedSchemes.join(', ')})` };
  }
  return { ok: false, message: `invalid url scheme "${scheme}"` };
}
