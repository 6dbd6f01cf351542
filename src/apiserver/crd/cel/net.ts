/**
 * Kubernetes' IP and CIDR libraries: `isIP`, `ip`, `ip.isCanonical`, and on an address
 * `family`, `isUnspecified`, `isLoopback`, `isLinkLocalMulticast`, `isLinkLocalUnicast`,
 * `isGlobalUnicast`, `string()`; `isCIDR`, `cidr`, and on a network `containsIP`,
 * `containsCIDR`, `ip`, `masked`, `prefixLength`, `string()`. IPv4 and IPv6 are read as Go's
 * net/netip reads them (src/api/cidr.ts); zones and IPv4-mapped IPv6 addresses are refused,
 * as Kubernetes refuses them, with its error texts.
 */
import type { Environment } from '@marcbachmann/cel-js';
import {
  formatIpAddress, formatIpPrefix, type IpAddress, ipAddressesEqual, IpParseError, type IpPrefix, ipPrefixContains, isIPv4MappedIPv6,
  maskIpPrefix, parseIpAddress, parseIpPrefix,
} from '../../../api/cidr.ts';
import { type CelObject, fail } from './values.ts';

export class KubeIP implements CelObject {
  constructor(readonly addr: IpAddress) {}

  get family(): bigint {
    return this.addr.bytes.length === 4 ? 4n : 6n;
  }

  private get b(): Uint8Array {
    return this.addr.bytes;
  }

  isUnspecified(): boolean {
    return this.b.every((x) => x === 0);
  }

  isLoopback(): boolean {
    return this.b.length === 4 ? this.b[0] === 127 : this.b.subarray(0, 15).every((x) => x === 0) && this.b[15] === 1;
  }

  isMulticast(): boolean {
    return this.b.length === 4 ? (this.b[0]! & 0xf0) === 0xe0 : this.b[0] === 0xff;
  }

  isLinkLocalMulticast(): boolean {
    return this.b.length === 4 ? this.b[0] === 224 && this.b[1] === 0 && this.b[2] === 0 : this.b[0] === 0xff && (this.b[1]! & 0x0f) === 0x02;
  }

  isLinkLocalUnicast(): boolean {
    return this.b.length === 4 ? this.b[0] === 169 && this.b[1] === 254 : this.b[0] === 0xfe && (this.b[1]! & 0xc0) === 0x80;
  }

  /** Go's rule: private and ULA addresses are global unicast too. */
  isGlobalUnicast(): boolean {
    if (this.b.length === 4 && this.b.every((x) => x === 255)) return false;
    return !this.isUnspecified() && !this.isLoopback() && !this.isMulticast() && !this.isLinkLocalUnicast();
  }

  celEquals(other: unknown): boolean {
    return other instanceof KubeIP && ipAddressesEqual(this.addr, other.addr);
  }

  toString(): string {
    return formatIpAddress(this.addr);
  }
}

export class KubeCIDR implements CelObject {
  constructor(readonly prefix: IpPrefix) {}

  containsIP(ip: KubeIP): boolean {
    return ipPrefixContains(this.prefix, ip.addr);
  }

  /** The other network lies inside this one: same family, at least as long a prefix, same masked bits. */
  containsCIDR(other: KubeCIDR): boolean {
    if (other.prefix.addr.bytes.length !== this.prefix.addr.bytes.length || other.prefix.bits < this.prefix.bits) return false;
    return ipPrefixContains(this.prefix, other.prefix.addr);
  }

  masked(): KubeCIDR {
    return new KubeCIDR(maskIpPrefix(this.prefix));
  }

  celEquals(other: unknown): boolean {
    return other instanceof KubeCIDR && other.prefix.bits === this.prefix.bits && ipAddressesEqual(this.prefix.addr, other.prefix.addr);
  }

  toString(): string {
    return formatIpPrefix(this.prefix);
  }
}

/** The address, or Kubernetes' error for a string that is not one it accepts. */
function parseIp(s: string): KubeIP | string {
  let addr: IpAddress;
  try {
    addr = parseIpAddress(s);
  } catch (e) {
    if (e instanceof IpParseError) return `IP Address ${JSON.stringify(s)} parse error during conversion from string: ${e.message}`;
    throw e;
  }
  if (addr.zone) return `IP address ${JSON.stringify(s)} with zone value is not allowed`;
  if (isIPv4MappedIPv6(addr)) return `IPv4-mapped IPv6 address ${JSON.stringify(s)} is not allowed`;
  return new KubeIP(addr);
}

