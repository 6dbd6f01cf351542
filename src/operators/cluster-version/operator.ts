/**
 * The Cluster Version Operator's control loop: one key, the ClusterVersion `version`.
 * Each reconcile loads the desired release's payload, runs one pass over it (install, update
 * or reconcile mode), writes ClusterVersion status as it goes, and asks to come back after the
 * reconcile interval (2–4 minutes, random, unless set). A change of `spec.desiredUpdate` or of
 * `spec.overrides` aborts the running pass, so the next one starts from the new wishes at once.
 *
 * Everything the CVO applies goes through the API; what it does not manage (an unmanaged
 * override) it does not touch at all, and when its own Deployment is scaled to 0 there is no
 * process left to reconcile anything: nothing brings it back but an admin.
 */
import { randomUUID } from 'node:crypto';
import type { KubernetesObject, V1Deployment, V1OwnerReference } from '@kubernetes/client-node';
import { ApiError, isNotFound, statusCodeOf, type ApiClient } from '../../runtime/client.ts';
import type { ControllerContext } from '../../runtime/context.ts';
import { Controller } from '../../runtime/controller.ts';
import { discoverResources, type DiscoveredResources } from '../../runtime/discovery.ts';
import { resources, type ResourceRef } from '../../runtime/resources.ts';
import { updateStatus, type StatusTarget } from '../../runtime/update-status.ts';
import { setCondition, type ClusterVersion } from '../../api/config/index.ts';
import { formatTimestamp } from '../../api/time.ts';
import { applyManifest, checkHealth } from '../../runtime/apply/index.ts';
import { filterOverrides, planPayload, type LoadedPayload, type Override, type PayloadManifest } from './payload.ts';
import type { PayloadSource } from './payload-source.ts';
import { CLUSTER_VERSION_NAME, CVO_DEPLOYMENT, CVO_NAMESPACE } from './refs.ts';
import { computeStatus, syncState, type ClusterVersionStatus, type Release, type SyncState } from './status.ts';
import { defaultBackoff, runSyncPass, type Health, type PlannedManifest, type SyncMode, type SyncResult, type TaskBackoff } from './sync-worker.ts';

interface ClusterOperator extends KubernetesObject {
  status?: { conditions?: { type: string; status: string; message?: string }[]; versions?: { name: string; version: string }[]; relatedObjects?: unknown[] };
}

export interface ClusterVersionOperatorOptions {
  /** The release image this CVO runs from; its payload is `payloads.own()`. */
  readonly releaseImage: string;
  readonly payloads: PayloadSource;
  /** A fixed interval between reconcile passes; by default random between 2 and 4 minutes. */
  readonly reconcileIntervalMs?: number;
  /** How often ClusterVersion status is written while a pass progresses. */
  readonly progressWriteMs?: number;
  /** How a manifest is retried within a pass; by default the CVO's for the pass's mode (`defaultBackoff`). */
  readonly taskBackoff?: TaskBackoff;
}

const FIELD_MANAGER = 'cluster-version-operator';
const clusterVersionStatus: StatusTarget = { resource: resources.clusterVersions, name: CLUSTER_VERSION_NAME };

/** `4.17.3` → `4.17`: what Upgradeable=False guards (a new minor or major). */
function minorOf(version: string | undefined): string {
  return (version ?? '').split('.').slice(0, 2).join('.');
}

function randomInterval(): number {
  return 120_000 + Math.floor(Math.random() * 120_000);
}

function describeApiError(err: unknown): { reason: string; message: string } {
  if (err instanceof ApiError) return { reason: 'UpdatePayloadResourceInvalid', message: `the API server refused it: ${err.status.message ?? err.message}` };
  return { reason: 'UpdatePayloadFailed', message: err instanceof Error ? err.message : String(err) };
}

/** The release to move to: the desired update when set (an image, or a version that names one), else the running one. */
export function desiredRelease(cv: ClusterVersion | undefined, own: Release, imageForVersion: (version: string) => string): Release {
  const du = cv?.spec?.desiredUpdate;
  if (!du || (!du.image && !du.version)) return own;
  if (du.image) return { image: du.image, version: du.version ?? '' };
  if (du.version === own.version) return own;
  return { version: du.version!, image: imageForVersion(du.version!) };
}

/** What a pass waits on in a ClusterOperator: Available, Degraded and the versions reported. */
const operatorHealthOf = (co: ClusterOperator): string =>
  JSON.stringify([co.status?.conditions?.filter((c) => c.type === 'Available' || c.type === 'Degraded').map((c) => [c.type, c.status]) ?? [], co.status?.versions ?? []]);

