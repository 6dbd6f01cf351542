/**
 * The Machine API operator (OpenShift's machine-api-operator, pkg/operator): one key, and on
 * every sync, as `syncAll` does:
 *
 * 1. Read images.json from its file, every time (an admin swapping a controller edits the
 *    ConfigMap mounted there, seed 000), and the platform from the Infrastructure `cluster`.
 * 2. A platform without a machine controller (`None`, `External`, unknown): nothing to deploy;
 *    Available, "in NoOp mode".
 * 3. Otherwise apply the Deployment `machine-api-controllers` (controllers.ts) with the CVO's
 *    typed merge, only when the cached copy differs: a deleted Deployment is re-created, an edit
 *    reverted, a new image rolled out. Then wait for it to roll out and, while the cluster is
 *    still coming up, for its worker Machines (checks.ts).
 * 4. Report the ClusterOperator `machine-api` (status.ts). A failure goes back to the queue
 *    after it is reported, so it is retried with backoff.
 *
 * It watches the Infrastructure, its ClusterOperator and the controllers' Deployment; the
 * images file is watched by whoever runs it (watchImagesFile), since no API event says the
 * kubelet rewrote a mounted ConfigMap. Unlike OpenShift's, which blocks inside a sync while a
 * rollout converges, it never waits: the Deployment's status events sync it again.
 */
import { readFileSync, unwatchFile, watchFile, type StatsListener } from 'node:fs';
import type { KubernetesObject, V1Deployment } from '@kubernetes/client-node';
import { Infrastructure, type ClusterOperator } from '../../../api/config/index.ts';
import { Machine, MachineSet } from '../../../api/machine/index.ts';
import { applyManifest, mergeObject } from '../../../runtime/apply/index.ts';
import { errorText } from '../../../runtime/client.ts';
import { reportClusterOperatorStatus } from '../../../runtime/cluster-operator-status.ts';
import type { ControllerContext, EventSubject } from '../../../runtime/context.ts';
import { Controller } from '../../../runtime/controller.ts';
import type { Informer } from '../../../runtime/informer.ts';
import type { DeepReadonly } from '../../../runtime/readonly.ts';
import { refOf, resources } from '../../../runtime/resources.ts';
import { deploymentRollout, minimumWorkerMachines, type GateResult, type MachineLike, type MachineSetLike } from './checks.ts';
import { controllersDeployment } from './controllers.ts';
import { parseImagesJson, providerFor } from './images.ts';
import { CLUSTER_OPERATOR, CONTROLLERS, MAO_NAMESPACE, OPERATOR } from './names.ts';
import { desiredVersions, operatorStatus, reasons, type SyncOutcome } from './status.ts';

export interface MachineAPIOperatorOptions {
  /** Where images.json is on this host (read at every sync). */
  readonly imagesFile: string;
  /** How to name it in messages: the path as given (`--images-json`). */
  readonly imagesSource?: string;
  /** RELEASE_VERSION; without it no versions are reported, as OpenShift's operator does. */
  readonly releaseVersion?: string;
  /**
   * How long the controllers' Deployment must have been Available before the operator is
   * (OpenShift: 3 minutes). Default 0: Available as soon as the Deployment is.
   */
  readonly minimumAvailableMs?: number;
  /** How often a converged operator syncs anyway; default 10 minutes (OpenShift's resync). */
  readonly resyncMs?: number;
}

/** The one key: everything the operator does is one sync. */
export const SYNC_KEY = `${MAO_NAMESPACE}/${OPERATOR}`;
/** OpenShift's checkStatusRequeuePeriod: how soon a cluster still coming up is looked at again. */
const WORKER_RECHECK_MS = 5000;

/** Events are about the operator's own Deployment, in its namespace, as library-go's recorder reports them. */
const operatorSubject: EventSubject = { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { namespace: MAO_NAMESPACE, name: OPERATOR } };

