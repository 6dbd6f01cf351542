/**
 * Automatic compaction that is safe with several API servers on one store (issue 17): as
 * kube-apiserver's compactor does on etcd, every replica runs it, and a compare-and-swap on one
 * key (`compact_rev_key`, outside `/registry/`, so no API watch sees it) elects the one that
 * compacts each interval. The key's modRevision is the logical clock: a replica that swaps it
 * from the value it last saw wins the run; one that finds it moved learns the new value and
 * tries again next interval, so with N replicas the store is compacted about once per interval,
 * not N times, and when the winner dies another takes over within an interval.
 *
 * What is kept: every revision since the previous run and at least `keepRevisions`. A revision
 * count alone is a few seconds of history when thousands of kubelets renew Leases; a watch
 * resuming from its last bookmark (up to a minute old) would then find its history gone and
 * relist, so each run compacts only up to what the previous run saw. Because the key moves only
 * by swaps, two replicas never both compact the same interval; and were two compactions ever to
 * overlap, the backend's own progress record (re-read in each of its transactions) keeps them
 * from deleting the same rows twice.
 */
import type { Backend } from './types.ts';

export const COMPACT_KEY = 'compact_rev_key';

export interface CompactorOptions {
  readonly backend: Backend;
  /** Revisions always kept (default 10,000). */
  readonly keepRevisions?: number;
}

/** What one run did: lost the swap to another replica, or won it and maybe compacted. */
export type CompactionRun = { readonly won: false } | { readonly won: true; readonly compactedTo?: number };

export class Compactor {
  private readonly backend: Backend;
  private readonly keep: number;
  /** The key's modRevision as last seen (0: absent). */
  private seen = 0;
  /** The store's revision at this replica's previous run, won or lost. */
  private previous = 0;

  constructor(o: CompactorOptions) {
    this.backend = o.backend;
    this.keep = Math.max(0, o.keepRevisions ?? 10_000);
  }

  /** One interval's attempt. */
  async run(): Promise<CompactionRun> {
    const current = await this.backend.currentRevision();
    const previous = this.previous;
    this.previous = current;
    const swapped = this.seen === 0 ? await this.backend.create(COMPACT_KEY, String(previous)) : await this.backend.update(COMPACT_KEY, String(previous), this.seen);
    if (!swapped.ok) {
      this.seen = swapped.current?.modRevision ?? 0;
      return { won: false };
    }
    this.seen = swapped.revision;
    // The first run after a start only takes the clock, as kube's does: nothing is known of the last interval.
    if (previous === 0) return { won: true };
    const target = Math.min(previous, current - this.keep);
    if (target <= (await this.backend.compactRevision())) return { won: true };
    await this.backend.compact(target);
    return { won: true, compactedTo: target };
  }
}
