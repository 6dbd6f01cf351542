/**
 * The installer controller's shell (issue 17, item 5; library-go's node and installer
 * controllers, reference §3 and §7): it keeps one `nodeStatuses` entry per master, hands the
 * cache to `decideInstallerState` and applies what comes back in upstream's order — the status
 * first (so what the operator has decided is readable before it acts), then the events, then
 * the installer pod created or deleted — and looks again when told to.
 *
 * One key, the singleton CR; every event on it, on a master Node or on a pod, ConfigMap or
 * Secret of the operand namespace re-checks everything. A status write is conditional on the
 * node statuses and latest revision the decision was made from: after a conflict, changed ones
 * mean the decision is stale, and the sync starts over from the cache rather than writing a
 * step over someone else's.
 */
import type { V1ConfigMap, V1Node, V1Pod, V1Secret } from '@kubernetes/client-node';
import { setConditions } from '../../../api/config/conditions.ts';
import {
  KubeAPIServer,
  kubeAPIServerConditionTypes,
  kubeAPIServerNamespace,
  kubeAPIServerOperatorNamespace,
  mirrorPodName,
  nodesAtLatestRevision,
  revisionedName,
  revisionLabels,
  revisionStatusName,
  type KubeAPIServerStatus,
  type NodeStatus,
} from '../../../api/operator/index.ts';
import { canonicalJson } from '../../../runtime/canonical-json.ts';
import { errorText, isAlreadyExists, isConflict, isNotFound } from '../../../runtime/client.ts';
import type { ControllerContext, EventSubject } from '../../../runtime/context.ts';
import { Controller, logSyncFailure } from '../../../runtime/controller.ts';
import type { DeepReadonly } from '../../../runtime/readonly.ts';
import { refOf, resources } from '../../../runtime/resources.ts';
import { statusTargetOf, updateStatus } from '../../../runtime/update-status.ts';
import type { RevisionInput } from '../revision/decide.ts';
import { installerPod } from './installer-pod.ts';
import { masterNodesCondition } from './master-nodes.ts';
import { decideInstallerState, installerConditions, type BackoffSettings, type InstallerAction, type InstallerDecision } from './state.ts';

const NAME = 'installer';
const CR_NAME = 'cluster';
const kubeAPIServers = refOf(KubeAPIServer);
export const masterNodeLabel = 'node-role.kubernetes.io/master';

export interface InstallerControllerOptions {
  /** The operator's image, whose `installer` command the pods run. */
  readonly image: string;
  /** The command running the installer in that image; `cluster-kube-apiserver-operator installer` unless given. */
  readonly command?: readonly string[];
  /** The revision's inputs, as the revision controller snapshots them. */
  readonly inputs: readonly RevisionInput[];
  readonly certInputs?: readonly RevisionInput[];
  readonly namespace?: string;
  readonly eventSubject?: EventSubject;
  readonly backoff?: BackoffSettings;
  readonly minReadyMs?: number;
}

type Status = KubeAPIServerStatus;

const managed = (state: string | undefined): boolean => state === 'Managed' || state === 'Force';

/** A status write whose decision the server has since made stale; the sync is retried. */
class StaleNodeStatuses extends Error {
  constructor() {
    super('nodeStatuses or latestAvailableRevision changed since they were read');
  }
}

/**
 * nodeStatuses for this set of masters (upstream's NodeController): entries of masters that
 * remain keep their place and fields, a new master is appended with its name only (the API
 * refuses revisions on a new entry), a gone one is dropped.
 */
export function reconcileNodeStatuses(current: readonly DeepReadonly<NodeStatus>[], masters: readonly string[]): { statuses: NodeStatus[]; added: string[]; removed: string[] } {
  const wanted = new Set(masters);
  const kept = current.filter((n) => wanted.has(n.nodeName)).map((n) => structuredClone(n as NodeStatus));
  const known = new Set(kept.map((n) => n.nodeName));
  const added = [...masters].sort().filter((m) => !known.has(m));
  const removed = current.filter((n) => !wanted.has(n.nodeName)).map((n) => n.nodeName);
  return { statuses: [...kept, ...added.map((nodeName) => ({ nodeName }))], added, removed };
}

