/**
 * IP addresses and CIDR ranges: IPv4 arithmetic for carving per-node ranges out of the cluster
 * range, and IPv4/IPv6 parsing and printing as Go's net/netip does them (strict: no leading
 * zeros in IPv4 octets; canonical RFC 5952 text for IPv6), which Kubernetes' CEL IP and CIDR
 * libraries are built on, with Go's error texts.
 */
export function ipToInt(ip: string): number {
  const parts = ip.split('.').map(Number);
  if (parts.length !== 4 || parts.some((p) => !Number.isInteger(p) || p < 0 || p > 255)) throw new Error(`"${ip}" is not an IPv4 address`);
  return ((parts[0]! << 24) >>> 0) + (parts[1]! << 16) + (parts[2]! << 8) + parts[3]!;
}

export function intToIp(n: number): string {
  return [n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255].join('.');
}

export function parseCidr(cidr: string): { base: number; bits: number } {
  const m = /^(\d+\.\d+\.\d+\.\d+)\/(\d+)$/.exec(cidr);
  if (!m) throw new Error(`"${cidr}" is not a CIDR (expected e.g. 127.128.0.0/9)`);
  const bits = Number(m[2]);
  if (bits > 32) throw new Error(`"${cidr}": prefix length must be at most 32`);
  const mask = bits === 0 ? 0 : (~0 << (32 - bits)) >>> 0;
  return { base: (ipToInt(m[1]!) & mask) >>> 0, bits };
}

/** The subnets of size /`mask` inside `cidr`, as an indexable range. */
export class SubnetRange {
  readonly base: number;
  readonly count: number;
  readonly mask: number;
  constructor(cidr: string, mask: number) {
    const { base, bits } = parseCidr(cidr);
    if (mask < bits || mask > 30) throw new Error(`node CIDR mask /${mask} must be between /${bits} and /30`);
    this.base = base;
    this.mask = mask;
    this.count = 2 ** (mask - bits);
  }
  cidr(i: number): string {
    return `${intToIp(this.base + i * 2 ** (32 - this.mask))}/${this.mask}`;
  }
  indexOf(cidr: string): number | undefined {
    try {
      const { base, bits } = parseCidr(cidr);
      if (bits !== this.mask) return undefined;
      const i = (base - this.base) / 2 ** (32 - this.mask);
      return Number.isInteger(i) && i >= 0 && i < this.count ? i : undefined;
    } catch {
      return undefined;
    }
  }
}

/** The address `offset` places into `cidr` (offset 1 is the range's first usable address). */
export function addressAt(cidr: string, offset: number): string {
  const { base, bits } = parseCidr(cidr);
  if (!Number.isInteger(offset) || offset < 0 || offset >= 2 ** (32 - bits)) throw new Error(`offset ${offset} is outside ${cidr}`);
  return intToIp(base + offset);
}

/** How many addresses `cidr` holds. */
export function cidrSize(cidr: string): number {
  return 2 ** (32 - parseCidr(cidr).bits);
}

/** Whether `ip` is a dotted IPv4 address inside `cidr`; false for anything that is not an address. */
export function cidrContains(cidr: string, ip: string): boolean {
  let n: number;
  try {
    n = ipToInt(ip);
  } catch {
    return false;
  }
  const { base, bits } = parseCidr(cidr);
  return n >= base && n < base + 2 ** (32 - bits) && /^\d{1,3}(\.\d{1,3}){3}$/.test(ip);
}

// ---------------------------------------------------------------------------------------------
// net/netip

/** An address as netip.Addr holds it: 4 bytes for IPv4, 16 for IPv6 (maybe with a zone). */
export interface IpAddress {
  readonly bytes: Uint8Array;
  readonly zone: string;
}

/** A parse failure, worded as Go's: `ParseAddr("1.2.3"): IPv4 address too short`. */
export class IpParseError extends Error {}

function addrError(input: string, msg: string, at?: string): IpParseError {
  return new IpParseError(`ParseAddr(${JSON.stringify(input)}): ${msg}${at !== undefined && at !== '' ? ` (at ${JSON.stringify(at)})` : ''}`);
}

