/**
 * The node lease controller for any number of nodes: each node's Lease is renewed at once when
 * it is set, then its interval (plus up to 4% jitter, as kube's JitterUntil) after each renewal
 * ends, until it is deleted. Runs wherever it is created: in the kubelet host's own thread, or
 * in the heartbeat thread (heartbeat-thread.ts).
 */
import type { ApiClient } from '../../runtime/client.ts';
import { Loops } from '../kubelet/loops.ts';
import { renewNodeLease, type NodeLease } from './node-lease.ts';

/** As kube's node lease controller: each renewal waits its interval plus up to 4% more. */
const LEASE_RENEW_JITTER = 0.04;

/** A renewal's outcome: when it started, how long it took as the kubelet saw it, and the error if it failed. */
export interface Renewal {
  readonly nodeName: string;
  /** Epoch ms: a report that crossed threads arrives later than the renewal ended. */
  readonly startedAt: number;
  readonly ms: number;
  readonly ok: boolean;
  readonly error?: string;
}

/** What the kubelet needs of whoever renews its Lease. */
export interface NodeLeases {
  /** Starts renewing the node's Lease, or updates what later renewals write. */
  set(lease: NodeLease): void;
  /** Stops renewing it (the kubelet stopped); the Lease itself stays, as it does in Kubernetes. */
  delete(nodeName: string): void;
  close(): Promise<void>;
}

interface Entry {
  lease: NodeLease;
  readonly loops: Loops;
  ownerWritten?: string;
}

export class LeaseRenewals implements NodeLeases {
  private readonly nodes = new Map<string, Entry>();

  /** `client` renews every Lease, or, given a function, the Lease it is asked for. */
  constructor(
    private readonly client: ApiClient | ((lease: NodeLease) => ApiClient),
    private readonly onRenewal: (r: Renewal) => void = () => {},
  ) {}

  set(lease: NodeLease): void {
    const entry = this.nodes.get(lease.nodeName);
    if (entry && entry.lease.renewMs === lease.renewMs) {
      entry.lease = lease;
      return;
    }
    entry?.loops.stop();
    // Loop errors are reported through onRenewal; the loop itself never sees one.
    const next: Entry = { lease, loops: new Loops(() => {}), ownerWritten: entry?.ownerWritten };
    this.nodes.set(lease.nodeName, next);
    next.loops.every(lease.renewMs, () => this.renew(next), 0, LEASE_RENEW_JITTER);
  }

  delete(nodeName: string): void {
    this.nodes.get(nodeName)?.loops.stop();
    this.nodes.delete(nodeName);
  }

  /** Nodes whose Leases are being renewed. */
  get size(): number {
    return this.nodes.size;
  }

  async close(): Promise<void> {
    for (const e of this.nodes.values()) e.loops.stop();
    this.nodes.clear();
  }

  private async renew(entry: Entry): Promise<void> {
    const startedAt = Date.now();
    const started = performance.now();
    try {
      const client = typeof this.client === 'function' ? this.client(entry.lease) : this.client;
      entry.ownerWritten = await renewNodeLease(client, entry.lease, entry.ownerWritten);
      this.onRenewal({ nodeName: entry.lease.nodeName, startedAt, ms: performance.now() - started, ok: true });
    } catch (err) {
      this.onRenewal({ nodeName: entry.lease.nodeName, startedAt, ms: performance.now() - started, ok: false, error: (err as Error).message });
    }
  }
}
