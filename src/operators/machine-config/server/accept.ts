/**
 * Which Ignition spec version to serve, from the request's `Accept` header, as the MCO's
 * server decides (`detectSpecVersionFromAcceptHeader`): Ignition 2.x sends
 * `application/vnd.coreos.ignition+json;version=3.4.0, *\/*;q=0.1`, older Ignition lists
 * several versions with q-values, and curl sends nothing useful. Media ranges are taken by
 * descending q (ties keep their order); the first Ignition type with a version decides. No
 * such range at all means 2.2.0, the MCO's default since its first release (machines that
 * predate the header ask for spec 2); a 2.x at or above 2.2 is served as 2.2.0; a 3.x newer
 * than we write is served as the newest we write, which it reads; anything else is refused.
 */
import { newestVersion, parseVersion, supportedVersions } from '../../../api/ignition/index.ts';

export const ignitionMediaType = 'application/vnd.coreos.ignition+json';
export const defaultVersion = '2.2.0';

export type Negotiated = { ok: true; version: string } | { ok: false; message: string };

interface MediaRange {
  readonly type: string;
  readonly version?: string;
  readonly q: number;
}

export function negotiateVersion(accept: string | undefined): Negotiated {
  for (const range of mediaRanges(accept ?? '')) {
    if (range.type !== ignitionMediaType || range.version === undefined) continue;
    const v = parseVersion(range.version);
    if (!v) continue;
    const newest = parseVersion(newestVersion)!;
    // Like the MCO, a version is matched by major and minor: 3.4.1 and 3.4.0-experimental are 3.4.0.
    if (v.major === 2 && v.minor >= 2) return { ok: true, version: defaultVersion };
    if (v.major === newest.major && v.minor > newest.minor) return { ok: true, version: newestVersion };
    const minor = `${v.major}.${v.minor}.0`;
    if ((supportedVersions as readonly string[]).includes(minor)) return { ok: true, version: minor };
    return {
      ok: false,
      message: `unsupported Ignition version ${JSON.stringify(range.version)} in Accept header ${JSON.stringify(accept)} (served: ${supportedVersions.join(', ')}; a newer 3.x is served as ${newestVersion})`,
    };
  }
  return { ok: true, version: defaultVersion };
}

function mediaRanges(header: string): MediaRange[] {
  const ranges: MediaRange[] = [];
  for (const part of header.split(',')) {
    const [type = '', ...params] = part.split(';').map((s) => s.trim());
    if (!type.includes('/')) continue;
    let version: string | undefined;
    let q = 1;
    for (const param of params) {
      const eq = param.indexOf('=');
      if (eq < 0) continue;
      const key = param.slice(0, eq).trim().toLowerCase();
      const value = param.slice(eq + 1).trim().replace(/^"(.*)"$/, '$1');
      // A value that does not parse is ignored, as the MCO ignores it, not taken as a refusal.
      if (key === 'version' && version === undefined && parseVersion(value)) version = value;
      else if (key === 'q' && /^\d+(\.\d+)?$/.test(value)) q = Number(value);
    }
    ranges.push({ type: type.toLowerCase(), version, q });
  }
  return ranges.map((r, i) => ({ r, i })).sort((a, b) => b.r.q - a.r.q || a.i - b.i).map(({ r }) => r);
}
