/**
 * The DaemonSet controller: one pod of each DaemonSet on every node it fits, as
 * kube-controller-manager's does. Reconciles are keyed by DaemonSet; pod events map to the
 * controlling DaemonSet (settling its expectations) or, for an orphan, to the DaemonSets in
 * its namespace whose selector matches; a node that appears, disappears, or changes labels or
 * taints maps to the DaemonSets whose answer for that node changed.
 *
 * Pods are placed the way kube places them: required node affinity on `metadata.name`, so the
 * scheduler binds them (and accounts for their resources, which a pod bound directly would
 * bypass). `placement: 'nodeName'` binds them directly instead, for clusters without a
 * scheduler running, such as a large simulation that only exercises node agents.
 */
import type { V1DaemonSet, V1Node, V1Pod } from '@kubernetes/client-node';
import { NAMESPACE_INDEX, objectKey } from '../../runtime/cache.ts';
import { isConflict } from '../../runtime/client.ts';
import type { ControllerContext } from '../../runtime/context.ts';
import { Controller, controllerOf } from '../../runtime/controller.ts';
import type { DeepReadonly } from '../../runtime/readonly.ts';
import { resources } from '../../runtime/resources.ts';
import { Expectations } from '../../runtime/expectations.ts';
import { invalidSpecIsTerminal } from '../workload-common/errors.ts';
import { addOwnerIndexes, controllerKey } from '../workload-common/owners.ts';
import { isPodTerminal } from '../workload-common/pods.ts';
import { PodControl } from '../workload-common/pod-control.ts';
import type { PlacementMode } from './pod.ts';
import { makeDaemonSetReconcile, placementOf, selectorOf } from './sync.ts';

export interface DaemonSetControllerOptions {
  /** Concurrent reconciles (kube's --concurrent-daemonset-syncs); default 2. */
  workers?: number;
  /** Most pods created or deleted in one pass; default 250, as kube. */
  burstReplicas?: number;
  /** How pods are tied to their node; default 'affinity' (the scheduler binds them), as kube. */
  placement?: PlacementMode;
  /** How long to wait for the cache to show our own writes before acting again; default 5 min. */
  expectationsTtlMs?: number;
  /** Delay before replacing a failed daemon pod on the same node again: 1 s doubling to 15 min by default. */
  failedPodBackoff?: { initialMs?: number; maxMs?: number };
  /** How long a pod's progress (phase, readiness) may wait to be counted in the status; default 1 s. */
  statusBatchMs?: number;
}

const NAME = 'daemonset';

