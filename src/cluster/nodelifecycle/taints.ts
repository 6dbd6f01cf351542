/** How long a pod may stay on a node with NoExecute taints (pure); which toleration matches which taint is api/taints.ts. */
import type { V1Taint, V1Toleration } from '@kubernetes/client-node';
import { tolerates } from '../../api/taints.ts';
import type { DeepReadonly } from '../../runtime/readonly.ts';

export const UNREACHABLE = 'node.kubernetes.io/unreachable';
export const NOT_READY = 'node.kubernetes.io/not-ready';

/**
 * How long a pod may stay on a node with these NoExecute taints, in seconds: 0 if one is not
 * tolerated, Infinity if all are tolerated forever. A pod with no toleration for the
 * not-ready/unreachable taints gets `defaultSeconds`, as kube's DefaultTolerationSeconds
 * admission plugin would have given it.
 */
export function tolerationSeconds(tolerations: readonly DeepReadonly<V1Toleration>[], taints: readonly DeepReadonly<V1Taint>[], defaultSeconds: number): number {
  let min = Infinity;
  for (const taint of taints) {
    if (taint.effect !== 'NoExecute') continue;
    const matching = tolerations.filter((t) => tolerates(t, taint));
    if (!matching.length) {
      if (taint.key === UNREACHABLE || taint.key === NOT_READY) min = Math.min(min, defaultSeconds);
      else return 0;
      continue;
    }
    for (const t of matching) if (t.tolerationSeconds !== undefined && t.tolerationSeconds !== null) min = Math.min(min, Math.max(0, t.tolerationSeconds));
  }
  return min;
}
