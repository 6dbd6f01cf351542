/**
 * The revision controller (issue 17, item 4; library-go's revisioncontroller): when the inputs
 * in the operand namespace no longer match the latest revision's copies, it cuts the next one —
 * `revision-status-N` (data `revision`, `reason`; annotation `revision-ready` "false" until
 * every copy `<name>-N`, owned by it, is written, then "true"), events `StartingNewRevision`
 * and `RevisionTriggered`, `status.latestAvailableRevision = N` — so the installer always
 * installs a complete, immutable snapshot. A required input that is missing blocks it
 * (`RevisionControllerDegraded=True`, reason `SyncError`): a revision without it could never
 * start. The decisions are `decide.ts`'s; this is the thin shell that reads the cache and writes.
 * A cut the cache asks for is confirmed by reading the inputs and copies from the API server
 * (`confirmedDecision`): the cache can show a revision recorded before it shows its copies.
 *
 * One key, the singleton CR: every event on it or on a ConfigMap/Secret of the operand
 * namespace re-checks everything. The names it creates are deterministic, so a stale cache meets
 * a 409 rather than cutting a revision twice.
 */
import type { V1ConfigMap, V1Secret } from '@kubernetes/client-node';
import { setCondition } from '../../../api/config/conditions.ts';
import {
  KubeAPIServer,
  kubeAPIServerConditionTypes,
  kubeAPIServerNamespace,
  kubeAPIServerOperatorNamespace,
  revisionAnnotations,
  revisionControllerInstanceName,
  revisionedName,
  revisionLabels,
  revisionStatusName,
  type KubeAPIServerStatus,
} from '../../../api/operator/index.ts';
import { errorText, isAlreadyExists } from '../../../runtime/client.ts';
import type { ControllerContext, EventSubject } from '../../../runtime/context.ts';
import { Controller, logSyncFailure } from '../../../runtime/controller.ts';
import type { DeepReadonly } from '../../../runtime/readonly.ts';
import { refOf, resources } from '../../../runtime/resources.ts';
import { statusTargetOf, updateStatus } from '../../../runtime/update-status.ts';
import { confirmedDecision, latestReadyRevision, newRevisionMessage, notFoundText, type DataGetter, type RevisionInput } from './decide.ts';

const NAME = 'revision';
const CR_NAME = 'cluster';
const kubeAPIServers = refOf(KubeAPIServer);

export interface RevisionControllerOptions {
  /** What every revision snapshots; the first must be the pod ConfigMap. */
  readonly inputs: readonly RevisionInput[];
  /** The operand namespace; `openshift-kube-apiserver` unless given. */
  readonly namespace?: string;
  /** What the events are about: the operator's Deployment unless given, as upstream records them. */
  readonly eventSubject?: EventSubject;
}

/** The ConfigMap inputs the operator passes today: the two the target-config controller renders. */
export const renderedRevisionInputs: readonly RevisionInput[] = [
  { kind: 'configmap', name: 'kube-apiserver-pod' },
  { kind: 'configmap', name: 'config' },
];

type Status = KubeAPIServerStatus;
type Data = Readonly<Record<string, string>>;

const managed = (state: string | undefined): boolean => state === 'Managed' || state === 'Force';

