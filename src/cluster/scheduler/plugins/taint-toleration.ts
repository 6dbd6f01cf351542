/**
 * TaintToleration: a node with a NoSchedule or NoExecute taint the pod does not tolerate is
 * refused, naming the first such taint as kube-scheduler 1.32 does
 * ("node(s) had untolerated taint {key: value}"). PreferNoSchedule only steers scoring in
 * Kubernetes and is ignored here. No eviction on a change of heart helps, so the failure is
 * unresolvable.
 */
import type { V1Taint, V1Toleration } from '@kubernetes/client-node';
import type { DeepReadonly } from '../../../runtime/readonly.ts';
import type { FilterResult, Node, Pod } from '../types.ts';

type Taint = DeepReadonly<V1Taint>;
type Toleration = DeepReadonly<V1Toleration>;

export const untoleratedTaintReason = (taint: Taint): string => `node(s) had untolerated taint {${taint.key}: ${taint.value ?? ''}}`;

/** Toleration semantics: an empty key with Exists tolerates every key; an empty effect every effect. */
export function tolerates(toleration: Toleration, taint: Taint): boolean {
  if (toleration.effect && toleration.effect !== taint.effect) return false;
  if (toleration.key && toleration.key !== taint.key) return false;
  switch (toleration.operator ?? 'Equal') {
    case 'Exists':
      return true;
    case 'Equal':
    case '':
      return (toleration.value ?? '') === (taint.value ?? '');
    default:
      return false;
  }
}

export function toleratesTaint(tolerations: readonly Toleration[] | undefined, taint: Taint): boolean {
  return (tolerations ?? []).some((t) => tolerates(t, taint));
}

export function taintToleration(pod: Pod, node: Node): FilterResult {
  const taints = node.spec?.taints;
  if (!taints) return undefined;
  for (const taint of taints) {
    if (taint.effect !== 'NoSchedule' && taint.effect !== 'NoExecute') continue;
    if (!toleratesTaint(pod.spec?.tolerations, taint)) return { code: 'UnschedulableAndUnresolvable', reasons: [untoleratedTaintReason(taint)] };
  }
  return undefined;
}
