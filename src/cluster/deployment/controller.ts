/**
 * The Deployment controller: rolls each Deployment's pod template out through ReplicaSets, one
 * per template revision, as kube-controller-manager's does. Reconciles are keyed by
 * Deployment; ReplicaSet events map to the controlling Deployment (or, for an orphan, to the
 * Deployments in its namespace whose selector matches, for adoption); a pod's deletion wakes
 * a Recreate Deployment, which waits for the old pods to be gone before starting new ones.
 */
import type { V1Deployment, V1Pod, V1ReplicaSet } from '@kubernetes/client-node';
import { compileLabelSelector, type LabelMatcher } from '../../api/label-selector.ts';
import { NAMESPACE_INDEX, objectKey } from '../../runtime/cache.ts';
import { isConflict } from '../../runtime/client.ts';
import type { ControllerContext } from '../../runtime/context.ts';
import { Controller, controllerOf } from '../../runtime/controller.ts';
import type { DeepReadonly } from '../../runtime/readonly.ts';
import { resources } from '../../runtime/resources.ts';
import { invalidSpecIsTerminal } from '../workload-common/errors.ts';
import { addOwnerIndexes, controllerKey } from '../workload-common/owners.ts';
import { makeDeploymentReconcile } from './sync.ts';

export interface DeploymentControllerOptions {
  /** Concurrent reconciles (kube's --concurrent-deployment-syncs); default 5. */
  workers?: number;
}

const NAME = 'deployment';

export function createDeploymentController(ctx: ControllerContext, options: DeploymentControllerOptions = {}): Controller {
  const logger = ctx.logger.child({ controller: NAME });
  const deployments = ctx.informers.informer<V1Deployment>(resources.deployments);
  const replicaSets = ctx.informers.informer<V1ReplicaSet>(resources.replicaSets);
  const pods = ctx.informers.informer<V1Pod>(resources.pods);
  addOwnerIndexes(replicaSets);
  addOwnerIndexes(pods);

  const controller = new Controller({
    name: NAME,
    workers: options.workers ?? 5,
    clock: ctx.clock,
    observer: ctx.metrics?.forController(NAME),
    // A conflict only means the cache was behind; the retry reads the newer object.
    onError: (r) => logger[isConflict(r.error) ? 'debug' : 'warn']({ key: r.key, err: String(r.error) }, 'sync failed'),
    reconcile: invalidSpecIsTerminal(makeDeploymentReconcile({ client: ctx.client, recorder: ctx.recorder, deployments, replicaSets, pods, now: () => ctx.clock.wallNow() })),
  });
  controller.watch(deployments);

  const selectors = new WeakMap<object, LabelMatcher | undefined>();
  const matcher = (d: DeepReadonly<V1Deployment>): LabelMatcher | undefined => {
    const sel = d.spec?.selector;
    if (!sel) return undefined;
    if (!selectors.has(sel)) selectors.set(sel, compileLabelSelector(sel).matches);
    return selectors.get(sel);
  };

  const ownerKey = (rs: DeepReadonly<V1ReplicaSet>): string | undefined => controllerKey(rs, 'Deployment', deployments);

  const adopters = (rs: DeepReadonly<V1ReplicaSet>): string[] =>
    deployments.store
      .byIndex(NAMESPACE_INDEX, rs.metadata?.namespace ?? '')
      .filter((d) => matcher(d)?.(rs.metadata?.labels))
      .map(objectKey);

  const enqueueOwner = (rs: DeepReadonly<V1ReplicaSet>): void => {
    const key = ownerKey(rs);
    if (key) controller.enqueue(key);
  };

  replicaSets.on('add', (rs) => {
    if (controllerOf(rs) || rs.metadata?.deletionTimestamp) return enqueueOwner(rs);
    for (const k of adopters(rs)) controller.enqueue(k);
  });
  replicaSets.on('update', (rs, old) => {
    if (rs.metadata?.resourceVersion === old.metadata?.resourceVersion) return;
    const cur = controllerOf(rs);
    const prev = controllerOf(old);
    if (prev && prev.uid !== cur?.uid) enqueueOwner(old);
    if (cur) return enqueueOwner(rs);
    const labelsChanged = JSON.stringify(rs.metadata?.labels ?? {}) !== JSON.stringify(old.metadata?.labels ?? {});
    if (labelsChanged || prev) for (const k of adopters(rs)) controller.enqueue(k);
  });
  replicaSets.on('delete', enqueueOwner);

  pods.on('delete', (pod) => {
    const rsKey = controllerKey(pod, 'ReplicaSet', replicaSets);
    const rs = rsKey ? replicaSets.store.get(rsKey) : undefined;
    if (!rs) return;
    const key = ownerKey(rs);
    if (key && deployments.store.get(key)?.spec?.strategy?.type === 'Recreate') controller.enqueue(key);
  });

  return controller;
}
