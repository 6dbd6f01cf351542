/**
 * One Deployment reconcile, kube's syncDeployment: claim the ReplicaSets, then either resize
 * them (a paused Deployment, or a change of `spec.replicas`) or take one step of the rollout
 * (RollingUpdate or Recreate), and write the status. Each step reads the ReplicaSets' sizes
 * and availability, changes what it may, and returns; the ReplicaSets' status changes bring
 * the Deployment back to the queue for the next step.
 *
 * The revision annotation on the Deployment is written with a merge patch on the object
 * itself (our API server keeps metadata out of status writes), the rest through `status`.
 */
import type { V1Deployment, V1Pod, V1ReplicaSet } from '@kubernetes/client-node';
import { compileLabelSelector, isEmptySelector } from '../../api/label-selector.ts';
import { canonicalJson } from '../../runtime/canonical-json.ts';
import { isAlreadyExists, isConflict, isNotFound, type ApiClient } from '../../runtime/client.ts';
import type { EventSink } from '../../runtime/context.ts';
import { controllerOf } from '../../runtime/controller.ts';
import type { Informer } from '../../runtime/informer.ts';
import { terminal, type ReconcileResult } from '../../runtime/reconcile-loop.ts';
import { resources } from '../../runtime/resources.ts';
import { statusTargetOf, updateStatus } from '../../runtime/update-status.ts';
import { claim } from '../workload-common/claim.ts';
import { errorMessage } from '../workload-common/errors.ts';
import { CONTROLLER_UID_INDEX, ORPHAN_INDEX, controllerRef, subjectOf } from '../workload-common/owners.ts';
import { isPodTerminal } from '../workload-common/pods.ts';
import { POD_TEMPLATE_HASH_LABEL, templateHash, templatesEqualIgnoringHash } from '../workload-common/template-hash.ts';
import { REVISION, maxRevision, replicasAnnotationsNeedUpdate, setNewReplicaSetAnnotations, setReplicasAnnotations } from './annotations.ts';
import { planProportionalScale } from './proportional.ts';
import { filterActive, findActiveOrLatest, findNewReplicaSet, isSaturated, isScalingEvent, sortByRevision, view } from './replicasets.ts';
import { maxSurge, maxUnavailable, newReplicaSetReplicas, planOldReplicaSetScaleDown, replicasOf } from './rolling.ts';
import {
  PROGRESSING,
  Reason,
  calculateStatus,
  currentStatus,
  deploymentComplete,
  getCondition,
  hasProgressDeadline,
  newCondition,
  progressRecheckMs,
  quote,
  rolloutStatus,
  setCondition,
} from './status.ts';
import type { Deployment, DeploymentObject, ReplicaSet } from './types.ts';

export interface DeploymentSyncDeps {
  readonly client: ApiClient;
  readonly recorder: EventSink;
  readonly deployments: Informer<V1Deployment>;
  readonly replicaSets: Informer<V1ReplicaSet>;
  readonly pods: Informer<V1Pod>;
  /** Wall clock in ms, for condition times and the progress deadline. */
  readonly now: () => number;
}

const DEPLOY = resources.deployments;
const RS = resources.replicaSets;

/** The Deployment disappeared mid-reconcile: stop quietly, its absence is the answer. */
class Gone extends Error {}

export function makeDeploymentReconcile(deps: DeploymentSyncDeps): (key: string) => Promise<ReconcileResult> {
  return async (key) => {
    const cached = deps.deployments.store.get(key);
    if (!cached) return;
    try {
      return await new DeploymentSync(deps, cached as unknown as Deployment).run();
    } catch (err) {
      if (err instanceof Gone) return;
      throw err;
    }
  };
}

class DeploymentSync {
  /** Working copy: annotations and status as this reconcile has decided them. */
  private d: DeploymentObject;
  /** The Deployment as the server last showed it (for resourceVersion and "did anything change"). */
  private server: Deployment;
  /** uid → the latest copy of each claimed ReplicaSet. */
  private readonly sets = new Map<string, ReplicaSet>();
  private newUid: string | undefined;

  constructor(
    private readonly deps: DeploymentSyncDeps,
    cached: Deployment,
  ) {
    this.server = cached;
    this.d = structuredClone(cached) as DeploymentObject;
    this.d.status = currentStatus(cached);
  }

