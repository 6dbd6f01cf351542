/**
 * Node InternalIPs from 127.1.0.0/16 (ARCHITECTURE.md, "Addresses"). Addresses ending in .0 or
 * .255 are never handed out, so no node looks like a network or broadcast address. Allocation
 * moves a cursor forward and wraps, instead of always taking the lowest free address: an
 * address freed by a terminated instance is reused only after the rest of the range, so a stale
 * endpoint or certificate for the old node is unlikely to reach a new one.
 */

const base = (127 << 24) | (1 << 16);
const size = 1 << 16;

export interface IpAllocatorState {
  /** Offset in the /16 where the next search starts. */
  readonly cursor: number;
}

export class IpAllocator {
  private cursor: number;
  private readonly used = new Set<number>();

  constructor(state: IpAllocatorState = { cursor: 1 }, inUse: Iterable<string> = []) {
    this.cursor = state.cursor;
    for (const ip of inUse) this.used.add(offsetOf(ip));
  }

  allocate(): string {
    for (let i = 0; i < size; i++) {
      const offset = (this.cursor + i) % size;
      const last = offset & 0xff;
      if (last === 0 || last === 255 || this.used.has(offset)) continue;
      this.used.add(offset);
      this.cursor = (offset + 1) % size;
      return format(base + offset);
    }
    throw new Error('no free address left in 127.1.0.0/16');
  }

  release(ip: string): void {
    this.used.delete(offsetOf(ip));
  }

  state(): IpAllocatorState {
    return { cursor: this.cursor };
  }
}

function format(n: number): string {
  return [n >>> 24, (n >>> 16) & 0xff, (n >>> 8) & 0xff, n & 0xff].join('.');
}

function offsetOf(ip: string): number {
  const parts = ip.split('.').map(Number);
  if (parts.length !== 4 || parts[0] !== 127 || parts[1] !== 1 || parts.some((p) => !Number.isInteger(p) || p < 0 || p > 255)) {
    throw new Error(`${JSON.stringify(ip)} is not a node address in 127.1.0.0/16`);
  }
  return (parts[2]! << 8) | parts[3]!;
}
