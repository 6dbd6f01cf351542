/**
 * metav1.LabelSelector as a predicate over labels, for the workload controllers' selectors.
 * Kubernetes' edge cases hold: a missing selector selects nothing, an empty one (`{}`) selects
 * everything. A selector Kubernetes would reject (an unknown operator, `In` without values)
 * compiles to `undefined`, so the caller can stop instead of acting on a guess.
 */
import type { V1LabelSelector } from '@kubernetes/client-node';
import type { DeepReadonly } from '../../runtime/readonly.ts';

export type Labels = Readonly<Record<string, string>>;
export type LabelMatcher = (labels: Labels | undefined) => boolean;

const nothing: LabelMatcher = () => false;

export function compileSelector(selector: DeepReadonly<V1LabelSelector> | undefined | null): LabelMatcher | undefined {
  if (!selector) return nothing;
  const checks: Array<(labels: Labels) => boolean> = [];
  for (const [k, v] of Object.entries(selector.matchLabels ?? {})) checks.push((l) => l[k] === v);
  for (const req of selector.matchExpressions ?? []) {
    const { key } = req;
    const values = new Set(req.values ?? []);
    switch (req.operator) {
      case 'In':
        if (values.size === 0) return undefined;
        checks.push((l) => key in l && values.has(l[key]));
        break;
      case 'NotIn':
        if (values.size === 0) return undefined;
        checks.push((l) => !(key in l) || !values.has(l[key]));
        break;
      case 'Exists':
        checks.push((l) => key in l);
        break;
      case 'DoesNotExist':
        checks.push((l) => !(key in l));
        break;
      default:
        return undefined;
    }
  }
  return (labels) => {
    const l = labels ?? {};
    for (const check of checks) if (!check(l)) return false;
    return true;
  };
}

/** `{}` (or no requirements at all) selects every object in the namespace: kube refuses to act on it for Deployments. */
export function isEmptySelector(selector: DeepReadonly<V1LabelSelector> | undefined | null): boolean {
  return !!selector && Object.keys(selector.matchLabels ?? {}).length === 0 && (selector.matchExpressions ?? []).length === 0;
}

/** Every label of `subset` is present in `labels` with the same value (ReplicaSet's fullyLabeledReplicas). */
export function hasAllLabels(labels: Labels | undefined, subset: Labels | undefined): boolean {
  for (const [k, v] of Object.entries(subset ?? {})) if (labels?.[k] !== v) return false;
  return true;
}
