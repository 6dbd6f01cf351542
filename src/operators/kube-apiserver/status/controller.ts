/**
 * The kube-apiserver operator's status controller (issue 17, item 7; library-go's
 * StatusSyncer): from the KubeAPIServer `cluster` CR it writes the ClusterOperator
 * `kube-apiserver` — conditions (status.ts, Degraded inertia on the context's clock), versions,
 * relatedObjects — and on the CR itself Shipyard's `Degraded` condition (the same union, for the
 * DEGRADED column) and `status.nodesAtLatestRevision` (NODES AT LATEST). Each change of the
 * ClusterOperator is an `OperatorStatusChanged` event with library-go's diff, and a version
 * change an `OperatorVersionChanged`, each recorded in the operator namespace and in its legacy
 * name `openshift-cluster-kube-apiserver-operator`, which the seed's debugging command reads.
 *
 * While a bad condition is younger than its inertia nothing else may happen to requeue the CR,
 * so the reconcile asks to run again exactly when the youngest one would count.
 */
import { isDeepStrictEqual } from 'node:util';
import { setCondition, setConditions } from '../../../api/config/conditions.ts';
import { ClusterOperator, type ClusterOperatorStatus } from '../../../api/config/index.ts';
import {
  KubeAPIServer,
  kubeAPIServerClusterOperatorName,
  kubeAPIServerConditionTypes,
  kubeAPIServerLegacyEventNamespace,
  kubeAPIServerOperatorNamespace,
  nodesAtLatestRevision,
  type KubeAPIServerStatus,
} from '../../../api/operator/index.ts';
import { isAlreadyExists } from '../../../runtime/client.ts';
import type { ControllerContext, EventSubject } from '../../../runtime/context.ts';
import { Controller, logSyncFailure } from '../../../runtime/controller.ts';
import type { DeepReadonly } from '../../../runtime/readonly.ts';
import { refOf, resources } from '../../../runtime/resources.ts';
import { staticPodDegradedInertia, untilInertiaElapses, type Inertia } from '../../../runtime/status-union.ts';
import { statusTargetOf, updateStatus } from '../../../runtime/update-status.ts';
import { allNodesAtLatest, operatorConditions, operatorVersions, relatedObjects, statusDiff, versionChanges } from './status.ts';

const NAME = 'status';
const CR_NAME = 'cluster';
const kubeAPIServers = refOf(KubeAPIServer);
const clusterOperators = refOf(ClusterOperator);

export interface StatusControllerOptions {
  /** This operator's version: `raw-internal` at once, `operator` once rolled out. */
  readonly operatorVersion: string;
  /** The operand's (`kube-apiserver`) version; the operator's unless given. */
  readonly operandVersion?: string;
  /** The Degraded inertia; the static-pod operators' unless given. */
  readonly degradedInertia?: Inertia;
  /** Where events go; the operator's Deployment in the operator namespace and in its legacy name unless given. */
  readonly eventSubjects?: readonly EventSubject[];
  /** The ClusterOperator's name; `kube-apiserver` unless given. */
  readonly clusterOperatorName?: string;
}

const deployment = (namespace: string): EventSubject => ({ apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'kube-apiserver-operator', namespace } });

const managed = (state: string | undefined): boolean => state === 'Managed' || state === 'Force';

