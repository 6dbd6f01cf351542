/**
 * ClusterVersion `status.history`: newest entry first, at most 100 entries. An update starts as
 * a Partial entry; reaching its release completes that entry; moving on to another release
 * closes the current entry (its completion time set, its state left as it was) and pushes a
 * new one. When the list outgrows its cap, the least informative entry goes, ranked as the
 * Cluster Version Operator ranks them (cluster-version-operator `pkg/cvo/status_history.go`):
 * the install entry, the five newest and the newest Completed one always stay; the first and
 * last Completed entry of each minor version are kept over Partial entries of a minor
 * transition, which are kept over other entries, which are kept over Partial entries within a
 * z-stream; among equals the oldest goes.
 */
import { formatTimestamp } from '../time.ts';
import type { UpdateHistory } from './cluster-version.ts';

export const maxHistory = 100;

export interface RecordOptions {
  /** The release has been fully applied. */
  readonly completed: boolean;
  /** The release image was verified (sticks once set). */
  readonly verified?: boolean;
  readonly acceptedRisks?: string;
  readonly now?: Date | string;
  readonly maxSize?: number;
}

/** The release an entry is for. */
export interface HistoryRelease {
  readonly version?: string;
  readonly image?: string;
}

/**
 * Whether `entry` records `desired`: the same image, or the same version. What the entry lacks
 * (a version, an image) is filled in from `desired`, so the match is also a merge.
 */
function mergeSameRelease(entry: UpdateHistory, desired: HistoryRelease): boolean {
  if (desired.image && desired.image === entry.image) {
    if (!desired.version) return true;
    if (!entry.version || entry.version === desired.version) {
      entry.version = desired.version;
      return true;
    }
  }
  if (desired.version && desired.version === entry.version) {
    if (!entry.image || entry.image === desired.image) {
      entry.image = desired.image ?? '';
      return true;
    }
  }
  return false;
}

/**
 * History after a sync pass towards `desired`. A release without an image is not recorded:
 * nobody could apply it again from the history.
 */
export function recordHistory(history: readonly UpdateHistory[] | undefined, desired: HistoryRelease, opts: RecordOptions): UpdateHistory[] {
  const list = (history ?? []).map((e) => ({ ...e }));
  if (!desired.image) return list;
  const now = typeof opts.now === 'string' ? opts.now : formatTimestamp(opts.now ?? new Date());
  const fresh = (state: UpdateHistory['state']): UpdateHistory => {
    const entry: UpdateHistory = { state, startedTime: now, completionTime: state === 'Completed' ? now : null, version: desired.version ?? '', image: desired.image!, verified: false };
    if (opts.acceptedRisks) entry.acceptedRisks = opts.acceptedRisks;
    return entry;
  };

  if (list.length === 0) list.push(fresh('Partial'));
  const last = list[0]!;
  if (!last.state) last.state = 'Partial';
  if (mergeSameRelease(last, desired)) {
    if (opts.completed) {
      last.state = 'Completed';
      last.completionTime ??= now;
    }
    if (opts.acceptedRisks !== undefined) last.acceptedRisks = opts.acceptedRisks;
  } else {
    last.completionTime ??= now;
    list.unshift(fresh(opts.completed ? 'Completed' : 'Partial'));
  }
  if (opts.verified) list[0]!.verified = true;
  return pruneHistory(list, opts.maxSize ?? maxHistory);
}

/** The version the cluster last fully reached: what `kubectl get clusterversion` shows as VERSION. */
export function currentVersion(history: readonly UpdateHistory[] | undefined): string | undefined {
  return history?.find((e) => e.state === 'Completed')?.version;
}

const minorOf = (version: string | undefined): string => version?.split('.')[1] ?? '';
const microOf = (version: string | undefined): string => version?.split('.')[2] ?? '';

/** Drops the least informative entries until at most `maxSize` remain. */
export function pruneHistory(history: readonly UpdateHistory[], maxSize: number = maxHistory): UpdateHistory[] {
  let list = [...history];
  while (list.length > maxSize) {
    const victim = leastInformative(list);
    list = list.filter((_, i) => i !== victim);
  }
  return list;
}

const keep = 1000;
const minorBoundary = 30;
const minorTransition = 20;
const zStreamTransition = -20;
/** Prefer dropping older entries, and never tie. */
const agePenalty = -1.01;
const newestKept = 5;

function leastInformative(h: readonly UpdateHistory[]): number {
  const initial = h.length - 1;
  const newestCompleted = h.findIndex((e) => e.state === 'Completed');
  const completedOlder = (i: number): number | undefined => {
    for (let j = i + 1; j < h.length; j++) if (h[j]!.state === 'Completed') return j;
    return undefined;
  };
  const completedNewer = (i: number): number | undefined => {
    for (let j = i - 1; j >= 0; j--) if (h[j]!.state === 'Completed') return j;
    return undefined;
  };
  const rank = (i: number): number => {
    const e = h[i]!;
    if (i === initial || i < newestKept || i === newestCompleted) return keep;
    const older = completedOlder(i);
    const newer = completedNewer(i);
    if (e.state === 'Completed') {
      const edge = older === undefined || newer === undefined || minorOf(h[older]!.version) !== minorOf(e.version) || minorOf(h[newer]!.version) !== minorOf(e.version);
      return edge ? minorBoundary : 0;
    }
    if (older === undefined || newer === undefined) return 0;
    const [o, n] = [h[older]!.version, h[newer]!.version];
    if (minorOf(o) !== minorOf(n)) return minorTransition;
    if (microOf(o) !== microOf(n)) return zStreamTransition;
    return 0;
  };
  let victim = 0;
  let lowest = Infinity;
  for (let i = 0; i < h.length; i++) {
    const r = rank(i) + agePenalty * i;
    if (r < lowest) {
      lowest = r;
      victim = i;
    }
  }
  return victim;
}