export function createRevisionController(ctx: ControllerContext, o: RevisionControllerOptions): Controller {
  const logger = ctx.logger.child({ controller: NAME });
  const namespace = o.namespace ?? kubeAPIServerNamespace;
  const crs = ctx.informers.informer<KubeAPIServer>(kubeAPIServers);
  const configMaps = ctx.informers.informer<V1ConfigMap>(resources.configMaps, { namespace });
  const secrets = ctx.informers.informer<V1Secret>(resources.secrets, { namespace });
  const subject: EventSubject = o.eventSubject ?? { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'kube-apiserver-operator', namespace: kubeAPIServerOperatorNamespace } };
  const labels = { [revisionLabels.controllerInstanceName]: revisionControllerInstanceName };

  const cachedInput = (kind: RevisionInput['kind'], name: string) => (kind === 'configmap' ? configMaps : secrets).store.get(`${namespace}/${name}`) as DeepReadonly<V1ConfigMap | V1Secret> | undefined;
  const readInput = (kind: RevisionInput['kind'], name: string): Promise<V1ConfigMap | V1Secret | undefined> =>
    ctx.client.getIfExists<V1ConfigMap | V1Secret>(kind === 'configmap' ? resources.configMaps : resources.secrets, namespace, name);

  const writeStatus = (cr: DeepReadonly<KubeAPIServer>, change: { latest?: number; degraded?: string }) =>
    updateStatus<Status>(ctx.client, statusTargetOf(kubeAPIServers, cr), (status) => {
      const now = ctx.clock.wallNow();
      // The API allows it only to increase; a cache behind the server must not try lowering it.
      if (change.latest !== undefined && change.latest > (status.latestAvailableRevision ?? 0)) status.latestAvailableRevision = change.latest;
      const degraded =
        change.degraded === undefined
          ? { type: kubeAPIServerConditionTypes.revisionControllerDegraded, status: 'False' as const, reason: 'AsExpected' }
          : { type: kubeAPIServerConditionTypes.revisionControllerDegraded, status: 'True' as const, reason: 'SyncError', message: change.degraded };
      status.conditions = setCondition(status.conditions, degraded, now);
    });

  /** `<name>-N` with the input's data, owned by `revision-status-N`; written over when a failed attempt left one. */
  const copyInput = async (input: RevisionInput, revision: number, owner: V1ConfigMap, get: DataGetter): Promise<void> => {
    const source = get(input.kind, input.name) as DeepReadonly<V1ConfigMap | V1Secret> | undefined;
    if (!source) {
      if (input.optional) return;
      throw new Error(notFoundText(input, input.name));
    }
    const name = revisionedName(input.name, revision);
    const ref = input.kind === 'configmap' ? resources.configMaps : resources.secrets;
    const copy = {
      apiVersion: 'v1',
      kind: input.kind === 'configmap' ? 'ConfigMap' : 'Secret',
      metadata: {
        name,
        namespace,
        labels,
        ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: owner.metadata!.name!, uid: owner.metadata!.uid! }],
      },
      ...(input.kind === 'secret' ? { type: (source as DeepReadonly<V1Secret>).type } : {}),
      data: structuredClone(source.data ?? {}) as Data,
      ...(input.kind === 'configmap' && (source as DeepReadonly<V1ConfigMap>).binaryData ? { binaryData: structuredClone((source as DeepReadonly<V1ConfigMap>).binaryData) } : {}),
    };
    const kindName = copy.kind;
    try {
      await ctx.client.create(ref, copy);
      ctx.recorder.event(subject, 'Normal', `${kindName}Created`, `Created ${kindName}/${name} -n ${namespace} because it was missing`);
    } catch (err) {
      if (!isAlreadyExists(err)) throw err;
      const live = await ctx.client.get<V1ConfigMap>(ref, namespace, name);
      await ctx.client.update(ref, { ...copy, metadata: { ...copy.metadata, resourceVersion: live.metadata?.resourceVersion } });
      ctx.recorder.event(subject, 'Normal', `${kindName}Updated`, `Updated ${kindName}/${name} -n ${namespace} because it changed`);
    }
  };

  /** Returns whether the revision was cut here (false: a ready one already exists, the cache was stale). */
  const cut = async (revision: number, reason: string, get: DataGetter): Promise<boolean> => {
    const statusName = revisionStatusName(revision);
    let status: V1ConfigMap;
    try {
      status = await ctx.client.create<V1ConfigMap>(resources.configMaps, {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: statusName, namespace, labels, annotations: { [revisionAnnotations.ready]: 'false' } },
        data: { revision: String(revision), reason },
      });
    } catch (err) {
      if (!isAlreadyExists(err)) throw err;
      status = await ctx.client.get<V1ConfigMap>(resources.configMaps, namespace, statusName);
      if (status.metadata?.annotations?.[revisionAnnotations.ready] === 'true') return false;
      // A previous attempt stopped half way: finish it under its first reason.
    }
    for (const input of o.inputs) await copyInput(input, revision, status, get);
    status.metadata = { ...status.metadata, annotations: { ...status.metadata?.annotations, [revisionAnnotations.ready]: 'true' } };
    await ctx.client.update(resources.configMaps, status);
    return true;
  };

  const reconcile = async (key: string) => {
    const cr = crs.store.get(key);
    if (!cr || key !== CR_NAME || !managed(cr.spec?.managementState)) return;
    const recorded = cr.status?.latestAvailableRevision ?? 0;
    const observed = latestReadyRevision(configMaps.store.list());
    if (observed > recorded) {
      // A revision was cut but its status write was lost (or another replica cut it): record it first.
      await writeStatus(cr, { latest: observed });
      return;
    }
    const { decision, get } = await confirmedDecision(o.inputs, recorded, cachedInput, readInput);
    if (decision.kind === 'current') {
      await writeStatus(cr, {});
      return;
    }
    if (decision.kind === 'blocked') {
      await writeStatus(cr, { degraded: decision.message });
      throw new Error(decision.message);
    }
    const next = recorded + 1;
    const message = newRevisionMessage(next, decision.reason);
    ctx.recorder.event(subject, 'Normal', 'StartingNewRevision', message);
    let created: boolean;
    try {
      created = await cut(next, decision.reason, get);
    } catch (err) {
      await writeStatus(cr, { degraded: errorText(err) });
      throw err;
    }
    if (!created) return;
    ctx.recorder.event(subject, 'Normal', 'RevisionTriggered', message);
    logger.info({ revision: next, reason: decision.reason }, 'new revision');
    await writeStatus(cr, { latest: next });
  };

  const controller = new Controller({
    name: NAME,
    reconcile,
    clock: ctx.clock,
    observer: ctx.metrics?.forController(NAME),
    onError: logSyncFailure(logger, 'revision sync failed'),
  });
  controller.watch(crs);
  controller.watchMapped(configMaps, () => [CR_NAME]);
  controller.watchMapped(secrets, () => [CR_NAME]);
  return controller;
}