export function createClusterVersionOperator(ctx: ControllerContext, options: ClusterVersionOperatorOptions): Controller {
  const versions = ctx.informers.informer<ClusterVersion>(resources.clusterVersions, { fieldSelector: `metadata.name=${CLUSTER_VERSION_NAME}` });
  const operators = ctx.informers.informer<ClusterOperator>(resources.clusterOperators);
  let discovery: { at: number; resources: DiscoveredResources } | undefined;
  let running: { wishes: string; abort: AbortController } | undefined;
  let attempt = 0;
  let consecutiveFailures = 0;
  /** A ClusterOperator's health changed while a pass ran: a failed pass looks again at once. */
  let operatorsChanged = false;
  const interval = (): number => options.reconcileIntervalMs ?? randomInterval();

  /** What a pass depends on: a change aborts the pass running for older wishes. */
  const wishesOf = (cv: ClusterVersion | undefined): string => JSON.stringify({ du: cv?.spec?.desiredUpdate ?? null, o: cv?.spec?.overrides ?? [] });

  const resolve = async (apiVersion: string, kind: string): Promise<ResourceRef> => {
    const fresh = async () => (discovery = { at: Date.now(), resources: await discoverResources(ctx.client) });
    if (!discovery) await fresh();
    let ref = discovery!.resources.byKind(apiVersion, kind);
    // A CRD applied earlier in this pass is served only now: look again, but not more than once a second.
    if (!ref && Date.now() - discovery!.at > 1000) ref = (await fresh()).resources.byKind(apiVersion, kind);
    if (!ref) throw new Error(`no kind "${kind}" is served in ${apiVersion}`);
    return ref;
  };

  const writeStatus = async (compute: (cv: ClusterVersion) => ClusterVersionStatus): Promise<void> => {
    await updateStatus<ClusterVersionStatus>(ctx.client, clusterVersionStatus, (_, cv) => compute(cv as ClusterVersion));
  };

  const ownerRef = (cv: ClusterVersion): V1OwnerReference => ({ apiVersion: 'config.openshift.io/v1', kind: 'ClusterVersion', name: CLUSTER_VERSION_NAME, uid: cv.metadata!.uid!, controller: true });

  /** ClusterOperators exist from the first pass on, so `kubectl get co` lists every operator while it installs. */
  const precreateOperators = async (manifests: readonly PayloadManifest[]): Promise<void> => {
    for (const m of manifests) {
      if (m.kind !== 'ClusterOperator' || operators.store.get(m.name)) continue;
      const obj = m.object as ClusterOperator;
      try {
        const created = await ctx.client.create<ClusterOperator>(resources.clusterOperators, { apiVersion: m.apiVersion, kind: m.kind, metadata: { name: m.name, labels: obj.metadata?.labels, annotations: obj.metadata?.annotations } });
        if (obj.status?.relatedObjects) await ctx.client.updateStatus(resources.clusterOperators, { ...created, status: { relatedObjects: obj.status.relatedObjects } });
      } catch (err) {
        if (statusCodeOf(err) !== 409) ctx.logger.warn({ operator: m.name, err: String(err) }, 'could not pre-create ClusterOperator');
      }
    }
  };

  const reconcile = async (stopping: AbortSignal): Promise<{ requeueAfterMs: number } | void> => {
    const cv = versions.store.get(CLUSTER_VERSION_NAME) as ClusterVersion | undefined;
    if (!cv) {
      // The installer normally creates it; a CVO started on a bare cluster creates it itself.
      try {
        await ctx.client.create<ClusterVersion>(resources.clusterVersions, { apiVersion: 'config.openshift.io/v1', kind: 'ClusterVersion', metadata: { name: CLUSTER_VERSION_NAME }, spec: { clusterID: randomUUID(), channel: '' } });
      } catch (err) {
        if (statusCodeOf(err) !== 409) throw err;
      }
      return { requeueAfterMs: 1000 };
    }
    const own = await options.payloads.own();
    const ownRelease = own.release;
    const desired = desiredRelease(cv, ownRelease, (v) => options.payloads.imageForVersion(v));
    const wishes = wishesOf(cv);
    const abort = new AbortController();
    // A pass also ends when the CVO stops (scaled down, lost its lease): it must not hold the
    // process past its grace period waiting on health.
    if (stopping.aborted) return;
    stopping.addEventListener('abort', () => abort.abort(), { once: true });
    running = { wishes, abort };
    const now = () => formatTimestamp(ctx.clock.wallNow());
    const overrides = cv.spec?.overrides ?? [];
    const overridesSet = overrides.some((o) => o.unmanaged);
    const unmanaged = overrides.filter((o) => o.unmanaged).map((o) => `${o.kind} ${o.namespace ? `${o.namespace}/` : ''}${o.name}`);
    const notUpgradeable = () =>
      operators.store
        .list()
        .map((o) => ({ name: o.metadata?.name ?? '', c: o.status?.conditions?.find((c) => c.type === 'Upgradeable') }))
        .filter((x) => x.c?.status === 'False')
        .map((x) => ({ name: x.name, message: x.c?.message ?? '' }));

    let payload: LoadedPayload | 'pending';
    try {
      payload = desired.image === ownRelease.image ? own : await options.payloads.load(desired.image, abort.signal);
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      await writeStatus((current) =>
        computeStatus({ previous: current.status ?? {}, desired, generation: current.metadata?.generation, versionHash: current.status?.versionHash ?? '', state: syncState(current.status?.history, desired), payloadError: message, overridesSet, notUpgradeable: notUpgradeable(), channel: current.spec?.channel, now: now() }),
      );
      return { requeueAfterMs: Math.min(interval(), 30_000) };
    }
    if (payload === 'pending') return { requeueAfterMs: 1000 };
    let loaded: LoadedPayload = payload;
    // Upgradeable=False blocks a new minor or major release (a patch release may still go,
    // and `force` overrides): the CVO keeps reconciling what it runs and says why it refused.
    let refused: { release: Release; reason: string; message: string } | undefined;
    const head = cv.status?.history?.[0];
    if (head && head.image !== desired.image && !cv.spec?.desiredUpdate?.force && minorOf(head.version) !== minorOf(loaded.release.version)) {
      const blocker = overridesSet
        ? { reason: 'ClusterVersionOverridesSet', message: 'Disabling ownership via cluster version overrides prevents upgrades. Please remove overrides before continuing.' }
        : notUpgradeable()[0]
          ? { reason: 'ClusterOperatorNotUpgradeable', message: `Cluster operator ${notUpgradeable()[0]!.name} should not be upgraded between minor versions: ${notUpgradeable()[0]!.message}` }
          : undefined;
      if (blocker) {
        refused = { release: { image: desired.image, version: loaded.release.version }, ...blocker };
        const current = head.image === ownRelease.image ? own : await options.payloads.load(head.image, abort.signal).catch(() => own);
        if (current === 'pending') return { requeueAfterMs: 1000 };
        loaded = current;
      }
    }
    const release: Release = { image: loaded.release.image, version: loaded.release.version };
    const state: SyncState = syncState(cv.status?.history, release);
    const mode: SyncMode = state === 'Initializing' ? 'install' : state === 'Updating' ? 'update' : 'reconcile';
    const manifests = filterOverrides(loaded.manifests, overrides);
    attempt++;
    const plan = planPayload(manifests, mode, attempt);
    const byPlanned = new Map<PlannedManifest, PayloadManifest>(manifests.map((m) => [m, m]));
    const cvForOwner = cv;

    let lastProgressWrite = 0;
    let progressTimer: NodeJS.Timeout | undefined;
    let finished = false;
    const progressPeriod = options.progressWriteMs ?? 1000;
    let progress: SyncResult = { total: manifests.length, done: 0, failures: [], aborted: false };
    const statusFor = (current: ClusterVersion, result: SyncResult | undefined): ClusterVersionStatus =>
      computeStatus({ previous: current.status ?? {}, desired: release, generation: current.metadata?.generation, versionHash: loaded.versionHash, state, result, refused, overridesSet, unmanaged, notUpgradeable: notUpgradeable(), channel: current.spec?.channel, now: now() });

    operatorsChanged = false;
    await precreateOperators(manifests);
    ctx.logger.info({ version: release.version, image: release.image, mode, manifests: manifests.length }, 'starting a pass over the payload');
    const result = await runSyncPass({
      mode,
      plan,
      parallelism: mode === 'reconcile' ? 2 : 16,
      backoff: options.taskBackoff ?? defaultBackoff(mode, options.reconcileIntervalMs ?? 120_000),
      signal: abort.signal,
      describeError: describeApiError,
      apply: async (p, signal) => {
        const m = byPlanned.get(p)!;
        if (signal.aborted) return;
        const ref = await resolve(m.apiVersion, m.kind);
        const own = m.kind === 'Deployment' && m.namespace === CVO_NAMESPACE && m.name === CVO_DEPLOYMENT;
        await applyManifest(ctx.client, ref, m.object, { createOnly: m.createOnly, ownerRef: ownerRef(cvForOwner), keepScaledToZero: own });
      },
      health: async (p): Promise<Health> => {
        const m = byPlanned.get(p)!;
        const ref = await resolve(m.apiVersion, m.kind);
        return checkHealth(ctx.client, ref, m.object, { mode });
      },
      remove: async (p) => {
        const m = byPlanned.get(p)!;
        const ref = await resolve(m.apiVersion, m.kind);
        await ctx.client.deleteIfExists(ref, ref.namespaced ? m.namespace : undefined, m.name);
      },
      onProgress: (done, total) => {
        progress = { ...progress, done, total };
        // At most one write per period; a change inside the period is written at its end.
        if (progressTimer) return;
        const wait = Math.max(0, lastProgressWrite + progressPeriod - Date.now());
        progressTimer = setTimeout(() => {
          progressTimer = undefined;
          if (abort.signal.aborted || finished) return;
          lastProgressWrite = Date.now();
          void writeStatus((current) => statusFor(current, progress)).catch((err: unknown) => ctx.logger.debug({ err: String(err) }, 'progress status write failed'));
        }, wait);
      },
    });
    finished = true;
    clearTimeout(progressTimer);
    if (running?.abort === abort) running = undefined;
    if (result.aborted) return; // new wishes: the informer has queued the key again
    await writeStatus((current) => statusFor(current, result));
    for (const f of result.failures) ctx.logger.warn({ file: f.manifest.file, reason: f.reason, err: f.message }, 'manifest not applied');
    if (result.failures.length === 0) {
      consecutiveFailures = 0;
      return { requeueAfterMs: interval() };
    }
    consecutiveFailures++;
    // An operator changed after the pass last looked at it: pass again now, as a change after
    // the pass does (a not-available operator fails the pass at once, so most of its waits end here).
    if (operatorsChanged) {
      operatorsChanged = false;
      controller.enqueue(CLUSTER_VERSION_NAME);
      return;
    }
    // Failure backoff: interval/16, doubled per consecutive failure, at most the interval.
    const base = options.reconcileIntervalMs ?? 120_000;
    const backoff = Math.min(base, (base / 16) * 2 ** (consecutiveFailures - 1));
    return { requeueAfterMs: Math.round(backoff * (0.8 + Math.random() * 0.4)) };
  };

  const controller = new Controller({
    name: 'cluster-version-operator',
    workers: 1,
    observer: ctx.metrics?.forController('cluster-version-operator'),
    onError: (r) => ctx.logger.warn({ err: String(r.error) }, 'cluster version sync failed; retrying'),
    reconcile: async (_key, signal) => {
      try {
        return await reconcile(signal);
      } catch (err) {
        if (isNotFound(err)) return { requeueAfterMs: 1000 };
        throw err;
      }
    },
  });
  const onVersion = (cv: ClusterVersion | undefined): void => {
    if (running && running.wishes !== wishesOf(cv)) running.abort.abort();
    controller.enqueue(CLUSTER_VERSION_NAME);
  };
  versions.on('add', (cv) => onVersion(cv as ClusterVersion));
  versions.on('update', (cv, old) => {
    // Status writes (its own) must not restart the pass; spec changes do.
    if (JSON.stringify((cv as ClusterVersion).spec) !== JSON.stringify((old as ClusterVersion).spec)) onVersion(cv as ClusterVersion);
  });
  versions.on('delete', () => controller.enqueue(CLUSTER_VERSION_NAME));
  // A pass that failed waiting on operators looks again as soon as one of them changes its
  // availability, degradation or versions, rather than after the failure backoff (upstream's
  // CVO likewise wakes its sync worker when an operator's version changes). While a pass runs,
  // its own retries look; a change after its last look is remembered for when it ends.
  operators.on('update', (co, old) => {
    if (operatorHealthOf(co as ClusterOperator) === operatorHealthOf(old as ClusterOperator)) return;
    operatorsChanged = true;
    if (!running && consecutiveFailures > 0) controller.enqueue(CLUSTER_VERSION_NAME);
  });
  controller.enqueue(CLUSTER_VERSION_NAME);
  return controller;
}

