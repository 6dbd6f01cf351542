/**
 * metav1.LabelSelector as a predicate, for pod affinity terms and their namespace selectors.
 * The two edge cases follow Kubernetes: a missing selector selects nothing, an empty one
 * (`{}`) selects everything. An operator Kubernetes would reject makes the selector select
 * nothing, so a malformed term can only keep a pod off nodes, never put it somewhere wrong.
 */
import type { V1LabelSelector } from '@kubernetes/client-node';
import type { DeepReadonly } from '../../runtime/readonly.ts';
import type { LabelMatcher, Labels } from './types.ts';

const nothing: LabelMatcher = () => false;

export function compileLabelSelector(selector: DeepReadonly<V1LabelSelector> | undefined | null): LabelMatcher {
  if (!selector) return nothing;
  const checks: Array<(labels: Labels) => boolean> = [];
  for (const [k, v] of Object.entries(selector.matchLabels ?? {})) checks.push((l) => l[k] === v);
  for (const req of selector.matchExpressions ?? []) {
    const { key } = req;
    const values = new Set(req.values ?? []);
    switch (req.operator) {
      case 'In':
        checks.push((l) => key in l && values.has(l[key]));
        break;
      case 'NotIn':
        checks.push((l) => !(key in l) || !values.has(l[key]));
        break;
      case 'Exists':
        checks.push((l) => key in l);
        break;
      case 'DoesNotExist':
        checks.push((l) => !(key in l));
        break;
      default:
        return nothing;
    }
  }
  return (labels) => {
    const l = labels ?? {};
    for (const check of checks) if (!check(l)) return false;
    return true;
  };
}