function parseCidr(s: string): KubeCIDR | string {
  const prefix = 'network address parse error during conversion from string: ';
  let p: IpPrefix;
  try {
    p = parseIpPrefix(s);
  } catch (e) {
    if (e instanceof IpParseError) return `${prefix}${prefix}${e.message}`;
    throw e;
  }
  if (isIPv4MappedIPv6(p.addr)) return `${prefix}IPv4-mapped IPv6 address ${JSON.stringify(s)} is not allowed`;
  return new KubeCIDR(p);
}

export const isIP = (s: string): boolean => typeof parseIp(s) !== 'string';
export const isCIDR = (s: string): boolean => typeof parseCidr(s) !== 'string';

export function ip(s: string): KubeIP {
  const r = parseIp(s);
  return typeof r === 'string' ? fail(r) : r;
}

export function cidr(s: string): KubeCIDR {
  const r = parseCidr(s);
  return typeof r === 'string' ? fail(r) : r;
}

/** The namespace of `ip.isCanonical(...)`, which shares its name with the `ip()` function. */
class IpLibrary {}

export function registerNet(env: Environment): void {
  const IP = 'net.IP';
  const CIDR = 'net.CIDR';
  env
    .registerType(IP, KubeIP)
    .registerType(CIDR, KubeCIDR)
    .registerType('IpLibrary', IpLibrary)
    .registerConstant('ip', 'IpLibrary', new IpLibrary())
    .registerFunction('isIP(string): bool', isIP)
    .registerFunction(`ip(string): ${IP}`, ip)
    .registerFunction('IpLibrary.isCanonical(string): bool', (_: IpLibrary, s: string) => ip(s).toString() === s)
    .registerFunction(`${IP}.family(): int`, (a: KubeIP) => a.family)
    .registerFunction(`${IP}.isUnspecified(): bool`, (a: KubeIP) => a.isUnspecified())
    .registerFunction(`${IP}.isLoopback(): bool`, (a: KubeIP) => a.isLoopback())
    .registerFunction(`${IP}.isLinkLocalMulticast(): bool`, (a: KubeIP) => a.isLinkLocalMulticast())
    .registerFunction(`${IP}.isLinkLocalUnicast(): bool`, (a: KubeIP) => a.isLinkLocalUnicast())
    .registerFunction(`${IP}.isGlobalUnicast(): bool`, (a: KubeIP) => a.isGlobalUnicast())
    .registerFunction(`string(${IP}): string`, (a: KubeIP) => a.toString())
    .registerOperator(`${IP} == ${IP}`, (a: KubeIP, b: KubeIP) => a.celEquals(b))
    .registerFunction('isCIDR(string): bool', isCIDR)
    .registerFunction(`cidr(string): ${CIDR}`, cidr)
    .registerFunction(`${CIDR}.containsIP(${IP}): bool`, (c: KubeCIDR, a: KubeIP) => c.containsIP(a))
    .registerFunction(`${CIDR}.containsIP(string): bool`, (c: KubeCIDR, s: string) => c.containsIP(ip(s)))
    .registerFunction(`${CIDR}.containsCIDR(${CIDR}): bool`, (c: KubeCIDR, o: KubeCIDR) => c.containsCIDR(o))
    .registerFunction(`${CIDR}.containsCIDR(string): bool`, (c: KubeCIDR, s: string) => c.containsCIDR(cidr(s)))
    .registerFunction(`${CIDR}.ip(): ${IP}`, (c: KubeCIDR) => new KubeIP(c.prefix.addr))
    .registerFunction(`${CIDR}.masked(): ${CIDR}`, (c: KubeCIDR) => c.masked())
    .registerFunction(`${CIDR}.prefixLength(): int`, (c: KubeCIDR) => BigInt(c.prefix.bits))
    .registerFunction(`string(${CIDR}): string`, (c: KubeCIDR) => c.toString())
    .registerOperator(`${CIDR} == ${CIDR}`, (a: KubeCIDR, b: KubeCIDR) => a.celEquals(b));
}