  private get dep(): Deployment {
    return this.d as Deployment;
  }
  private get desired(): number {
    return this.d.spec?.replicas ?? 1;
  }
  private get newRS(): ReplicaSet | undefined {
    return this.newUid ? this.sets.get(this.newUid) : undefined;
  }
  private get oldRSs(): ReplicaSet[] {
    return [...this.sets.values()].filter((rs) => rs.metadata?.uid !== this.newUid);
  }
  private get allRSs(): ReplicaSet[] {
    const n = this.newRS;
    return n ? [...this.oldRSs, n] : this.oldRSs;
  }
  private put(rs: ReplicaSet): ReplicaSet {
    this.sets.set(rs.metadata?.uid ?? '', rs);
    return rs;
  }
  private now(): number {
    return this.deps.now();
  }
  private event(type: 'Normal' | 'Warning', reason: string, message: string): void {
    this.deps.recorder.event(subjectOf(DEPLOY, this.d), type, reason, message);
  }

  async run(): Promise<ReconcileResult> {
    const selector = this.d.spec?.selector;
    if (isEmptySelector(selector)) {
      this.event('Warning', 'SelectingAll', 'This deployment is selecting all pods. A non-empty selector is required.');
      if ((this.d.status?.observedGeneration ?? 0) < (this.d.metadata?.generation ?? 0)) {
        this.d.status!.observedGeneration = this.d.metadata?.generation;
        await this.save();
      }
      return;
    }
    const { matches } = compileLabelSelector(selector);
    if (!matches) throw terminal(new Error(`Deployment ${this.d.metadata?.namespace}/${this.d.metadata?.name} has an invalid selector`));
    const rsStore = this.deps.replicaSets.store;
    const candidates = [...rsStore.byIndex(CONTROLLER_UID_INDEX, this.d.metadata?.uid ?? ''), ...rsStore.byIndex(ORPHAN_INDEX, this.d.metadata?.namespace ?? '')];
    for (const rs of await claim({ client: this.deps.client, resource: RS, ownerResource: DEPLOY, owner: this.d, matches, candidates })) this.put(rs);

    if (this.d.metadata?.deletionTimestamp) {
      this.newUid = findNewReplicaSet(this.dep, this.allRSs)?.metadata?.uid;
      return this.syncStatus();
    }
    await this.checkPausedCondition();
    if (this.d.spec?.paused || isScalingEvent(this.dep, this.allRSs)) return this.syncScale();
    if (this.d.spec?.strategy?.type === 'Recreate') return this.rolloutRecreate();
    return this.rolloutRolling();
  }

  /** Writes the revision annotation (if changed) and the status (if changed). */
  private async save(): Promise<void> {
    const { client } = this.deps;
    const ns = this.d.metadata?.namespace;
    const name = this.d.metadata?.name ?? '';
    const revision = this.d.metadata?.annotations?.[REVISION];
    if (revision !== undefined && this.server.metadata?.annotations?.[REVISION] !== revision) {
      try {
        this.server = (await client.patch<V1Deployment>(DEPLOY, ns, name, { metadata: { uid: this.d.metadata?.uid, annotations: { [REVISION]: revision } } })) as unknown as Deployment;
      } catch (err) {
        if (isNotFound(err) || isConflict(err)) throw new Gone();
        throw err;
      }
    }
    const { object: written } = await updateStatus(client, statusTargetOf(DEPLOY, this.server), () => this.d.status);
    if (!written) throw new Gone();
    this.server = written as unknown as Deployment;
    this.d.metadata = { ...this.d.metadata, resourceVersion: written.metadata?.resourceVersion };
  }

  // ---- finding and creating the new ReplicaSet -------------------------------------------

  /**
   * Identifies the new ReplicaSet and brings its annotations (revision, the Deployment's own)
   * up to date; with `create`, makes it if there is none. kube's getNewReplicaSet.
   */
  private async resolveNewReplicaSet(create: boolean): Promise<void> {
    const existing = findNewReplicaSet(this.dep, this.allRSs);
    this.newUid = existing?.metadata?.uid;
    const revision = maxRevision(this.oldRSs) + 1;
    if (existing) return this.syncExistingNewReplicaSet(existing, revision);
    if (create) await this.createNewReplicaSet(revision);
  }