export function createInstallerController(ctx: ControllerContext, o: InstallerControllerOptions): Controller {
  const logger = ctx.logger.child({ controller: NAME });
  const namespace = o.namespace ?? kubeAPIServerNamespace;
  const crs = ctx.informers.informer<KubeAPIServer>(kubeAPIServers);
  const nodes = ctx.informers.informer<V1Node>(resources.nodes, { labelSelector: masterNodeLabel });
  const pods = ctx.informers.informer<V1Pod>(resources.pods, { namespace });
  const configMaps = ctx.informers.informer<V1ConfigMap>(resources.configMaps, { namespace });
  const secrets = ctx.informers.informer<V1Secret>(resources.secrets, { namespace });
  const subject: EventSubject = o.eventSubject ?? { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'kube-apiserver-operator', namespace: kubeAPIServerOperatorNamespace } };

  /** Adds new masters' entries and drops gone ones; returns whether it wrote. */
  const syncNodes = async (cr: DeepReadonly<KubeAPIServer>): Promise<boolean> => {
    const masters = nodes.store.list().map((n) => n.metadata?.name ?? '');
    const planned = reconcileNodeStatuses(cr.status?.nodeStatuses ?? [], masters);
    if (planned.added.length === 0 && planned.removed.length === 0) return false;
    let added: string[] = [];
    let removed: string[] = [];
    await updateStatus<Status>(ctx.client, statusTargetOf(kubeAPIServers, cr), (status) => {
      const r = reconcileNodeStatuses(status.nodeStatuses ?? [], masters);
      ({ added, removed } = r);
      status.nodeStatuses = r.statuses;
      status.nodesAtLatestRevision = nodesAtLatestRevision(status);
    });
    for (const name of added) ctx.recorder.event(subject, 'Normal', 'MasterNodeObserved', `Observed new master node ${name}`);
    for (const name of removed) ctx.recorder.event(subject, 'Normal', 'MasterNodeRemoved', `Removed master node ${name}`);
    return true;
  };

  /** Returns whether it created a pod: a create the cache had not seen yet is no new pod. */
  const apply = async (action: InstallerAction, cr: DeepReadonly<KubeAPIServer>, attempt: number): Promise<boolean> => {
    if (action.kind === 'deleteInstallerPod') {
      await ctx.client.delete(resources.pods, namespace, action.name).catch((err: unknown) => {
        if (!isNotFound(err)) throw err;
      });
      return false;
    }
    try {
      const owner = await ctx.client.get<V1ConfigMap>(resources.configMaps, namespace, revisionStatusName(action.revision));
      const pod = installerPod({ ...o, revision: action.revision, nodeName: action.nodeName, retry: action.retry, ownerUid: owner.metadata!.uid!, logLevel: cr.spec?.logLevel, namespace });
      await ctx.client.create(resources.pods, pod);
      ctx.recorder.event(subject, 'Normal', 'PodCreated', `Created Pod/${action.name} -n ${namespace} because it was missing`);
      return true;
    } catch (err) {
      // The cache has not seen our own create yet.
      if (isAlreadyExists(err)) return false;
      ctx.recorder.event(subject, 'Warning', 'InstallerPodFailed', `Failed to create installer pod for revision ${action.revision} count ${attempt} on node "${action.nodeName}": ${errorText(err)}`);
      throw err;
    }
  };

  /**
   * Upstream's `missing required resources: [configmaps: a-5,b-5, secrets: c-5]`: an installer
   * started without them could only fail, so none is started (reference §7 step 1).
   */
  const missingInputs = (latest: number): string | undefined => {
    const absent = (i: RevisionInput, name: string) => !i.optional && !(i.kind === 'configmap' ? configMaps : secrets).store.get(`${namespace}/${name}`);
    const missing = [
      ...o.inputs.filter((i) => absent(i, revisionedName(i.name, latest))).map((i) => ({ kind: i.kind, name: revisionedName(i.name, latest) })),
      ...(o.certInputs ?? []).filter((i) => absent(i, i.name)).map((i) => ({ kind: i.kind, name: i.name })),
    ];
    if (missing.length === 0) return undefined;
    const of = (kind: RevisionInput['kind'], plural: string) => {
      const names = missing.filter((m) => m.kind === kind).map((m) => m.name);
      return names.length ? [`${plural}: ${names.join(',')}`] : [];
    };
    return `missing required resources: [${[...of('configmap', 'configmaps'), ...of('secret', 'secrets')].join(', ')}]`;
  };

  const reconcile = async (key: string) => {
    const cr = crs.store.get(key);
    if (!cr || key !== CR_NAME) return;
    // The node controller runs whatever the management state; the installer only when managed.
    if (await syncNodes(cr)) return;
    if (!managed(cr.spec?.managementState)) return;

    const read = cr.status?.nodeStatuses ?? [];
    const installerPods = new Map<string, DeepReadonly<V1Pod>>();
    const mirrorPods = new Map<string, DeepReadonly<V1Pod>>();
    const mirrorNames = new Set(read.map((n) => mirrorPodName(n.nodeName)));
    const bootstrapNodes = new Set<string>();
    for (const pod of pods.store.list()) {
      const name = pod.metadata?.name ?? '';
      if (pod.metadata?.labels?.[revisionLabels.app] === 'installer') installerPods.set(name, pod);
      else if (mirrorNames.has(name)) mirrorPods.set(name, pod);
      else if (name === `bootstrap-${mirrorPodName(pod.spec?.nodeName ?? '')}`) bootstrapNodes.add(pod.spec!.nodeName!);
    }
    const latest = cr.status?.latestAvailableRevision ?? 0;
    const missing = latest > 0 ? missingInputs(latest) : undefined;
    const decide = (): InstallerDecision =>
      decideInstallerState({
        nodeStatuses: read,
        latestAvailableRevision: latest,
        installerPods,
        mirrorPods,
        now: ctx.clock.wallNow(),
        namespace,
        bootstrapNodes,
        ...(o.backoff ? { backoff: o.backoff } : {}),
        ...(o.minReadyMs !== undefined ? { minReadyMs: o.minReadyMs } : {}),
      });
    // Missing inputs: no step, but the conditions are still written, as upstream does.
    const decision: InstallerDecision = missing
      ? { nodeStatuses: [], changed: false, actions: [], events: [{ type: 'Warning', reason: 'RequiredInstallerResourcesMissing', message: missing }], conditions: installerConditions(read, latest) }
      : decide();

    // Upstream's node controller: whether the masters are Ready (MasterNodesReadyChanged on a change).
    const masters = masterNodesCondition(nodes.store.list());
    const mastersBefore = cr.status?.conditions?.find((c) => c.type === masters.type);
    const basis = (s: DeepReadonly<Status>) => canonicalJson([s.nodeStatuses ?? [], s.latestAvailableRevision ?? 0]);
    const readBasis = basis(cr.status ?? {});
    await updateStatus<Status>(ctx.client, statusTargetOf(kubeAPIServers, cr), (status) => {
      // The conditions too are derived from what was read: written over newer statuses they would be wrong.
      if (basis(status) !== readBasis) throw new StaleNodeStatuses();
      if (decision.changed) status.nodeStatuses = decision.nodeStatuses;
      const degraded = missing
        ? { type: kubeAPIServerConditionTypes.installerControllerDegraded, status: 'True' as const, reason: 'Error', message: missing }
        : { type: kubeAPIServerConditionTypes.installerControllerDegraded, status: 'False' as const, reason: 'AsExpected' };
      status.conditions = setConditions(status.conditions, [...decision.conditions, degraded, masters], ctx.clock.wallNow());
      status.nodesAtLatestRevision = nodesAtLatestRevision(status);
    });
    if (mastersBefore?.status !== masters.status) ctx.recorder.event(subject, 'Normal', 'MasterNodesReadyChanged', masters.message);
    for (const e of decision.events) ctx.recorder.event(subject, e.type, e.reason, e.message);
    for (const action of decision.actions) {
      const node = read.find((n) => action.kind === 'createInstallerPod' && n.nodeName === action.nodeName);
      const created = await apply(action, cr, (node?.lastFailedCount ?? 0) + 1);
      if (created && action.kind === 'createInstallerPod') logger.info({ pod: action.name, node: action.nodeName, revision: action.revision }, 'installer pod created');
    }
    // Retried with backoff, and at once when a copy appears.
    if (missing) throw new Error(missing);
    return decision.requeueAfterMs !== undefined ? { requeueAfterMs: decision.requeueAfterMs } : undefined;
  };

  const controller = new Controller({
    name: NAME,
    reconcile,
    clock: ctx.clock,
    observer: ctx.metrics?.forController(NAME),
    onError: logSyncFailure(logger, 'installer sync failed', (err) => isConflict(err) || err instanceof StaleNodeStatuses),
  });
  controller.watch(crs);
  controller.watchMapped(nodes, () => [CR_NAME]);
  controller.watchMapped(pods, () => [CR_NAME]);
  controller.watchMapped(configMaps, () => [CR_NAME]);
  controller.watchMapped(secrets, () => [CR_NAME]);
  return controller;
}
