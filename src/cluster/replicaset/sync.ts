/**
 * One ReplicaSet reconcile, kube's syncReplicaSet: claim the pods (adopt matching orphans,
 * release controlled pods that stopped matching), create or delete pods to reach
 * `spec.replicas` unless earlier writes are still on their way to the cache, then write the
 * status. A failed create or delete is recorded as `ReplicaFailure` before the error goes
 * back to the queue for a retry with backoff.
 */
import type { V1Pod, V1ReplicaSet } from '@kubernetes/client-node';
import { compileLabelSelector, type LabelMatcher } from '../../api/label-selector.ts';
import { objectKey } from '../../runtime/cache.ts';
import type { ApiClient } from '../../runtime/client.ts';
import { controllerOf } from '../../runtime/controller.ts';
import type { Informer } from '../../runtime/informer.ts';
import { terminal, type ReconcileResult } from '../../runtime/reconcile-loop.ts';
import { resources } from '../../runtime/resources.ts';
import { statusTargetOf, updateStatus } from '../../runtime/update-status.ts';
import { claim } from '../workload-common/claim.ts';
import { errorMessage } from '../workload-common/errors.ts';
import type { Expectations } from '../../runtime/expectations.ts';
import { CONTROLLER_UID_INDEX, ORPHAN_INDEX } from '../workload-common/owners.ts';
import { podFromTemplate, type PodControl } from '../workload-common/pod-control.ts';
import { isPodActive, type Pod } from '../workload-common/pods.ts';
import { slowStartBatch } from '../workload-common/slow-start.ts';
import { podsToDelete } from './rank.ts';
import { calculateStatus, type ManageFailure } from './status.ts';
import type { ReplicaSet } from './types.ts';

export interface ReplicaSetSyncDeps {
  readonly client: ApiClient;
  readonly replicaSets: Informer<V1ReplicaSet>;
  readonly pods: Informer<V1Pod>;
  readonly podControl: PodControl;
  readonly expectations: Expectations;
  /** Most creates or deletes in one pass: kube's burstReplicas. */
  readonly burstReplicas: number;
  /** Wall clock in ms, for minReadySeconds and condition times. */
  readonly now: () => number;
}

const RS = resources.replicaSets;

/** Selectors are immutable, so each cached object's compiled selector can be kept with it. */
const compiled = new WeakMap<object, LabelMatcher | undefined>();
export function selectorOf(rs: ReplicaSet): LabelMatcher | undefined {
  const sel = rs.spec?.selector;
  if (!sel) return undefined;
  if (!compiled.has(sel)) compiled.set(sel, compileLabelSelector(sel).matches);
  return compiled.get(sel);
}

export function makeReplicaSetReconcile(deps: ReplicaSetSyncDeps): (key: string) => Promise<ReconcileResult> {
  const { expectations, pods } = deps;

  /** Active pods of every ReplicaSet with the same controller (a Deployment's other revisions). */
  function relatedPods(rs: ReplicaSet, own: readonly Pod[]): Pod[] {
    const owner = controllerOf(rs);
    if (!owner) return [...own];
    const out: Pod[] = [];
    for (const sibling of deps.replicaSets.store.byIndex(CONTROLLER_UID_INDEX, owner.uid)) {
      for (const p of pods.store.byIndex(CONTROLLER_UID_INDEX, sibling.metadata?.uid ?? '')) if (isPodActive(p)) out.push(p);
    }
    return out;
  }

  async function manage(rs: ReplicaSet, key: string, active: readonly Pod[]): Promise<void> {
    const diff = active.length - (rs.spec?.replicas ?? 1);
    if (diff < 0) {
      const n = Math.min(-diff, deps.burstReplicas);
      expectations.expect(key, { creates: n });
      const result = await slowStartBatch(n, 1, async () => {
        await deps.podControl.create(RS, rs, podFromTemplate(RS, rs, rs.spec!.template!));
      });
      // Creates that failed or were never sent will not show up in the cache.
      expectations.creationObserved(key, n - result.succeeded);
      if (result.error !== undefined) throw result.error;
    } else if (diff > 0) {
      const n = Math.min(diff, deps.burstReplicas);
      const victims = podsToDelete(active, relatedPods(rs, active), n, deps.now());
      expectations.expect(key, { deletes: victims.map(objectKey) });
      const results = await Promise.allSettled(
        victims.map(async (pod) => {
          let deleted = false;
          try {
            deleted = await deps.podControl.delete(RS, rs, pod);
          } finally {
            if (!deleted) expectations.deletionObserved(key, objectKey(pod));
          }
        }),
      );
      const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
      if (failed) throw failed.reason;
    }
  }

  return async function reconcile(key: string): Promise<ReconcileResult> {
    const rs = deps.replicaSets.store.get(key);
    if (!rs) {
      expectations.forget(key);
      return;
    }
    const needsSync = expectations.satisfied(key);
    const matches = selectorOf(rs);
    if (!matches) throw terminal(new Error(`ReplicaSet ${key} has an invalid selector`));
    const ns = rs.metadata?.namespace ?? '';
    const candidates = [...pods.store.byIndex(CONTROLLER_UID_INDEX, rs.metadata?.uid ?? ''), ...pods.store.byIndex(ORPHAN_INDEX, ns)];
    const claimed = await claim({ client: deps.client, resource: resources.pods, ownerResource: RS, owner: rs, matches, candidates });
    const active = claimed.filter(isPodActive);

    let failure: ManageFailure | undefined;
    let manageError: unknown;
    if (needsSync && !rs.metadata?.deletionTimestamp) {
      try {
        await manage(rs, key, active);
      } catch (err) {
        manageError = err;
        failure = { creating: active.length < (rs.spec?.replicas ?? 1), message: errorMessage(err) };
      }
    }
    const status = calculateStatus(rs, active, failure, deps.now());
    const { object: written } = await updateStatus(deps.client, statusTargetOf(RS, rs), () => status);
    if (manageError !== undefined) throw manageError;
    // Pods that are ready but not yet available become available with no event to say so.
    const minReadySeconds = rs.spec?.minReadySeconds ?? 0;
    if (written && minReadySeconds > 0 && status.readyReplicas === (rs.spec?.replicas ?? 1) && status.availableReplicas !== status.readyReplicas) {
      return { requeueAfterMs: minReadySeconds * 1000 };
    }
  };
}