  private async syncExistingNewReplicaSet(existing: ReplicaSet, revision: number): Promise<void> {
    const copy = structuredClone(existing) as V1ReplicaSet;
    copy.metadata!.annotations ??= {};
    const desired = this.desired;
    const annotationsChanged = setNewReplicaSetAnnotations(this.d.metadata?.annotations, copy.metadata!.annotations, revision, { exists: true, desired, max: desired + maxSurge(this.dep) });
    const minReady = this.d.spec?.minReadySeconds ?? 0;
    if (annotationsChanged || (copy.spec?.minReadySeconds ?? 0) !== minReady) {
      copy.spec!.minReadySeconds = minReady;
      this.put((await this.deps.client.update(RS, copy)) as ReplicaSet);
    }
    let changed = this.setRevision(copy.metadata!.annotations[REVISION]);
    if (hasProgressDeadline(this.dep) && !getCondition(this.d.status, PROGRESSING)) {
      setCondition(this.d.status!, newCondition(PROGRESSING, 'True', Reason.FoundNewReplicaSet, `Found new replica set ${quote(copy.metadata?.name)}`, this.now()));
      changed = true;
    }
    if (changed) await this.save();
  }

  private setRevision(revision: string | undefined): boolean {
    if (revision === undefined || this.d.metadata?.annotations?.[REVISION] === revision) return false;
    this.d.metadata = { ...this.d.metadata, annotations: { ...this.d.metadata?.annotations, [REVISION]: revision } };
    return true;
  }

  private async createNewReplicaSet(revision: number): Promise<void> {
    const d = this.d;
    const hash = templateHash(d.spec?.template, d.status?.collisionCount);
    const template = structuredClone(d.spec!.template);
    template.metadata = { ...template.metadata, labels: { ...template.metadata?.labels, [POD_TEMPLATE_HASH_LABEL]: hash } };
    const selector = structuredClone(d.spec!.selector);
    selector.matchLabels = { ...selector.matchLabels, [POD_TEMPLATE_HASH_LABEL]: hash };
    const name = `${d.metadata?.name}-${hash}`;
    const rs: V1ReplicaSet = {
      apiVersion: 'apps/v1',
      kind: 'ReplicaSet',
      metadata: { name, namespace: d.metadata?.namespace, labels: template.metadata.labels, annotations: {}, ownerReferences: [controllerRef(DEPLOY, d)] },
      spec: { replicas: 0, minReadySeconds: d.spec?.minReadySeconds ?? 0, selector, template },
    };
    const replicas = newReplicaSetReplicas(this.dep, [...this.oldRSs, rs as ReplicaSet], rs as ReplicaSet);
    rs.spec!.replicas = replicas;
    setNewReplicaSetAnnotations(d.metadata?.annotations, rs.metadata!.annotations!, revision, { exists: false, desired: this.desired, max: this.desired + maxSurge(this.dep) });

    let created: ReplicaSet;
    let alreadyExisted = false;
    try {
      created = (await this.deps.client.create(RS, rs)) as ReplicaSet;
    } catch (err) {
      if (!isAlreadyExists(err)) {
        const message = `Failed to create new replica set ${quote(name)}: ${errorMessage(err)}`;
        if (hasProgressDeadline(this.dep)) {
          setCondition(this.d.status!, newCondition(PROGRESSING, 'False', Reason.ReplicaSetCreateError, message, this.now()));
          await this.save();
        }
        this.event('Warning', 'FailedCreate', message);
        throw err;
      }
      // Ours from an earlier pass the cache has not shown yet, or a hash collision with someone else's.
      const found = (await this.deps.client.get<V1ReplicaSet>(RS, d.metadata?.namespace, name)) as ReplicaSet;
      if (controllerOf(found)?.uid !== d.metadata?.uid || !templatesEqualIgnoringHash(found.spec?.template, d.spec?.template)) {
        this.d.status!.collisionCount = (this.d.status?.collisionCount ?? 0) + 1;
        await this.save();
        throw new Error(`ReplicaSet ${name} exists with another template (hash collision); retrying with collisionCount ${this.d.status!.collisionCount}`);
      }
      created = found;
      alreadyExisted = true;
    }
    this.put(created);
    this.newUid = created.metadata?.uid;
    if (!alreadyExisted && replicas > 0) this.event('Normal', 'ScalingReplicaSet', `Scaled up replica set ${name} from 0 to ${replicas}`);
    let changed = this.setRevision(String(revision));
    if (!alreadyExisted && hasProgressDeadline(this.dep)) {
      setCondition(this.d.status!, newCondition(PROGRESSING, 'True', Reason.NewReplicaSetCreated, `Created new replica set ${quote(name)}`, this.now()));
      changed = true;
    }
    if (changed) await this.save();
  }