export function createDaemonSetController(ctx: ControllerContext, options: DaemonSetControllerOptions = {}): Controller {
  const logger = ctx.logger.child({ controller: NAME });
  const daemonSets = ctx.informers.informer<V1DaemonSet>(resources.daemonSets);
  const nodes = ctx.informers.informer<V1Node>(resources.nodes);
  const pods = ctx.informers.informer<V1Pod>(resources.pods);
  addOwnerIndexes(pods);
  const expectations = new Expectations({ clock: ctx.clock, ttlMs: options.expectationsTtlMs });
  const statusBatchMs = options.statusBatchMs ?? 1000;

  const controller = new Controller({
    name: NAME,
    workers: options.workers ?? 2,
    clock: ctx.clock,
    observer: ctx.metrics?.forController(NAME),
    // A conflict only means the cache was behind; the retry reads the newer object.
    onError: (r) => logger[isConflict(r.error) ? 'debug' : 'warn']({ key: r.key, err: String(r.error) }, 'sync failed'),
    reconcile: invalidSpecIsTerminal(makeDaemonSetReconcile({
      client: ctx.client,
      recorder: ctx.recorder,
      daemonSets,
      nodes,
      pods,
      podControl: new PodControl({ client: ctx.client, recorder: ctx.recorder }),
      expectations,
      burstReplicas: options.burstReplicas ?? 250,
      placementMode: options.placement ?? 'affinity',
      clock: ctx.clock,
      now: () => ctx.clock.wallNow(),
      failedPodBackoff: { initialMs: options.failedPodBackoff?.initialMs ?? 1000, maxMs: options.failedPodBackoff?.maxMs ?? 15 * 60_000 },
    })),
  });
  controller.watch(daemonSets);

  const ownerKey = (pod: DeepReadonly<V1Pod>): string | undefined => controllerKey(pod, 'DaemonSet', daemonSets);
  const adopters = (pod: DeepReadonly<V1Pod>): string[] =>
    daemonSets.store
      .byIndex(NAMESPACE_INDEX, pod.metadata?.namespace ?? '')
      .filter((ds) => selectorOf(ds)?.(pod.metadata?.labels))
      .map(objectKey);
  // While a burst of creates or deletes is still on its way to the cache, a reconcile only
  // recounts the status: the pods that complete the burst wake the DaemonSet at once, the ones
  // before them are coalesced (a burst is up to 250 pods, each otherwise a recount of every node).
  const observed = (key: string): void => {
    if (statusBatchMs > 0 && !expectations.satisfied(key)) controller.enqueueAfter(key, statusBatchMs);
    else controller.enqueue(key);
  };
  const podGone = (pod: DeepReadonly<V1Pod>): void => {
    const key = ownerKey(pod);
    if (!key) return;
    expectations.deletionObserved(key, objectKey(pod));
    observed(key);
  };

  pods.on('add', (pod) => {
    if (pod.metadata?.deletionTimestamp) return podGone(pod);
    const key = ownerKey(pod);
    if (key) {
      expectations.creationObserved(key);
      observed(key);
    } else if (!controllerOf(pod)) {
      for (const k of adopters(pod)) controller.enqueue(k);
    }
  });
  pods.on('update', (pod, old) => {
    if (pod.metadata?.resourceVersion === old.metadata?.resourceVersion) return;
    if (pod.metadata?.deletionTimestamp) return podGone(pod);
    const cur = controllerOf(pod);
    const prev = controllerOf(old);
    if (prev && prev.uid !== cur?.uid) {
      const oldKey = ownerKey(old);
      if (oldKey) controller.enqueue(oldKey);
    }
    if (cur) {
      const key = ownerKey(pod);
      if (!key) return;
      // A pod that only moved along (Pending, Running, Ready) changes the DaemonSet's status
      // counts and nothing else: coalesced, so that a DaemonSet of thousands of pods starting
      // at once is recounted a few times rather than once per pod event.
      const onlyProgress =
        prev?.uid === cur.uid &&
        pod.spec?.nodeName === old.spec?.nodeName &&
        isPodTerminal(pod) === isPodTerminal(old) &&
        JSON.stringify(pod.metadata?.labels ?? {}) === JSON.stringify(old.metadata?.labels ?? {});
      if (onlyProgress && statusBatchMs > 0) controller.enqueueAfter(key, statusBatchMs);
      else controller.enqueue(key);
      return;
    }
    const labelsChanged = JSON.stringify(pod.metadata?.labels ?? {}) !== JSON.stringify(old.metadata?.labels ?? {});
    if (labelsChanged || prev) for (const k of adopters(pod)) controller.enqueue(k);
  });
  pods.on('delete', podGone);

  // Heartbeats and status updates dominate node events in a large cluster; only what placement reads matters.
  const placementInput = (n: DeepReadonly<V1Node>): string => JSON.stringify([n.metadata?.labels ?? {}, n.spec?.taints ?? []]);
  nodes.on('add', (node) => {
    for (const ds of daemonSets.store.list()) if (placementOf(ds)(node).shouldRun) controller.enqueue(objectKey(ds));
  });
  nodes.on('update', (node, old) => {
    if (placementInput(node) === placementInput(old)) return;
    for (const ds of daemonSets.store.list()) {
      const place = placementOf(ds);
      const a = place(node);
      const b = place(old);
      if (a.shouldRun !== b.shouldRun || a.shouldContinueRunning !== b.shouldContinueRunning) controller.enqueue(objectKey(ds));
    }
  });
  // Which DaemonSets had the node counted is not worth tracking: there are few of them.
  nodes.on('delete', () => {
    for (const ds of daemonSets.store.list()) controller.enqueue(objectKey(ds));
  });

  return controller;
}