export function createMachineAPIOperator(ctx: ControllerContext, o: MachineAPIOperatorOptions): Controller {
  const logger = ctx.logger.child({ controller: OPERATOR });
  const source = o.imagesSource ?? o.imagesFile;
  const minimumAvailableMs = o.minimumAvailableMs ?? 0;
  const resyncMs = o.resyncMs ?? 10 * 60_000;
  const desired = desiredVersions(o.releaseVersion);
  const byName = (name: string) => ({ fieldSelector: `metadata.name=${name}` });
  const infrastructures = ctx.informers.informer<Infrastructure>(refOf(Infrastructure), byName('cluster'));
  const deployments = ctx.informers.informer<V1Deployment>(resources.deployments, { namespace: MAO_NAMESPACE, ...byName(CONTROLLERS) });
  const clusterOperators = ctx.informers.informer<ClusterOperator>(resources.clusterOperators, byName(CLUSTER_OPERATOR));

  /** Applies the Deployment unless the cached copy already has everything it says; returns it as it now is. */
  async function ensureControllers(required: V1Deployment): Promise<DeepReadonly<V1Deployment>> {
    const cached = deployments.store.get(`${MAO_NAMESPACE}/${CONTROLLERS}`);
    if (cached && !mergeObject(cached, required).changed) return cached;
    const { action, object } = await applyManifest<V1Deployment>(ctx.client, resources.deployments, required as KubernetesObject);
    if (action === 'created') {
      logger.info({ deployment: CONTROLLERS }, 'created');
      ctx.recorder.event(operatorSubject, 'Normal', 'DeploymentCreated', `Created Deployment.apps/${CONTROLLERS} -n ${MAO_NAMESPACE} because it was missing`);
    } else if (action === 'updated') {
      logger.info({ deployment: CONTROLLERS }, 'reverted drift');
      ctx.recorder.event(operatorSubject, 'Normal', 'DeploymentUpdated', `Updated Deployment.apps/${CONTROLLERS} -n ${MAO_NAMESPACE} because it changed`);
    }
    return object as DeepReadonly<V1Deployment>;
  }

  /** While the ClusterOperator has never been Available, the cluster is still coming up. */
  const initializing = (co: DeepReadonly<ClusterOperator> | undefined): boolean => {
    const available = co?.status?.conditions?.find((c) => c.type === 'Available');
    return !available || available.reason === reasons.initializing;
  };

  async function workerGate(): Promise<GateResult> {
    const [sets, machines] = await Promise.all([
      ctx.client.listAll<KubernetesObject>(refOf(MachineSet), MAO_NAMESPACE),
      ctx.client.listAll<KubernetesObject>(refOf(Machine), MAO_NAMESPACE),
    ]);
    return minimumWorkerMachines(sets.items as MachineSetLike[], machines.items as MachineLike[]);
  }

  /** One sync; what it found, and when to look again if nothing else wakes it. */
  async function sync(): Promise<{ outcome: SyncOutcome; requeueAfterMs?: number }> {
    const images = parseImagesJson(readFileSync(o.imagesFile, 'utf8'), source);
    const infra = infrastructures.store.get('cluster');
    if (!infra) throw new Error('infrastructures.config.openshift.io "cluster" not found');
    const platform = infra.status?.platformStatus?.type;
    // OpenShift's wording for an Infrastructure without a platform.
    if (!platform) throw new Error('no platform provider found on install config');
    const provider = providerFor(platform, images, source);
    if (provider.noOp) return { outcome: { kind: 'noop' } };

    const live = await ensureControllers(controllersDeployment({ operatorImage: images.machineAPIOperator, providerImage: provider.image, releaseVersion: o.releaseVersion ?? '' }));
    const rollout = deploymentRollout(live, CONTROLLERS, ctx.clock.wallNow(), minimumAvailableMs);
    if (rollout.state === 'failed') return { outcome: { kind: 'failed', message: rollout.message } };
    if (rollout.state === 'pending') {
      logger.debug({ deployment: CONTROLLERS, status: rollout.message }, 'waiting for the rollout');
      return { outcome: { kind: 'pending' }, requeueAfterMs: rollout.requeueAfterMs };
    }
    if (initializing(clusterOperators.store.get(CLUSTER_OPERATOR))) {
      const workers = await workerGate();
      if (workers.state !== 'passed') {
        logger.info({ reason: workers.message }, 'cluster is initializing and minimum worker Machine requirements are not met');
        return { outcome: { kind: 'failed', message: workers.message }, requeueAfterMs: WORKER_RECHECK_MS };
      }
    }
    return { outcome: { kind: 'available' } };
  }

  const reconcile = async (): Promise<{ requeueAfterMs: number }> => {
    let result: { outcome: SyncOutcome; requeueAfterMs?: number };
    let failure: unknown;
    try {
      result = await sync();
    } catch (err) {
      failure = err;
      result = { outcome: { kind: 'failed', message: errorText(err) } };
    }
    const report = operatorStatus({ desired, current: clusterOperators.store.get(CLUSTER_OPERATOR)?.status, outcome: result.outcome, nowMs: ctx.clock.wallNow() });
    await reportClusterOperatorStatus(ctx.client, CLUSTER_OPERATOR, report, ctx.clock.wallNow());
    if (result.outcome.kind === 'failed') {
      ctx.recorder.event(operatorSubject, 'Warning', reasons.syncFailed, result.outcome.message);
      // An error goes back to the queue with backoff; a gate that only time passes, on its own timer.
      if (failure) throw failure;
    }
    return { requeueAfterMs: Math.min(resyncMs, result.requeueAfterMs ?? resyncMs) };
  };

  const controller = new Controller({
    name: OPERATOR,
    workers: 1,
    reconcile,
    clock: ctx.clock,
    observer: ctx.metrics?.forController(OPERATOR),
    onError: (r) => logger.warn({ err: errorText(r.error) }, 'sync failed'),
  });
  for (const informer of [infrastructures, deployments, clusterOperators] as Informer<KubernetesObject>[]) controller.watchMapped(informer, () => [SYNC_KEY]);
  controller.enqueue(SYNC_KEY);
  return controller;
}

/**
 * Calls `onChange` whenever the file at `path` changes (checked every `intervalMs`); returns the
 * function that stops watching. A mounted ConfigMap is rewritten by the kubelet in place of
 * the old file, and a host file by an editor, so the file's stat is polled rather than an
 * inotify watch kept on an inode that may be replaced.
 */
export function watchImagesFile(path: string, onChange: () => void, intervalMs = 2000): () => void {
  const listener: StatsListener = (now, before) => {
    if (now.mtimeMs !== before.mtimeMs || now.ino !== before.ino || now.size !== before.size) onChange();
  };
  watchFile(path, { interval: intervalMs, persistent: false }, listener);
  return () => unwatchFile(path, listener);
}
