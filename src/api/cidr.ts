/** IPv4 CIDR arithmetic for carving per-node ranges out of the cluster range. */
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