export function createStatusController(ctx: ControllerContext, o: StatusControllerOptions): Controller {
  const logger = ctx.logger.child({ controller: NAME });
  const coName = o.clusterOperatorName ?? kubeAPIServerClusterOperatorName;
  const inertia = o.degradedInertia ?? staticPodDegradedInertia;
  const subjects = o.eventSubjects ?? [deployment(kubeAPIServerOperatorNamespace), deployment(kubeAPIServerLegacyEventNamespace)];
  const crs = ctx.informers.informer<KubeAPIServer>(kubeAPIServers);
  const cos = ctx.informers.informer<ClusterOperator>(clusterOperators);

  const event = (reason: string, message: string) => {
    for (const s of subjects) ctx.recorder.event(s, 'Normal', reason, message);
  };

  /** Writes the ClusterOperator's status; returns it before and after when it changed. */
  const writeClusterOperator = async (
    desired: (current: DeepReadonly<ClusterOperatorStatus> | undefined) => ClusterOperatorStatus,
  ): Promise<{ before: DeepReadonly<ClusterOperatorStatus> | undefined; after: ClusterOperatorStatus } | undefined> => {
    let cached = cos.store.get(coName);
    if (!cached) {
      try {
        cached = await ctx.client.create<ClusterOperator>(clusterOperators, { apiVersion: ClusterOperator.apiVersion, kind: 'ClusterOperator', metadata: { name: coName }, spec: {} } as ClusterOperator);
      } catch (err) {
        if (!isAlreadyExists(err)) throw err;
        cached = await ctx.client.get<ClusterOperator>(clusterOperators, undefined, coName);
      }
    }
    let before: DeepReadonly<ClusterOperatorStatus> | undefined;
    let after: ClusterOperatorStatus | undefined;
    const r = await updateStatus<ClusterOperatorStatus>(ctx.client, statusTargetOf(clusterOperators, cached), (status) => {
      before = structuredClone(status) as DeepReadonly<ClusterOperatorStatus>;
      after = desired(before);
      return after;
    });
    return r.changed && after ? { before, after } : undefined;
  };

  const reconcile = async (key: string) => {
    if (key !== CR_NAME) return;
    const cr = crs.store.get(key);
    if (!cr) return;
    const conditions = cr.status?.conditions ?? [];
    const unmanaged = !managed(cr.spec?.managementState);
    const union = operatorConditions(conditions, { clock: ctx.clock, degradedInertia: inertia, unmanaged });
    const atLatest = allNodesAtLatest(cr.status);
    const now = ctx.clock.wallNow();

    const written = await writeClusterOperator((current) => {
      const versions = operatorVersions({ operatorVersion: o.operatorVersion, operandVersion: o.operandVersion, atLatest, current: current?.versions });
      return {
        ...structuredClone(current ?? {}),
        conditions: setConditions(structuredClone(current?.conditions ?? []), union, now),
        versions,
        relatedObjects: relatedObjects.map((r) => ({ ...r })),
      } as ClusterOperatorStatus;
    });
    if (written) {
      const diff = statusDiff(written.before, written.after);
      if (diff) event('OperatorStatusChanged', `Status for clusteroperator/${coName} changed: ${diff}`);
      for (const m of versionChanges(coName, written.before?.versions, written.after.versions ?? [])) event('OperatorVersionChanged', m);
      logger.info({ diff }, 'cluster operator status changed');
    }

    const degraded = union.find((c) => c.type === 'Degraded')!;
    const crDegraded = { type: kubeAPIServerConditionTypes.degraded, status: degraded.status, reason: degraded.reason, ...(degraded.message && { message: degraded.message }) };
    await updateStatus<KubeAPIServerStatus>(ctx.client, statusTargetOf(kubeAPIServers, cr), (status) => {
      const next = setCondition(status.conditions, crDegraded, now);
      if (!isDeepStrictEqual(next, status.conditions)) status.conditions = next;
      status.nodesAtLatestRevision = nodesAtLatestRevision(status);
    });

    const wait = unmanaged ? undefined : untilInertiaElapses('Degraded', 'False', conditions, { clock: ctx.clock, inertia });
    return wait === undefined ? undefined : { requeueAfterMs: wait };
  };

  const controller = new Controller({
    name: NAME,
    reconcile,
    clock: ctx.clock,
    observer: ctx.metrics?.forController(NAME),
    onError: logSyncFailure(logger, 'status sync failed'),
  });
  controller.watch(crs);
  controller.watchMapped(cos, (co) => (co.metadata?.name === coName ? [CR_NAME] : []));
  return controller;
}