const isDigit = (c: string | undefined): boolean => c !== undefined && c >= '0' && c <= '9';

/** Parses `in.slice(start, end)` as a dotted quad into `out` from `offset`. */
function parseIPv4Fields(input: string, start: number, end: number, out: Uint8Array, offset: number): void {
  const s = input.slice(start, end);
  let value = 0;
  let pos = 0;
  let digits = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s[i]!;
    if (isDigit(c)) {
      if (digits === 1 && value === 0) throw addrError(input, 'IPv4 field has octet with leading zero');
      value = value * 10 + Number(c);
      digits++;
      if (value > 255) throw addrError(input, 'IPv4 field has value >255');
    } else if (c === '.') {
      if (i === 0 || i === s.length - 1 || s[i - 1] === '.') throw addrError(input, 'IPv4 field must have at least one digit', s.slice(i));
      if (pos === 3) throw addrError(input, 'IPv4 address too long');
      out[offset + pos++] = value;
      value = 0;
      digits = 0;
    } else {
      throw addrError(input, 'unexpected character', s.slice(i));
    }
  }
  if (pos < 3) throw addrError(input, 'IPv4 address too short');
  out[offset + 3] = value;
}

function parseIPv6(input: string): IpAddress {
  let s = input;
  let zone = '';
  const pct = s.indexOf('%');
  if (pct >= 0) {
    zone = s.slice(pct + 1);
    s = s.slice(0, pct);
    if (zone === '') throw addrError(input, 'zone must be a non-empty string');
  }
  const ip = new Uint8Array(16);
  let ellipsis = -1;
  if (s.startsWith('::')) {
    ellipsis = 0;
    s = s.slice(2);
    if (s === '') return { bytes: ip, zone };
  }
  let i = 0;
  while (i < 16) {
    let off = 0;
    let acc = 0;
    for (; off < s.length; off++) {
      const d = parseInt(s[off]!, 16);
      if (Number.isNaN(d)) break;
      if (off > 3) throw addrError(input, 'each group must have 4 or less digits', s);
      acc = acc * 16 + d;
    }
    if (off === 0) throw addrError(input, 'each colon-separated field must have at least one digit', s);
    if (s[off] === '.') {
      if (ellipsis < 0 && i !== 12) throw addrError(input, 'embedded IPv4 address must replace the final 2 fields of the address', s);
      if (i + 4 > 16) throw addrError(input, 'too many hex fields to fit an embedded IPv4 at the end of the address', s);
      const end = input.length - (zone ? zone.length + 1 : 0);
      parseIPv4Fields(input, end - s.length, end, ip, i);
      s = '';
      i += 4;
      break;
    }
    ip[i] = acc >> 8;
    ip[i + 1] = acc & 0xff;
    i += 2;
    s = s.slice(off);
    if (s === '') break;
    if (s[0] !== ':') throw addrError(input, 'unexpected character, want colon', s);
    if (s.length === 1) throw addrError(input, 'colon must be followed by more characters', s);
    s = s.slice(1);
    if (s[0] === ':') {
      if (ellipsis >= 0) throw addrError(input, 'multiple :: in address', s);
      ellipsis = i;
      s = s.slice(1);
      if (s === '') break;
    }
  }
  if (s !== '') throw addrError(input, 'trailing garbage after address', s);
  if (i < 16) {
    if (ellipsis < 0) throw addrError(input, 'address string too short');
    const n = 16 - i;
    for (let j = i - 1; j >= ellipsis; j--) ip[j + n] = ip[j]!;
    ip.fill(0, ellipsis, ellipsis + n);
  } else if (ellipsis >= 0) {
    throw addrError(input, 'the :: must expand to at least one field of zeros', s);
  }
  return { bytes: ip, zone };
}

/** netip.ParseAddr: an IPv4 or IPv6 address; throws IpParseError. */
export function parseIpAddress(s: string): IpAddress {
  for (const c of s) {
    if (c === '.') {
      const bytes = new Uint8Array(4);
      parseIPv4Fields(s, 0, s.length, bytes, 0);
      return { bytes, zone: '' };
    }
    if (c === ':') return parseIPv6(s);
    if (c === '%') throw addrError(s, 'missing IPv6 address');
  }
  throw addrError(s, 'unable to parse IP');
}

