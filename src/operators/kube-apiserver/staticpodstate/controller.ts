/**
 * The static-pod state controller's shell (issue 17, item 5; library-go's staticpodstate
 * controller): on every change of the CR or a pod of the operand namespace, it hands the
 * masters' mirror pods to `decideStaticPodState` and writes `StaticPodsDegraded` on the CR.
 * For a failing container the kubelet left no termination message for, it reads the log's last
 * lines through the API (`pods/log`, the previous run's when the container is waiting to
 * restart); a log that cannot be read only leaves them out.
 *
 * Unlike upstream it records no operand version: Shipyard's status controller owns `versions`.
 * It does nothing unless the operator is managed.
 */
import type { V1Pod } from '@kubernetes/client-node';
import { setCondition } from '../../../api/config/conditions.ts';
import { KubeAPIServer, kubeAPIServerConditionTypes, kubeAPIServerNamespace, mirrorPodName, type KubeAPIServerStatus } from '../../../api/operator/index.ts';
import { errorText, type ApiClient } from '../../../runtime/client.ts';
import type { ControllerContext } from '../../../runtime/context.ts';
import { Controller, logSyncFailure } from '../../../runtime/controller.ts';
import type { DeepReadonly } from '../../../runtime/readonly.ts';
import { refOf, resources } from '../../../runtime/resources.ts';
import { statusTargetOf, updateStatus } from '../../../runtime/update-status.ts';
import { decideStaticPodState, logKey, logsWanted, logTailLines } from './decide.ts';

const NAME = 'static-pod-state';
const CR_NAME = 'cluster';
const kubeAPIServers = refOf(KubeAPIServer);

export interface StaticPodStateControllerOptions {
  /** The operand namespace; `openshift-kube-apiserver` unless given. */
  readonly namespace?: string;
  /** How long a running container may stay not ready before it is told; 5 min unless given. */
  readonly notReadyGraceMs?: number;
  /** How long one log read may take; 5 s unless given. */
  readonly logTimeoutMs?: number;
}

const managed = (state: string | undefined): boolean => state === 'Managed' || state === 'Force';

/** The container log's last lines through the API server (which asks the node's kubelet). */
export async function readLogTail(client: ApiClient, namespace: string, pod: string, container: string, previous: boolean, timeoutMs: number): Promise<string> {
  const path = `/api/v1/namespaces/${encodeURIComponent(namespace)}/pods/${encodeURIComponent(pod)}/log`;
  return client.request<string>('GET', path, { query: { container, tailLines: logTailLines, previous }, raw: true, accept: '*/*', signal: AbortSignal.timeout(timeoutMs) });
}

export function createStaticPodStateController(ctx: ControllerContext, o: StaticPodStateControllerOptions = {}): Controller {
  const logger = ctx.logger.child({ controller: NAME });
  const namespace = o.namespace ?? kubeAPIServerNamespace;
  const crs = ctx.informers.informer<KubeAPIServer>(kubeAPIServers);
  const pods = ctx.informers.informer<V1Pod>(resources.pods, { namespace });
  /**
   * Tails already read, by container run: every write to the CR re-runs the sync, and a run's
   * log does not change once it has failed, so it is read once per run, not once per sync.
   */
  let tailsByRun = new Map<string, string>();

  const reconcile = async (key: string) => {
    const cr = crs.store.get(key);
    if (!cr || key !== CR_NAME || !managed(cr.spec?.managementState)) return;
    const nodes = cr.status?.nodeStatuses ?? [];
    const mirrors = new Map<string, DeepReadonly<V1Pod>>();
    for (const n of nodes) {
      const pod = pods.store.get(`${namespace}/${mirrorPodName(n.nodeName)}`);
      if (pod) mirrors.set(mirrorPodName(n.nodeName), pod);
    }
    const logTails = new Map<string, string>();
    const seen = new Map<string, string>();
    for (const [name, pod] of mirrors) {
      for (const want of logsWanted(pod)) {
        const restarts = pod.status?.containerStatuses?.find((s) => s.name === want.container)?.restartCount ?? 0;
        const run = `${pod.metadata?.uid}/${want.container}/${restarts}/${want.previous}`;
        let tail = tailsByRun.get(run);
        if (tail === undefined) {
          try {
            tail = await readLogTail(ctx.client, namespace, name, want.container, want.previous, o.logTimeoutMs ?? 5_000);
          } catch (err) {
            logger.debug({ pod: name, container: want.container, err: errorText(err) }, 'container log not readable');
            continue;
          }
        }
        seen.set(run, tail);
        logTails.set(logKey(name, want.container), tail);
      }
    }
    tailsByRun = seen;
    const decision = decideStaticPodState({ nodes, pods: mirrors, now: ctx.clock.wallNow(), ...(o.notReadyGraceMs !== undefined ? { notReadyGraceMs: o.notReadyGraceMs } : {}), logTails });
    await updateStatus<KubeAPIServerStatus>(ctx.client, statusTargetOf(kubeAPIServers, cr), (status) => {
      status.conditions = setCondition(status.conditions, { type: kubeAPIServerConditionTypes.staticPodsDegraded, ...decision.condition }, ctx.clock.wallNow());
    });
    return decision.requeueAfterMs !== undefined ? { requeueAfterMs: decision.requeueAfterMs } : undefined;
  };

  const controller = new Controller({
    name: NAME,
    reconcile,
    clock: ctx.clock,
    observer: ctx.metrics?.forController(NAME),
    onError: logSyncFailure(logger, 'static pod state sync failed'),
  });
  controller.watch(crs);
  controller.watchMapped(pods, () => [CR_NAME]);
  return controller;
}
