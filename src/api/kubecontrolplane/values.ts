/**
 * Checks of single values the operand's config carries as strings (flag values, addresses,
 * CIDRs, durations), each returning the detail of a Kubernetes field error (`must be an
 * integer`) or undefined when the value is good. The config schema says where each value
 * lives; these say what Shipyard's API server can start with, so a value it would refuse at
 * start is refused before a revision is cut (issue 17, item 3).
 */
import { ipToInt, parseCidr, parseIpAddress } from '../cidr.ts';
import { parseDuration } from '../duration.ts';
import { isDns1123Subdomain } from '../names.ts';

/** The detail of what is wrong with a value, or undefined when it is good. */
export type ValueCheck = (value: string) => string | undefined;

const LOOPBACK = /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/;

export const integerAtLeast =
  (min: number): ValueCheck =>
  (v) => {
    if (!/^-?\d+$/.test(v)) return 'must be an integer';
    return Number(v) < min ? `must be greater than or equal to ${min}` : undefined;
  };

export const port: ValueCheck = (v) => {
  if (!/^\d+$/.test(v)) return 'must be an integer';
  const n = Number(v);
  return n < 1 || n > 65535 ? 'must be between 1 and 65535, inclusive' : undefined;
};

/** Shipyard's servers bind and advertise only loopback addresses (ARCHITECTURE.md, "Addresses"). */
export const loopbackAddress: ValueCheck = (v) => {
  if (!LOOPBACK.test(v)) return 'must be an IPv4 address in 127.0.0.0/8';
  try {
    ipToInt(v);
    return undefined;
  } catch {
    return 'must be an IPv4 address in 127.0.0.0/8';
  }
};

/** `host:port` with a loopback host, as `servingInfo.bindAddress`. */
export const loopbackHostPort: ValueCheck = (v) => {
  const colon = v.lastIndexOf(':');
  if (colon < 0) return 'must be host:port';
  return loopbackAddress(v.slice(0, colon)) ?? port(v.slice(colon + 1));
};

/** The server's `--service-cluster-ip-range` rule: a loopback range between /16 and /24. */
export const serviceRange: ValueCheck = (v) => {
  let parsed: { base: number; bits: number };
  try {
    parsed = parseCidr(v);
  } catch {
    return 'must be a CIDR, e.g. 127.64.0.0/16';
  }
  if (parsed.base >>> 24 !== 127) return 'must be a range in 127.0.0.0/8';
  if (parsed.bits < 16 || parsed.bits > 24) return 'must have a prefix length between /16 and /24';
  return undefined;
};

/** A Go duration (`70s`, `1m30s`) that is not negative. */
export const duration: ValueCheck = (v) => {
  let ms: number;
  try {
    ms = parseDuration(v);
  } catch {
    return 'must be a duration, e.g. "70s" or "1m30s"';
  }
  return ms < 0 ? 'must not be negative' : undefined;
};

export const httpsUrl: ValueCheck = (v) => {
  try {
    const u = new URL(v);
    return u.protocol === 'https:' && u.hostname ? undefined : 'must be an https:// URL';
  } catch {
    return 'must be an https:// URL';
  }
};

export const oneOf =
  (values: readonly string[]): ValueCheck =>
  (v) =>
    values.includes(v) ? undefined : `supported values: ${values.map((x) => JSON.stringify(x)).join(', ')}`;

export const nonEmpty: ValueCheck = (v) => (v.trim() === '' ? 'must not be empty' : undefined);

export const absolutePath: ValueCheck = (v) => (v.startsWith('/') ? undefined : 'must be an absolute path');

/** An admission plugin name (`NamespaceLifecycle`, `openshift.io/RestrictedEndpointsAdmission`). */
export const pluginName: ValueCheck = (v) => (/^[A-Za-z0-9][A-Za-z0-9./_-]*$/.test(v) ? undefined : 'must be an admission plugin name');

/** `hostname[:port]`, as the image policy's registry hostnames. */
export const hostnamePort: ValueCheck = (v) => {
  const m = /^(\[[^\]]+\]|[^:]+)(?::(\d+))?$/.exec(v);
  if (!m) return 'must be hostname[:port]';
  const host = m[1]!.replace(/^\[|\]$/g, '');
  let isIp = true;
  try {
    parseIpAddress(host);
  } catch {
    isIp = false;
  }
  if (!isIp && isDns1123Subdomain(host).length > 0) return 'must be hostname[:port]';
  return m[2] === undefined ? undefined : port(m[2]);
};

/** `30000-32767`: a range of ports, low end first. */
export const portRange: ValueCheck = (v) => {
  const m = /^(\d+)-(\d+)$/.exec(v);
  if (!m) return 'must be a port range such as "30000-32767"';
  const [lo, hi] = [Number(m[1]), Number(m[2])];
  if (lo < 1 || hi > 65535 || lo > hi) return 'must be a port range within 1-65535, low end first';
  return undefined;
};

/** A regular expression, as `corsAllowedOrigins` entries are. */
export const regularExpression: ValueCheck = (v) => {
  try {
    new RegExp(v);
    return undefined;
  } catch {
    return 'must be a regular expression';
  }
};
