/**
 * One DaemonSet reconcile, kube's syncDaemonSet: claim the pods and map them to their nodes;
 * unless earlier creates and deletes are still on their way to the cache, start a pod where
 * one is missing and remove those that must go, then (if that pass had nothing to do) take
 * a rolling-update step; finally write the status. Pods carry the template hash as their
 * `controller-revision-hash` label: our API server does not serve ControllerRevisions, so the
 * hash of the template itself names the revision.
 */
import type { V1DaemonSet, V1Node, V1Pod } from '@kubernetes/client-node';
import { compileLabelSelector, type LabelMatcher } from '../../api/label-selector.ts';
import { objectKey } from '../../runtime/cache.ts';
import type { ApiClient } from '../../runtime/client.ts';
import type { Clock } from '../../runtime/clock.ts';
import type { EventSink } from '../../runtime/context.ts';
import type { Informer } from '../../runtime/informer.ts';
import { terminal, type ReconcileResult } from '../../runtime/reconcile-loop.ts';
import { resources } from '../../runtime/resources.ts';
import { statusTargetOf, updateStatus } from '../../runtime/update-status.ts';
import { claim } from '../workload-common/claim.ts';
import type { Expectations } from '../../runtime/expectations.ts';
import { CONTROLLER_UID_INDEX, ORPHAN_INDEX, subjectOf } from '../workload-common/owners.ts';
import type { PodControl } from '../workload-common/pod-control.ts';
import { isPodTerminal } from '../workload-common/pods.ts';
import { slowStartBatch } from '../workload-common/slow-start.ts';
import { templateHash } from '../workload-common/template-hash.ts';
import { allowsSurge, decideNode, isSettled, isUpdated } from './manage.ts';
import { compilePlacement, targetNodeOf, type Placement } from './placement.ts';
import { daemonPod, type PlacementMode } from './pod.ts';
import { budgets, planRollingUpdate } from './rolling.ts';
import { daemonSetCounts } from './status.ts';
import type { DaemonSet, DaemonSetStatus, Pod } from './types.ts';

export interface DaemonSetSyncDeps {
  readonly client: ApiClient;
  readonly recorder: EventSink;
  readonly daemonSets: Informer<V1DaemonSet>;
  readonly nodes: Informer<V1Node>;
  readonly pods: Informer<V1Pod>;
  readonly podControl: PodControl;
  readonly expectations: Expectations;
  readonly burstReplicas: number;
  readonly placementMode: PlacementMode;
  readonly clock: Clock;
  /** Wall clock in ms, for minReadySeconds. */
  readonly now: () => number;
  /** Failed-pod replacement backoff per node: initial and maximum delay. */
  readonly failedPodBackoff: { readonly initialMs: number; readonly maxMs: number };
}

const DS = resources.daemonSets;

/** Compiled per spec object: a DaemonSet's spec is replaced (not mutated) when it changes. */
const compiledSelectors = new WeakMap<object, LabelMatcher | undefined>();
const compiledPlacements = new WeakMap<object, Placement>();

export function selectorOf(ds: DaemonSet): LabelMatcher | undefined {
  const sel = ds.spec?.selector;
  if (!sel) return undefined;
  if (!compiledSelectors.has(sel)) compiledSelectors.set(sel, compileLabelSelector(sel).matches);
  return compiledSelectors.get(sel);
}

export function placementOf(ds: DaemonSet): Placement {
  const spec = ds.spec ?? {};
  let p = compiledPlacements.get(spec);
  if (!p) compiledPlacements.set(spec, (p = compilePlacement(ds)));
  return p;
}

/** kube's failedPodsBackoff: per DaemonSet and node, doubling while failures keep coming. */
class FailureBackoff {
  private readonly entries = new Map<string, { at: number; delay: number }>();
  constructor(
    private readonly clock: Clock,
    private readonly initialMs: number,
    private readonly maxMs: number,
  ) {}

  /** Whether any node is in backoff: when none is, a reconcile need not build a key per node. */
  get empty(): boolean {
    return this.entries.size === 0;
  }

