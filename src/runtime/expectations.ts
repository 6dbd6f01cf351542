/**
 * What a controller is still waiting to see in its cache after its own writes: the creations
 * it sent (pods of a ReplicaSet, Machines of a MachineSet), and the deletions by key. Until
 * they arrive (or a TTL passes, in case an event was lost), the controller must not act on
 * counts again, or informer lag after a burst of creates would make it create the same
 * replicas twice. This is kube's UIDTrackingControllerExpectations: deletions are tracked per
 * object, so seeing one object's deletion twice (deletionTimestamp, then the delete itself)
 * counts once. Here rather than in cluster/, since operators (the MachineSet controller) need
 * it too.
 */
import type { Clock } from './clock.ts';

interface Pending {
  creates: number;
  readonly deletes: Set<string>;
  readonly since: number;
}

export interface ExpectationsOptions {
  readonly clock: Clock;
  /** After this long, expectations are considered met whatever was observed: kube's 5 minutes. */
  readonly ttlMs?: number;
}

export class Expectations {
  private readonly pending = new Map<string, Pending>();
  private readonly clock: Clock;
  private readonly ttlMs: number;

  constructor(options: ExpectationsOptions) {
    this.clock = options.clock;
    this.ttlMs = options.ttlMs ?? 5 * 60_000;
  }

  /** True when nothing is outstanding for `key`, or what was outstanding is too old to wait for. */
  satisfied(key: string): boolean {
    const p = this.pending.get(key);
    if (!p) return true;
    if (p.creates <= 0 && p.deletes.size === 0) return true;
    return this.clock.now() - p.since > this.ttlMs;
  }

  /** Replaces whatever was expected for `key`. */
  expect(key: string, expected: { creates?: number; deletes?: Iterable<string> }): void {
    this.pending.set(key, { creates: expected.creates ?? 0, deletes: new Set(expected.deletes ?? []), since: this.clock.now() });
  }

  creationObserved(key: string, count = 1): void {
    const p = this.pending.get(key);
    if (p) p.creates -= count;
  }

  deletionObserved(key: string, objectKey: string): void {
    this.pending.get(key)?.deletes.delete(objectKey);
  }

  forget(key: string): void {
    this.pending.delete(key);
  }
}
