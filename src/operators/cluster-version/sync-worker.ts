/**
 * One pass over a payload: every manifest applied and then waited on until healthy, in the
 * order the mode asks for. The pass is given its plan as levels of nodes: levels run one
 * after the other, the nodes of a level in parallel (bounded), a node's manifests in order.
 * A manifest is retried with backoff; a node whose manifest fails abandons the rest of its
 * node, and in update mode the levels after it (a later run level may depend on it), while in
 * install and reconcile modes everything else still runs, so one bad manifest never stops the
 * cluster from being put back together.
 *
 * The worker decides nothing about Kubernetes objects itself: applying, health and deletion
 * are given to it, so it can be tested with plain functions.
 */
import { sleep } from '../../runtime/clock.ts';

export type SyncMode = 'install' | 'update' | 'reconcile';

export interface PlannedManifest {
  /** The payload file, e.g. `0000_50_config-operator_03_deployment.yaml`. */
  readonly file: string;
  /** Index of the document within the file. */
  readonly index: number;
  readonly apiVersion: string;
  readonly kind: string;
  readonly namespace?: string;
  readonly name: string;
  /** `release.openshift.io/delete: "true"`: the object is to be removed. */
  readonly delete?: boolean;
}

export type Health = { ok: true } | { ok: false; reason: string; message: string; retryable: boolean };

export interface ManifestFailure {
  readonly manifest: PlannedManifest;
  readonly reason: string;
  readonly message: string;
  /** Still converging (an operator updating, a Deployment rolling out) rather than refused. */
  readonly waiting: boolean;
}

export interface SyncResult {
  readonly total: number;
  readonly done: number;
  readonly failures: readonly ManifestFailure[];
  /** Aborted from outside (a new desired release, a stop) before the plan finished. */
  readonly aborted: boolean;
}

export interface TaskBackoff {
  readonly initialMs: number;
  readonly factor: number;
  readonly capMs: number;
  /** Attempts per manifest within one pass. */
  readonly steps: number;
}

export interface SyncWorkerOptions {
  readonly mode: SyncMode;
  readonly plan: readonly (readonly (readonly PlannedManifest[])[])[];
  /** Creates or updates the object; throws with the API server's error. */
  readonly apply: (m: PlannedManifest, signal: AbortSignal) => Promise<void>;
  readonly health: (m: PlannedManifest, signal: AbortSignal) => Promise<Health>;
  readonly remove: (m: PlannedManifest, signal: AbortSignal) => Promise<void>;
  readonly backoff: TaskBackoff;
  readonly parallelism: number;
  readonly signal: AbortSignal;
  readonly onProgress?: (done: number, total: number) => void;
  /** A human-readable reason for an error (the API server's message, say). */
  readonly describeError?: (err: unknown) => { reason: string; message: string };
}

/** The CVO's per-mode task backoff: install is eager, updates patient. */
export function defaultBackoff(mode: SyncMode, intervalMs: number): TaskBackoff {
  if (mode === 'install') return { initialMs: Math.min(1000, intervalMs / 16), factor: 2, capMs: 15_000, steps: 4 };
  return { initialMs: Math.min(10_000, intervalMs / 12), factor: 1.3, capMs: 15_000, steps: 3 };
}

const defaultDescribe = (err: unknown): { reason: string; message: string } => ({ reason: 'UpdatePayloadFailed', message: err instanceof Error ? err.message : String(err) });

export async function runSyncPass(o: SyncWorkerOptions): Promise<SyncResult> {
  const total = o.plan.reduce((n, level) => n + level.reduce((m, node) => m + node.length, 0), 0);
  let done = 0;
  const failures: ManifestFailure[] = [];
  const describe = o.describeError ?? defaultDescribe;
  o.onProgress?.(0, total);

  const runManifest = async (m: PlannedManifest): Promise<ManifestFailure | undefined> => {
    let delay = o.backoff.initialMs;
    let last: ManifestFailure | undefined;
    for (let attempt = 1; attempt <= o.backoff.steps && !o.signal.aborted; attempt++) {
      try {
        if (m.delete) {
          // Deletion is issued once and not waited on, and only while updating (as the CVO does).
          if (o.mode === 'update') await o.remove(m, o.signal);
          return undefined;
        }
        await o.apply(m, o.signal);
        const h = await o.health(m, o.signal);
        if (h.ok) return undefined;
        last = { manifest: m, reason: h.reason, message: h.message, waiting: h.retryable };
        if (!h.retryable) return last;
      } catch (err) {
        const d = describe(err);
        last = { manifest: m, reason: d.reason, message: d.message, waiting: false };
      }
      if (attempt < o.backoff.steps) {
        await sleep(delay, o.signal);
        delay = Math.min(o.backoff.capMs, delay * o.backoff.factor);
      }
    }
    return last;
  };

  const runNode = async (node: readonly PlannedManifest[]): Promise<boolean> => {
    for (const m of node) {
      if (o.signal.aborted) return false;
      const failure = await runManifest(m);
      if (o.signal.aborted) return false;
      if (failure) {
        failures.push(failure);
        return false;
      }
      done++;
      o.onProgress?.(done, total);
    }
    return true;
  };

  for (const level of o.plan) {
    if (o.signal.aborted) break;
    const queue = [...level];
    let levelOk = true;
    const lanes = Array.from({ length: Math.max(1, Math.min(o.parallelism, queue.length)) }, async () => {
      for (let node = queue.shift(); node; node = queue.shift()) if (!(await runNode(node))) levelOk = false;
    });
    await Promise.all(lanes);
    if (!levelOk && o.mode === 'update') break;
  }
  return { total, done, failures, aborted: o.signal.aborted };
}