  /** Milliseconds left before failed pods on this node may be replaced again; 0 when free. */
  remaining(key: string): number {
    const e = this.entries.get(key);
    if (!e) return 0;
    return Math.max(0, e.at + e.delay - this.clock.now());
  }

  next(key: string): void {
    const now = this.clock.now();
    const e = this.entries.get(key);
    // A node quiet for twice the maximum starts over, as flowcontrol.Backoff does.
    const delay = !e || now - e.at > 2 * this.maxMs ? this.initialMs : Math.min(e.delay * 2, this.maxMs);
    this.entries.set(key, { at: now, delay });
  }

  /** Drops a deleted DaemonSet's entries. */
  forget(prefix: string): void {
    for (const k of this.entries.keys()) if (k.startsWith(prefix)) this.entries.delete(k);
  }
}

export function makeDaemonSetReconcile(deps: DaemonSetSyncDeps): (key: string) => Promise<ReconcileResult> {
  const { expectations, pods } = deps;
  const backoff = new FailureBackoff(deps.clock, deps.failedPodBackoff.initialMs, deps.failedPodBackoff.maxMs);

  /** Creates on `nodes` and deletes `victims`, in bursts, with expectations set first (kube's syncNodes). */
  async function syncNodes(ds: DaemonSet, key: string, hash: string, victims: readonly Pod[], nodes: readonly string[]): Promise<void> {
    const toCreate = nodes.slice(0, deps.burstReplicas);
    const toDelete = victims.slice(0, deps.burstReplicas);
    if (toCreate.length === 0 && toDelete.length === 0) return;
    expectations.expect(key, { creates: toCreate.length, deletes: toDelete.map(objectKey) });
    const created = toCreate.length ? await slowStartBatch(toCreate.length, 1, async (i) => void (await deps.podControl.create(DS, ds, daemonPod(ds, hash, toCreate[i]!, deps.placementMode)))) : { succeeded: 0 };
    expectations.creationObserved(key, toCreate.length - created.succeeded);
    const deleted = await Promise.allSettled(
      toDelete.map(async (pod) => {
        let ok = false;
        try {
          ok = await deps.podControl.delete(DS, ds, pod);
        } finally {
          if (!ok) expectations.deletionObserved(key, objectKey(pod));
        }
      }),
    );
    const failure = ('error' in created ? created.error : undefined) ?? deleted.find((r): r is PromiseRejectedResult => r.status === 'rejected')?.reason;
    if (failure !== undefined) throw failure;
  }

  return async function reconcile(key: string): Promise<ReconcileResult> {
    const ds = deps.daemonSets.store.get(key);
    if (!ds) {
      expectations.forget(key);
      backoff.forget(`${key}/`);
      return;
    }
    if (ds.metadata?.deletionTimestamp) return;
    const matches = selectorOf(ds);
    if (!matches) throw terminal(new Error(`DaemonSet ${key} has an invalid selector`));
    const placement = placementOf(ds);
    const hash = templateHash(ds.spec?.template);
    const now = deps.now();
    const minReadySeconds = ds.spec?.minReadySeconds ?? 0;
    const uid = ds.metadata?.uid ?? '';

    const candidates = [...pods.store.byIndex(CONTROLLER_UID_INDEX, uid), ...pods.store.byIndex(ORPHAN_INDEX, ds.metadata?.namespace ?? '')];
    const claimed = await claim({ client: deps.client, resource: resources.pods, ownerResource: DS, owner: ds, matches, candidates });
    const podsByNode = new Map<string, Pod[]>();
    // Whether any pod awaits replacement by the template's revision: without one, a rolling update has nothing to do.
    let anyOutdated = false;
    for (const pod of claimed) {
      // Finished pods already on their way out are no longer the DaemonSet's concern.
      if (isPodTerminal(pod) && pod.metadata?.deletionTimestamp) continue;
      const node = targetNodeOf(pod);
      if (node === undefined) continue;
      let list = podsByNode.get(node);
      if (!list) podsByNode.set(node, (list = []));
      list.push(pod);
      if (!pod.metadata?.deletionTimestamp && !isUpdated(pod, hash)) anyOutdated = true;
    }
    const nodes = deps.nodes.store.list();
    const fits = nodes.map((n) => ({ name: n.metadata?.name ?? '', fit: placement(n) }));

    const writeCounts = async (observed: boolean): Promise<DaemonSetStatus | undefined> => {
      const counts = daemonSetCounts({ nodes: fits.map((f) => ({ name: f.name, shouldRun: f.fit.shouldRun })), podsByNode, hash, minReadySeconds, nowMs: now });
      const previous = (ds.status ?? {}) as Partial<DaemonSetStatus>;
      const status: DaemonSetStatus = { ...previous, ...counts, observedGeneration: observed ? ds.metadata?.generation : previous.observedGeneration };
      await updateStatus(deps.client, statusTargetOf(DS, ds), () => status);
      return status;
    };

    if (!expectations.satisfied(key)) {
      await writeCounts(false);
      return;
    }

    // The manage pass: one pod on every node that should have one, none where none may stay.
    const surge = allowsSurge(ds);
    const createOn: string[] = [];
    const victims: Pod[] = [];
    let retryAfter = 0;
    const noBackoff = backoff.empty;
    for (const { name, fit } of fits) {
      const onNode = podsByNode.get(name) ?? [];
      // Most nodes, most of the time: skip building a decision for them.
      if (isSettled(fit, onNode)) continue;
      const wait = noBackoff ? 0 : backoff.remaining(`${key}/${name}`);
      const decision = decideNode({ fit, pods: onNode, hash, surge, minReadySeconds, nowMs: now, inBackoff: wait > 0 });
      if (decision.create) createOn.push(name);
      victims.push(...decision.delete);
      if (decision.backedOff) retryAfter = retryAfter ? Math.min(retryAfter, wait) : wait;
      if (decision.failed.length) {
        backoff.next(`${key}/${name}`);
        for (const pod of decision.failed) {
          deps.recorder.event(subjectOf(DS, ds), 'Warning', 'FailedDaemonPod', `Found failed daemon pod ${pod.metadata?.namespace}/${pod.metadata?.name} on node ${name}, will try to kill it`);
        }
      }
    }
    // Pods pinned to a node that no longer exists will never be scheduled.
    for (const [node, list] of podsByNode) if (!deps.nodes.store.get(node)) victims.push(...list.filter((p) => !p.spec?.nodeName));
    let syncError: unknown;
    try {
      await syncNodes(ds, key, hash, victims, createOn);
      const strategy = ds.spec?.updateStrategy?.type ?? 'RollingUpdate';
      if (anyOutdated && expectations.satisfied(key) && strategy === 'RollingUpdate') {
        const rollingNodes = new Map<string, readonly Pod[]>(podsByNode);
        let desired = 0;
        for (const f of fits) {
          if (!f.fit.shouldRun) continue;
          desired++;
          if (!rollingNodes.has(f.name)) rollingNodes.set(f.name, []);
        }
        const { maxSurge, maxUnavailable } = budgets(ds, desired);
        const shouldRun = new Map(fits.map((f) => [f.name, f.fit.shouldRun]));
        const step = planRollingUpdate({ nodes: rollingNodes, hash, maxSurge, maxUnavailable, minReadySeconds, nowMs: now, shouldRun: (n) => shouldRun.get(n) ?? false });
        await syncNodes(ds, key, hash, step.deletePods, step.createOn);
      }
    } catch (err) {
      syncError = err;
    }
    const status = await writeCounts(true);
    if (syncError !== undefined) throw syncError;
    // Availability after minReadySeconds arrives without an event; nor does the end of a backoff.
    let requeue = retryAfter;
    if (status && minReadySeconds > 0 && status.numberReady !== status.numberAvailable) requeue = requeue ? Math.min(requeue, minReadySeconds * 1000) : minReadySeconds * 1000;
    return requeue ? { requeueAfterMs: requeue } : undefined;
  };
}