  // ---- scaling ---------------------------------------------------------------------------

  /** Resizes a ReplicaSet (and stamps the size it was made for); true when its size changed. */
  private async scaleReplicaSet(rs: ReplicaSet, size: number, direction?: 'up' | 'down'): Promise<boolean> {
    const from = replicasOf(rs);
    const desired = this.desired;
    const max = desired + maxSurge(this.dep);
    if (from === size && !replicasAnnotationsNeedUpdate(rs, desired, max)) return false;
    const copy = structuredClone(rs) as V1ReplicaSet;
    copy.spec!.replicas = size;
    copy.metadata!.annotations ??= {};
    setReplicasAnnotations(copy.metadata!.annotations, desired, max);
    this.put((await this.deps.client.update(RS, copy)) as ReplicaSet);
    if (from === size) return false;
    const op = direction ?? (from < size ? 'up' : 'down');
    this.event('Normal', 'ScalingReplicaSet', `Scaled ${op} replica set ${rs.metadata?.name} to ${size} from ${from}`);
    return true;
  }

  /** A paused Deployment or a change of replicas: resize without moving the rollout (kube's sync). */
  private async syncScale(): Promise<ReconcileResult> {
    await this.resolveNewReplicaSet(false);
    await this.scale();
    if (this.d.spec?.paused) await this.cleanup();
    return this.syncStatus();
  }

  private async scale(): Promise<void> {
    const newRS = this.newRS;
    const target = findActiveOrLatest(newRS, this.oldRSs);
    if (target) {
      if (replicasOf(target) !== this.desired) await this.scaleReplicaSet(target, this.desired);
      return;
    }
    if (isSaturated(this.dep, newRS)) {
      for (const rs of filterActive(this.oldRSs)) await this.scaleReplicaSet(rs, 0);
      return;
    }
    if (this.d.spec?.strategy?.type === 'Recreate') return;
    const active = filterActive(this.allRSs);
    const { sizes, direction } = planProportionalScale({
      desired: this.desired,
      maxSurge: maxSurge(this.dep),
      statusReplicas: this.server.status?.replicas ?? 0,
      active: active.map(view),
    });
    const byName = new Map(active.map((rs) => [rs.metadata?.name ?? '', rs]));
    for (const [name, size] of sizes) await this.scaleReplicaSet(byName.get(name)!, size, direction === 'none' ? undefined : direction);
  }

  // ---- rollouts --------------------------------------------------------------------------

  private async rolloutRolling(): Promise<ReconcileResult> {
    await this.resolveNewReplicaSet(true);
    const newRS = this.newRS;
    if (!newRS) throw new Error('no new ReplicaSet after creating one');
    if (replicasOf(newRS) !== this.desired) {
      const size = replicasOf(newRS) > this.desired ? this.desired : newReplicaSetReplicas(this.dep, this.allRSs, newRS);
      if (await this.scaleReplicaSet(newRS, size)) return this.syncRolloutStatus();
    }
    const plan = planOldReplicaSetScaleDown({
      desired: this.desired,
      maxUnavailable: maxUnavailable(this.dep),
      newRS: { replicas: replicasOf(newRS), available: newRS.status?.availableReplicas ?? 0 },
      old: this.oldRSs.map(view),
    });
    if (plan.size > 0) {
      const byName = new Map(this.oldRSs.map((rs) => [rs.metadata?.name ?? '', rs]));
      for (const [name, size] of plan) await this.scaleReplicaSet(byName.get(name)!, size);
      return this.syncRolloutStatus();
    }
    if (deploymentComplete(this.dep, this.d.status!)) await this.cleanup();
    return this.syncRolloutStatus();
  }

