/**
 * Kubernetes' URL library (`url`, `isURL`, and on a URL `getScheme`, `getHost`,
 * `getHostname`, `getPort`, `getEscapedPath`, `getQuery`), over a reading of URLs that
 * follows Go's net/url rather than WHATWG's: nothing is normalised (no lower-cased hosts, no
 * resolved `..`), a URL is valid when `url.ParseRequestURI` takes it (an absolute URI or an
 * absolute path), and parse errors are worded as Go's. The `uri` format of the format
 * library uses the same check.
 */
import type { Environment } from '@marcbachmann/cel-js';
import { type CelObject, fail } from './values.ts';

export class UrlParseError extends Error {}

/** A parsed URL, with the parts Go's url.URL keeps. */
export class KubeURL implements CelObject {
  constructor(
    readonly scheme: string,
    readonly opaque: string,
    /** host[:port], unescaped, with IPv6 literals in brackets. */
    readonly host: string,
    /** The path, unescaped. */
    readonly path: string,
    /** The path as written, when it is a valid escaping of `path` different from the default one. */
    readonly rawPath: string,
    readonly rawQuery: string,
  ) {}

  get hostname(): string {
    return splitHostPort(this.host)[0];
  }

  get port(): string {
    return splitHostPort(this.host)[1];
  }

  /** url.EscapedPath(). */
  get escapedPath(): string {
    if (this.rawPath && validEncoded(this.rawPath)) {
      try {
        if (unescape(this.rawPath, 'path') === this.path) return this.rawPath;
      } catch {
        // fall through to the default escaping
      }
    }
    if (this.path === '*') return '*';
    return escapePath(this.path);
  }

  /** url.Query(): each key's values in order; malformed pairs are skipped. */
  query(): Record<string, string[]> {
    const out: Record<string, string[]> = {};
    for (const pair of this.rawQuery.split('&')) {
      if (pair === '' || pair.includes(';')) continue;
      const eq = pair.indexOf('=');
      const [k, v] = eq < 0 ? [pair, ''] : [pair.slice(0, eq), pair.slice(eq + 1)];
      try {
        const key = unescape(k, 'query');
        const value = unescape(v, 'query');
        (out[key] ??= []).push(value);
      } catch {
        // Go's ParseQuery skips a pair it cannot unescape.
      }
    }
    return out;
  }

  celEquals(other: unknown): boolean {
    return other instanceof KubeURL && other.toString() === this.toString();
  }

  toString(): string {
    if (this.opaque) return `${this.scheme}:${this.opaque}${this.rawQuery ? `?${this.rawQuery}` : ''}`;
    return `${this.scheme ? `${this.scheme}:` : ''}${this.host || this.scheme ? `//${this.host}` : ''}${this.escapedPath}${this.rawQuery ? `?${this.rawQuery}` : ''}`;
  }
}

function validOptionalPort(port: string): boolean {
  return port === '' || /^:[0-9]*$/.test(port);
}

function splitHostPort(hostPort: string): [string, string] {
  let host = hostPort;
  let port = '';
  const colon = host.lastIndexOf(':');
  if (colon >= 0 && validOptionalPort(host.slice(colon))) {
    port = host.slice(colon + 1);
    host = host.slice(0, colon);
  }
  if (host.startsWith('[') && host.endsWith(']')) host = host.slice(1, -1);
  return [host, port];
}

