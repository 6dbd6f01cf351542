/**
 * Pod IPs from the node's podCIDR, host-local style: one address per pod uid, persisted in the
 * node directory so a restarted datacenter gives a pod back the address it had. The first
 * address of the range stays with the node (the gateway on a real node).
 */
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { join } from 'node:path';
import { writeFileAtomic } from '../../api/files.ts';

function toInt(ip: string): number {
  return ip.split('.').reduce((a, o) => a * 256 + Number(o), 0);
}

function toIp(n: number): string {
  return [n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255].join('.');
}

export class PodIpAllocator {
  private readonly file: string;
  private byUid: Record<string, string>;

  constructor(nodeDir: string) {
    this.file = join(nodeDir, 'pod-ips.json');
    this.byUid = existsSync(this.file) ? (JSON.parse(readFileSync(this.file, 'utf8')) as Record<string, string>) : {};
  }

  allocate(uid: string, cidr: string): string {
    const existing = this.byUid[uid];
    const [base, bits] = cidr.split('/') as [string, string];
    const size = 2 ** (32 - Number(bits));
    const start = toInt(base);
    if (existing && toInt(existing) >= start && toInt(existing) < start + size) return existing;
    const used = new Set(Object.values(this.byUid));
    for (let i = 2; i < size - 1; i++) {
      const ip = toIp(start + i);
      if (!used.has(ip)) {
        this.byUid[uid] = ip;
        this.persist();
        return ip;
      }
    }
    throw new Error(`no free pod IP left in ${cidr}`);
  }

  release(uid: string): void {
    if (!(uid in this.byUid)) return;
    delete this.byUid[uid];
    this.persist();
  }

  private persist(): void {
    mkdirSync(dirname(this.file), { recursive: true });
    writeFileAtomic(this.file, JSON.stringify(this.byUid));
  }
}