  private async rolloutRecreate(): Promise<ReconcileResult> {
    await this.resolveNewReplicaSet(false);
    let scaledDown = false;
    for (const rs of filterActive(this.oldRSs)) if (await this.scaleReplicaSet(rs, 0)) scaledDown = true;
    if (scaledDown || this.oldPodsRunning()) return this.syncRolloutStatus();
    if (!this.newRS) await this.resolveNewReplicaSet(true);
    const newRS = this.newRS;
    if (!newRS) throw new Error('no new ReplicaSet after creating one');
    await this.scaleReplicaSet(newRS, this.desired);
    if (deploymentComplete(this.dep, this.d.status!)) await this.cleanup();
    return this.syncRolloutStatus();
  }

  /** Recreate waits until no pod of an old revision is left running (or about to run). */
  private oldPodsRunning(): boolean {
    const old = this.oldRSs;
    if (old.some((rs) => (rs.status?.replicas ?? 0) > 0)) return true;
    return old.some((rs) => this.deps.pods.store.byIndex(CONTROLLER_UID_INDEX, rs.metadata?.uid ?? '').some((p) => !isPodTerminal(p)));
  }

  /** Deletes the oldest empty ReplicaSets beyond revisionHistoryLimit. */
  private async cleanup(): Promise<void> {
    const limit = this.d.spec?.revisionHistoryLimit;
    if (limit === undefined || limit === null) return;
    const cleanable = this.oldRSs.filter((rs) => !rs.metadata?.deletionTimestamp);
    const excess = cleanable.length - limit;
    if (excess <= 0) return;
    for (const rs of sortByRevision(cleanable).slice(0, excess)) {
      // Only ReplicaSets that are empty and whose emptiness has been observed are history.
      if ((rs.status?.replicas ?? 0) !== 0 || replicasOf(rs) !== 0) continue;
      if ((rs.metadata?.generation ?? 0) > (rs.status?.observedGeneration ?? 0)) continue;
      try {
        await this.deps.client.delete(RS, rs.metadata?.namespace, rs.metadata?.name ?? '', { preconditions: { uid: rs.metadata?.uid } });
      } catch (err) {
        if (!isNotFound(err) && !isConflict(err)) throw err;
      }
      this.sets.delete(rs.metadata?.uid ?? '');
    }
  }

  // ---- status ----------------------------------------------------------------------------

  private async syncStatus(): Promise<ReconcileResult> {
    const status = calculateStatus(this.dep, this.allRSs, this.newRS, this.now());
    if (canonicalJson(status) !== canonicalJson(this.d.status)) {
      this.d.status = status;
      await this.save();
    }
  }

  private async syncRolloutStatus(): Promise<ReconcileResult> {
    const now = this.now();
    const status = rolloutStatus(this.dep, this.allRSs, this.newRS, now);
    if (canonicalJson(status) !== canonicalJson(this.d.status)) {
      this.d.status = status;
      await this.save();
    }
    const recheck = progressRecheckMs(this.dep, status, now);
    return recheck === undefined ? undefined : { requeueAfterMs: recheck };
  }

  /** Progressing=Unknown DeploymentPaused / DeploymentResumed, unless the rollout has already timed out. */
  private async checkPausedCondition(): Promise<void> {
    if (!hasProgressDeadline(this.dep)) return;
    const cond = getCondition(this.d.status, PROGRESSING);
    if (cond?.reason === Reason.ProgressDeadlineExceeded) return;
    const pausedShown = cond?.reason === Reason.DeploymentPaused;
    if (this.d.spec?.paused && !pausedShown) {
      setCondition(this.d.status!, newCondition(PROGRESSING, 'Unknown', Reason.DeploymentPaused, 'Deployment is paused', this.now()));
    } else if (!this.d.spec?.paused && pausedShown) {
      setCondition(this.d.status!, newCondition(PROGRESSING, 'Unknown', Reason.DeploymentResumed, 'Deployment is resumed', this.now()));
    } else {
      return;
    }
    await this.save();
  }
}