/**
 * Called as the CVO stops: when it stops because its own Deployment was scaled to 0, nothing
 * will write ClusterVersion until someone scales it back, so it says so there first (the
 * STATUS column of `kubectl get clusterversion` shows it) rather than leaving a status that
 * reads as if the cluster were still watched over.
 */
export async function reportIfScaledDown(client: ApiClient, now: string = formatTimestamp()): Promise<boolean> {
  const deployment = await client.get<V1Deployment>(resources.deployments, CVO_NAMESPACE, CVO_DEPLOYMENT).catch(() => undefined);
  if (deployment?.spec?.replicas !== 0) return false;
  await updateStatus<ClusterVersionStatus>(client, clusterVersionStatus, (status) => {
    const conditions = status.conditions ?? [];
    const progressing = conditions.find((c) => c.type === 'Progressing');
    const version = status.history?.find((h) => h.state === 'Completed')?.version ?? status.desired?.version ?? '';
    const message = `Cluster version is ${version}; reconciliation is paused: the cluster-version-operator is scaled to 0 (kubectl scale --replicas=1 -n ${CVO_NAMESPACE} deployment/${CVO_DEPLOYMENT} resumes it)`;
    return { ...status, conditions: setCondition(conditions, { type: 'Progressing', status: progressing?.status ?? 'False', reason: 'ClusterVersionOperatorScaledDown', message }, now) };
  });
  return true;
}
