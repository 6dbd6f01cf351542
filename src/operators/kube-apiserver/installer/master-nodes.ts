/**
 * `NodeControllerDegraded` (library-go's node controller): whether every master Node is Ready,
 * and if not, which one since when and why, in upstream's words, so a rollout waiting on a
 * master that is down says so on the CR and the ClusterOperator.
 */
import type { V1Node } from '@kubernetes/client-node';
import { kubeAPIServerConditionTypes } from '../../../api/operator/index.ts';
import { formatTimestamp } from '../../../api/time.ts';
import type { DeepReadonly } from '../../../runtime/readonly.ts';
import { compareStrings } from '../../../api/compare.ts';

export interface MasterNodesCondition {
  readonly type: string;
  readonly status: 'True' | 'False';
  readonly reason: string;
  readonly message: string;
}

export function masterNodesCondition(nodes: readonly DeepReadonly<V1Node>[]): MasterNodesCondition {
  const notReady: string[] = [];
  for (const node of [...nodes].sort((a, b) => compareStrings(a.metadata?.name ?? '', b.metadata?.name ?? ''))) {
    const ready = node.status?.conditions?.find((c) => c.type === 'Ready');
    if (ready?.status === 'True') continue;
    const since = ready?.lastTransitionTime ? formatTimestamp(new Date(ready.lastTransitionTime as unknown as string)) : 'unknown';
    notReady.push(`node "${node.metadata?.name ?? ''}" not ready since ${since} because ${ready?.reason ?? 'NoReadyCondition'} (${ready?.message ?? 'the node has not reported Ready'})`);
  }
  const type = kubeAPIServerConditionTypes.nodeControllerDegraded;
  if (notReady.length === 0) return { type, status: 'False', reason: 'MasterNodesReady', message: 'All master nodes are ready' };
  return { type, status: 'True', reason: 'MasterNodesReady', message: `The master nodes not ready: ${notReady.join(', ')}` };
}