/** An IPv4 address written inside IPv6 (`::ffff:1.2.3.4`). */
export function isIPv4MappedIPv6(a: IpAddress): boolean {
  return a.bytes.length === 16 && a.bytes.subarray(0, 10).every((b) => b === 0) && a.bytes[10] === 0xff && a.bytes[11] === 0xff;
}

/** Addr.String(): dotted IPv4; IPv6 in RFC 5952 form (longest run of two or more zero groups as `::`). */
export function formatIpAddress(a: IpAddress): string {
  const b = a.bytes;
  if (b.length === 4) return b.join('.');
  const zone = a.zone ? `%${a.zone}` : '';
  if (isIPv4MappedIPv6(a)) return `::ffff:${b.subarray(12).join('.')}${zone}`;
  const groups = Array.from({ length: 8 }, (_, i) => (b[2 * i]! << 8) | b[2 * i + 1]!);
  let zeroStart = -1;
  let zeroEnd = -1;
  for (let i = 0; i < 8; i++) {
    let j = i;
    while (j < 8 && groups[j] === 0) j++;
    if (j - i >= 2 && j - i > zeroEnd - zeroStart) {
      zeroStart = i;
      zeroEnd = j;
    }
  }
  let out = '';
  for (let i = 0; i < 8; i++) {
    if (i === zeroStart) {
      out += '::';
      i = zeroEnd - 1;
      continue;
    }
    if (i > 0 && !out.endsWith(':')) out += ':';
    out += groups[i]!.toString(16);
  }
  return out + zone;
}

export function ipAddressesEqual(a: IpAddress, b: IpAddress): boolean {
  return a.bytes.length === b.bytes.length && a.bytes.every((x, i) => x === b.bytes[i]) && a.zone === b.zone;
}

/** A network as netip.Prefix holds it: an address (not necessarily masked) and a prefix length. */
export interface IpPrefix {
  readonly addr: IpAddress;
  readonly bits: number;
}

/** netip.ParsePrefix: `address/bits`; throws IpParseError worded as Go's. */
export function parseIpPrefix(s: string): IpPrefix {
  const fail = (msg: string) => new IpParseError(`netip.ParsePrefix(${JSON.stringify(s)}): ${msg}`);
  const slash = s.lastIndexOf('/');
  if (slash < 0) throw fail("no '/'");
  let addr: IpAddress;
  try {
    addr = parseIpAddress(s.slice(0, slash));
  } catch (e) {
    throw fail((e as Error).message);
  }
  if (addr.zone) throw fail('IPv6 zones cannot be present in a prefix');
  const bitsText = s.slice(slash + 1);
  if (!/^(0|[1-9][0-9]*)$/.test(bitsText)) throw fail(`bad bits after slash: ${JSON.stringify(bitsText)}`);
  const bits = Number(bitsText);
  if (bits > addr.bytes.length * 8) throw fail('prefix length out of range');
  return { addr, bits };
}

/** Prefix.Masked(): the address with the bits after the prefix cleared. */
export function maskIpPrefix(p: IpPrefix): IpPrefix {
  const bytes = p.addr.bytes.slice();
  for (let i = 0; i < bytes.length; i++) {
    const keep = Math.max(0, Math.min(8, p.bits - i * 8));
    bytes[i]! &= (0xff << (8 - keep)) & 0xff;
  }
  return { addr: { bytes, zone: '' }, bits: p.bits };
}

/** Prefix.Contains: `a` is of the same family and inside the network. */
export function ipPrefixContains(p: IpPrefix, a: IpAddress): boolean {
  if (a.zone || a.bytes.length !== p.addr.bytes.length) return false;
  return ipAddressesEqual(maskIpPrefix(p).addr, maskIpPrefix({ addr: a, bits: p.bits }).addr);
}

export function formatIpPrefix(p: IpPrefix): string {
  return `${formatIpAddress(p.addr)}/${p.bits}`;
}