const unreserved = /[A-Za-z0-9\-_.~]/;
const hostAllowed = /[A-Za-z0-9\-_.~!$&'()*+,;=:[\]<>"]/;

/** Go's shouldEscape for the modes used here. */
function shouldEscape(c: string, mode: 'path' | 'host' | 'query'): boolean {
  if (unreserved.test(c)) return false;
  if (mode === 'host') return !hostAllowed.test(c);
  if ('$&+,/:;=?@'.includes(c)) return mode === 'path' ? c === '?' : true;
  return true;
}

/** Go's unescape: percent-decoding (and `+` as a space in queries), refusing malformed escapes. */
function unescape(s: string, mode: 'path' | 'host' | 'query'): string {
  const bytes: number[] = [];
  for (let i = 0; i < s.length; i++) {
    const c = s[i]!;
    if (c === '%') {
      const hex = s.slice(i + 1, i + 3);
      if (!/^[0-9A-Fa-f]{2}$/.test(hex)) throw new UrlParseError(`invalid URL escape ${JSON.stringify(s.slice(i, i + 3))}`);
      bytes.push(parseInt(hex, 16));
      i += 2;
      continue;
    }
    if (mode === 'host' && c.charCodeAt(0) < 0x80 && shouldEscape(c, 'host')) throw new UrlParseError(`invalid character ${JSON.stringify(c)} in host name`);
    if (mode === 'query' && c === '+') bytes.push(0x20);
    else bytes.push(...Buffer.from(c, 'utf8'));
  }
  return Buffer.from(bytes).toString('utf8');
}

function escapePath(s: string): string {
  let out = '';
  for (const byte of Buffer.from(s, 'utf8')) {
    const c = String.fromCharCode(byte);
    out += byte < 0x80 && !shouldEscape(c, 'path') ? c : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

/** Go's validEncoded for paths: only characters a path may carry unescaped, and escapes. */
function validEncoded(s: string): boolean {
  for (const c of s) {
    if ("!$&'()*+,;=:@[]".includes(c) || c === '%') continue;
    if (c.length > 1 || c.charCodeAt(0) >= 0x80 || shouldEscape(c, 'path')) return false;
  }
  return true;
}

function parseHost(host: string): string {
  if (host.startsWith('[')) {
    const close = host.lastIndexOf(']');
    if (close < 0) throw new UrlParseError("missing ']' in host");
    const colonPort = host.slice(close + 1);
    if (!validOptionalPort(colonPort)) throw new UrlParseError(`invalid port ${JSON.stringify(colonPort)} after host`);
  } else {
    const colon = host.lastIndexOf(':');
    if (colon >= 0 && !validOptionalPort(host.slice(colon))) throw new UrlParseError(`invalid port ${JSON.stringify(host.slice(colon))} after host`);
  }
  return unescape(host, 'host');
}

/** The scheme (as written) and the rest; an empty scheme when there is none. */
function getScheme(raw: string): [string, string] {
  for (let i = 0; i < raw.length; i++) {
    const c = raw[i]!;
    if (/[A-Za-z]/.test(c)) continue;
    if (/[0-9+\-.]/.test(c)) {
      if (i === 0) return ['', raw];
      continue;
    }
    if (c === ':') {
      if (i === 0) throw new UrlParseError('missing protocol scheme');
      return [raw.slice(0, i), raw.slice(i + 1)];
    }
    return ['', raw];
  }
  return ['', raw];
}

/**
 * Go's url.parse: `viaRequest` is ParseRequestURI's reading (no fragment, only absolute URIs
 * and absolute paths); otherwise url.Parse's, which splits off a `#fragment` first.
 */
function parse(rawURL: string, viaRequest: boolean): KubeURL {
  let raw = rawURL;
  if (!viaRequest) raw = raw.split('#', 1)[0]!;
  // eslint-disable-next-line no-control-regex
  if (/[\x00-\x1f\x7f]/.test(raw)) throw new UrlParseError('net/url: invalid control character in URL');
  if (raw === '' && viaRequest) throw new UrlParseError('empty url');
  if (raw === '*') return new KubeURL('', '', '', '*', '', '');
  let [scheme, rest] = getScheme(raw);
  scheme = scheme.toLowerCase();
  let rawQuery = '';
  if (rest.endsWith('?') && rest.indexOf('?') === rest.length - 1) rest = rest.slice(0, -1);
  else {
    const q = rest.indexOf('?');
    if (q >= 0) {
      rawQuery = rest.slice(q + 1);
      rest = rest.slice(0, q);
    }
  }
  if (!rest.startsWith('/')) {
    if (scheme !== '') return new KubeURL(scheme, rest, '', '', '', rawQuery);
    if (viaRequest) throw new UrlParseError('invalid URI for request');
    const colon = rest.indexOf(':');
    const slash = rest.indexOf('/');
    if (colon >= 0 && (slash < 0 || colon < slash)) throw new UrlParseError('first path segment in URL cannot contain colon');
  }
  let host = '';
  if ((scheme !== '' || (!viaRequest && !rest.startsWith('///'))) && rest.startsWith('//')) {
    let authority = rest.slice(2);
    rest = '';
    const slash = authority.indexOf('/');
    if (slash >= 0) {
      rest = authority.slice(slash);
      authority = authority.slice(0, slash);
    }
    const at = authority.lastIndexOf('@');
    host = parseHost(at < 0 ? authority : authority.slice(at + 1));
    if (at >= 0 && !/^[A-Za-z0-9\-._~!$&'()*+,;=:%@]*$/.test(authority.slice(0, at))) throw new UrlParseError('net/url: invalid userinfo');
  }
  const path = unescape(rest, 'path');
  return new KubeURL(scheme, '', host, path, escapePath(path) === rest ? '' : rest, rawQuery);
}

/** The error Go's url.ParseRequestURI gives, or undefined when `s` is a valid request URI. */
export function requestUriError(s: string): string | undefined {
  try {
    parse(s, true);
    return undefined;
  } catch (e) {
    if (e instanceof UrlParseError) return `parse ${JSON.stringify(s)}: ${e.message}`;
    throw e;
  }
}

/** `url()`: validated as ParseRequestURI does, then read as url.Parse does (so a fragment is not part of the path). */
export function url(s: string): KubeURL {
  const err = requestUriError(s);
  if (err !== undefined) fail(`URL parse error during conversion from string: ${err}`);
  try {
    return parse(s, false);
  } catch (e) {
    return fail(`URL parse error during conversion from string: parse ${JSON.stringify(s)}: ${(e as Error).message}`);
  }
}

export function registerUrls(env: Environment): void {
  const U = 'kubernetes.URL';
  env
    .registerType(U, KubeURL)
    .registerFunction(`url(string): ${U}`, url)
    .registerFunction('isURL(string): bool', (s: string) => requestUriError(s) === undefined)
    .registerFunction(`${U}.getScheme(): string`, (u: KubeURL) => u.scheme)
    .registerFunction(`${U}.getHost(): string`, (u: KubeURL) => u.host)
    .registerFunction(`${U}.getHostname(): string`, (u: KubeURL) => u.hostname)
    .registerFunction(`${U}.getPort(): string`, (u: KubeURL) => u.port)
    .registerFunction(`${U}.getEscapedPath(): string`, (u: KubeURL) => u.escapedPath)
    .registerFunction(`${U}.getQuery(): map<string, list<string>>`, (u: KubeURL) => u.query())
    .registerOperator(`${U} == ${U}`, (a: KubeURL, b: KubeURL) => a.celEquals(b));
}
