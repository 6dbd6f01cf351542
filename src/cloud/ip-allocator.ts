/**
 * Node InternalIPs from the datacenter's node range, 127.1.0.0/16 unless its address block says
 * otherwise (ARCHITECTURE.md, "Addresses"). Addresses ending in .0 or .255 are never handed out,
 * so no node looks like a network or broadcast address. Allocation moves a cursor forward and
 * wraps, instead of always taking the lowest free address: an address freed by a terminated
 * instance is reused only after the rest of the range, so a stale endpoint or certificate for
 * the old node is unlikely to reach a new one.
 */
import { intToIp, ipToInt, parseCidr } from '../api/cidr.ts';

export const DEFAULT_NODE_CIDR = '127.1.0.0/16';

export interface IpAllocatorState {
  /** Offset in the range where the next search starts. */
  readonly cursor: number;
}

export class IpAllocator {
  private cursor: number;
  private readonly used = new Set<number>();
  private readonly base: number;
  private readonly size: number;

  constructor(state: IpAllocatorState = { cursor: 1 }, inUse: Iterable<string> = [], private readonly cidr = DEFAULT_NODE_CIDR) {
    const { base, bits } = parseCidr(cidr);
    if (bits < 8 || bits > 24) throw new Error(`node range ${cidr}: the prefix must be between /8 and /24`);
    this.base = base;
    this.size = 2 ** (32 - bits);
    this.cursor = state.cursor % this.size;
    for (const ip of inUse) this.used.add(this.offsetOf(ip));
  }

  allocate(): string {
    for (let i = 0; i < this.size; i++) {
      const offset = (this.cursor + i) % this.size;
      const last = offset & 0xff;
      if (last === 0 || last === 255 || this.used.has(offset)) continue;
      this.used.add(offset);
      this.cursor = (offset + 1) % this.size;
      return intToIp(this.base + offset);
    }
    throw new Error(`no free address left in ${this.cidr}`);
  }

  release(ip: string): void {
    this.used.delete(this.offsetOf(ip));
  }

  private offsetOf(ip: string): number {
    let n: number;
    try {
      n = ipToInt(ip);
    } catch {
      n = -1;
    }
    const offset = n - this.base;
    if (n < 0 || offset < 0 || offset >= this.size) throw new Error(`${JSON.stringify(ip)} is not a node address in ${this.cidr}`);
    return offset;
  }

  state(): IpAllocatorState {
    return { cursor: this.cursor };
  }
}
