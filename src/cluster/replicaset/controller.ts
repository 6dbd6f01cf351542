/**
 * The ReplicaSet controller: keeps `spec.replicas` pods matching each ReplicaSet's selector
 * running, as kube-controller-manager's does. Reconciles are keyed by ReplicaSet; pod events
 * map to the ReplicaSet that controls the pod (and settle the expectations of that
 * ReplicaSet's own creates and deletes) or, for an orphan, to every ReplicaSet in its
 * namespace whose selector matches it, so it can be adopted.
 */
import type { V1Pod, V1ReplicaSet } from '@kubernetes/client-node';
import { NAMESPACE_INDEX, objectKey } from '../../runtime/cache.ts';
import { isConflict } from '../../runtime/client.ts';
import type { ControllerContext } from '../../runtime/context.ts';
import { Controller, controllerOf } from '../../runtime/controller.ts';
import type { DeepReadonly } from '../../runtime/readonly.ts';
import { resources } from '../../runtime/resources.ts';
import { Expectations } from '../../runtime/expectations.ts';
import { addOwnerIndexes, controllerKey } from '../workload-common/owners.ts';
import { PodControl } from '../workload-common/pod-control.ts';
import { makeReplicaSetReconcile, selectorOf } from './sync.ts';

export interface ReplicaSetControllerOptions {
  /** Concurrent reconciles (kube's --concurrent-replicaset-syncs); default 5. */
  workers?: number;
  /** Most pods created or deleted in one pass; default 500, as kube. */
  burstReplicas?: number;
  /** How long to wait for the cache to show our own writes before acting again; default 5 min. */
  expectationsTtlMs?: number;
}

const NAME = 'replicaset';

export function createReplicaSetController(ctx: ControllerContext, options: ReplicaSetControllerOptions = {}): Controller {
  const logger = ctx.logger.child({ controller: NAME });
  const replicaSets = ctx.informers.informer<V1ReplicaSet>(resources.replicaSets);
  const pods = ctx.informers.informer<V1Pod>(resources.pods);
  addOwnerIndexes(replicaSets);
  addOwnerIndexes(pods);
  const expectations = new Expectations({ clock: ctx.clock, ttlMs: options.expectationsTtlMs });

  const controller = new Controller({
    name: NAME,
    workers: options.workers ?? 5,
    clock: ctx.clock,
    observer: ctx.metrics?.forController(NAME),
    // A conflict only means the cache was behind; the retry reads the newer object.
    onError: (r) => logger[isConflict(r.error) ? 'debug' : 'warn']({ key: r.key, err: String(r.error) }, 'sync failed'),
    reconcile: makeReplicaSetReconcile({
      client: ctx.client,
      replicaSets,
      pods,
      podControl: new PodControl({ client: ctx.client, recorder: ctx.recorder }),
      expectations,
      burstReplicas: options.burstReplicas ?? 500,
      now: () => ctx.clock.wallNow(),
    }),
  });
  controller.watch(replicaSets);

  const ownerKey = (pod: DeepReadonly<V1Pod>): string | undefined => controllerKey(pod, 'ReplicaSet', replicaSets);

  const matchingReplicaSets = (pod: DeepReadonly<V1Pod>): string[] =>
    replicaSets.store
      .byIndex(NAMESPACE_INDEX, pod.metadata?.namespace ?? '')
      .filter((rs) => selectorOf(rs)?.(pod.metadata?.labels))
      .map(objectKey);

  const podGone = (pod: DeepReadonly<V1Pod>): void => {
    const key = ownerKey(pod);
    if (!key) return;
    expectations.deletionObserved(key, objectKey(pod));
    controller.enqueue(key);
  };

  pods.on('add', (pod) => {
    // A pod already being deleted when first seen (say, after a restart) only matters as a deletion.
    if (pod.metadata?.deletionTimestamp) return podGone(pod);
    const key = ownerKey(pod);
    if (key) {
      expectations.creationObserved(key);
      controller.enqueue(key);
    } else if (!controllerOf(pod)) {
      for (const k of matchingReplicaSets(pod)) controller.enqueue(k);
    }
  });

  pods.on('update', (pod, old) => {
    if (pod.metadata?.resourceVersion === old.metadata?.resourceVersion) return;
    const labelsChanged = JSON.stringify(pod.metadata?.labels ?? {}) !== JSON.stringify(old.metadata?.labels ?? {});
    if (pod.metadata?.deletionTimestamp) {
      podGone(pod);
      if (labelsChanged) podGone(old);
      return;
    }
    const cur = controllerOf(pod);
    const prev = controllerOf(old);
    const refChanged = cur?.uid !== prev?.uid;
    if (refChanged && prev) {
      const oldKey = ownerKey(old);
      if (oldKey) controller.enqueue(oldKey);
    }
    if (cur) {
      const key = ownerKey(pod);
      if (key) controller.enqueue(key);
      return;
    }
    if (labelsChanged || refChanged) for (const k of matchingReplicaSets(pod)) controller.enqueue(k);
  });

  pods.on('delete', podGone);
  return controller;
}
