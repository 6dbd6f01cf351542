/**
 * The prune controller (issue 17, item 4; library-go's prune controller, reference §9): once
 * revisions pile up beyond what the limits keep, it runs `revision-pruner-<latest>-<node>` on
 * every node that has revisions on disk (created once per node and latest revision) and deletes
 * the `revision-status-N` ConfigMaps of the revisions it does not keep. Their copies `<name>-N`
 * and installer pods are owned by them, so the garbage collector removes those; the controller
 * never touches an object it did not decide on. The decision is `decide.ts`'s.
 *
 * Upstream runs it whatever the management state: pruning only removes what no node needs.
 * One key, the singleton CR; the CR and the operand namespace's ConfigMaps and pods re-check
 * everything. The pods come before the deletions, as upstream orders it: a pod that fails to be
 * created leaves the revision in the API, to be retried, rather than forgotten on the disk.
 */
import type { V1ConfigMap, V1Pod } from '@kubernetes/client-node';
import { KubeAPIServer, kubeAPIServerNamespace, kubeAPIServerOperatorNamespace, prunerPodName, revisionStatusName, revisionStatusPrefix } from '../../../api/operator/index.ts';
import { isAlreadyExists, isNotFound } from '../../../runtime/client.ts';
import type { ControllerContext, EventSubject } from '../../../runtime/context.ts';
import { Controller, logSyncFailure } from '../../../runtime/controller.ts';
import type { DeepReadonly } from '../../../runtime/readonly.ts';
import { refOf, resources } from '../../../runtime/resources.ts';
import { decidePrune, revisionLimits } from './decide.ts';
import { prunerPod } from './pruner-pod.ts';

const NAME = 'prune';
const CR_NAME = 'cluster';
const kubeAPIServers = refOf(KubeAPIServer);

export interface PruneControllerOptions {
  /** The operator's image, whose `prune` command the pods run. */
  readonly image: string;
  /** The command running the pruner in that image; `cluster-kube-apiserver-operator prune` unless given. */
  readonly command?: readonly string[];
  /** The operand namespace; `openshift-kube-apiserver` unless given. */
  readonly namespace?: string;
  /** What the events are about: the operator's Deployment unless given. */
  readonly eventSubject?: EventSubject;
}

/** N of a `revision-status-N` ConfigMap: its `revision` key, as upstream reads it, else its name. */
export function revisionOfStatus(cm: DeepReadonly<V1ConfigMap>): number | undefined {
  const name = cm.metadata?.name ?? '';
  if (!name.startsWith(revisionStatusPrefix)) return undefined;
  const text = cm.data?.revision ?? name.slice(revisionStatusPrefix.length);
  return /^\d+$/.test(text) ? Number(text) : undefined;
}

export function createPruneController(ctx: ControllerContext, o: PruneControllerOptions): Controller {
  const logger = ctx.logger.child({ controller: NAME });
  const namespace = o.namespace ?? kubeAPIServerNamespace;
  const crs = ctx.informers.informer<KubeAPIServer>(kubeAPIServers);
  const configMaps = ctx.informers.informer<V1ConfigMap>(resources.configMaps, { namespace });
  const pods = ctx.informers.informer<V1Pod>(resources.pods, { namespace });
  const subject: EventSubject = o.eventSubject ?? { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'kube-apiserver-operator', namespace: kubeAPIServerOperatorNamespace } };

  const ensurePrunerPod = async (latest: number, nodeName: string, protectedRevisions: readonly number[], ownerUid: string): Promise<void> => {
    const name = prunerPodName(latest, nodeName);
    if (pods.store.get(`${namespace}/${name}`)) return;
    try {
      await ctx.client.create(resources.pods, prunerPod({ latestRevision: latest, nodeName, protectedRevisions, image: o.image, ...(o.command ? { command: o.command } : {}), ownerUid, namespace }));
    } catch (err) {
      // The cache has not seen our own create yet: once per node and latest revision.
      if (isAlreadyExists(err)) return;
      throw err;
    }
    ctx.recorder.event(subject, 'Normal', 'PodCreated', `Created Pod/${name} -n ${namespace} because it was missing`);
    logger.info({ pod: name, node: nodeName, protected: protectedRevisions }, 'pruner pod created');
  };

  const reconcile = async (key: string) => {
    const cr = crs.store.get(key);
    if (!cr || key !== CR_NAME) return;
    const latest = cr.status?.latestAvailableRevision ?? 0;
    const statuses = new Map<number, DeepReadonly<V1ConfigMap>>();
    for (const cm of configMaps.store.list()) {
      const r = revisionOfStatus(cm);
      if (r !== undefined) statuses.set(r, cm);
    }
    const decision = decidePrune({ latestAvailableRevision: latest, nodeStatuses: cr.status?.nodeStatuses ?? [], limits: revisionLimits(cr.spec), existingRevisions: statuses.keys() });
    if (decision.kind === 'keepAll') return;

    if (decision.pruneNodes.length > 0) {
      const owner = statuses.get(latest);
      // Seen soon: the revision controller writes it before it records the revision as latest.
      if (!owner?.metadata?.uid) throw new Error(`configmaps "${revisionStatusName(latest)}" not found`);
      for (const node of decision.pruneNodes) await ensurePrunerPod(latest, node, decision.protectedRevisions, owner.metadata.uid);
    }
    for (const revision of decision.deleteRevisions) {
      const cm = statuses.get(revision)!;
      try {
        // Only the object the decision was made on: one recreated meanwhile is another revision's.
        await ctx.client.delete(resources.configMaps, namespace, cm.metadata!.name!, { preconditions: { uid: cm.metadata!.uid! } });
        logger.info({ revision }, 'revision pruned');
      } catch (err) {
        if (!isNotFound(err)) throw err;
      }
    }
  };

  const controller = new Controller({
    name: NAME,
    reconcile,
    clock: ctx.clock,
    observer: ctx.metrics?.forController(NAME),
    onError: logSyncFailure(logger, 'prune sync failed'),
  });
  controller.watch(crs);
  controller.watchMapped(configMaps, () => [CR_NAME]);
  controller.watchMapped(pods, (p) => ((p.metadata?.name ?? '').startsWith('revision-pruner-') ? [CR_NAME] : []));
  return controller;
}
