/**
 * What an aggregated ClusterRole's rules must be, as kube-controller-manager's
 * clusterrole-aggregation controller computes them: for each of its `clusterRoleSelectors` in
 * turn, the ClusterRoles the selector matches (the role itself excluded), sorted by name, give
 * their rules in their own order; a rule equal to one already gathered is dropped. Kube compares
 * rules with semantic equality, where an absent list and an empty one are the same, so rules are
 * compared, and written, in that normal form. Pure: the controller feeds it its cache.
 */
import type { V1ClusterRole, V1PolicyRule } from '@kubernetes/client-node';
import { compileLabelSelector, type LabelMatcher } from '../../api/label-selector.ts';
import type { DeepReadonly } from '../../runtime/readonly.ts';

type ClusterRole = DeepReadonly<V1ClusterRole>;
type Rule = DeepReadonly<V1PolicyRule>;

const optionalLists = ['apiGroups', 'resources', 'resourceNames', 'nonResourceURLs'] as const;

/** A selector stored in an aggregationRule that does not compile: validation should have refused it. */
export class InvalidAggregationRule extends Error {}

/** The rule with its empty lists left out, as kube writes it; `verbs` is required, so always kept. */
export function normalRule(rule: Rule): V1PolicyRule {
  const out: V1PolicyRule = { verbs: [...(rule.verbs ?? [])] };
  for (const f of optionalLists) {
    const list = rule[f];
    if (list?.length) out[f] = [...list];
  }
  return out;
}

/** Equal keys for semantically equal rules: every list in a fixed order, absent as empty. */
function ruleKey(rule: Rule): string {
  return JSON.stringify([rule.verbs ?? [], ...optionalLists.map((f) => rule[f] ?? [])]);
}

export function sameRules(a: readonly Rule[] | undefined, b: readonly Rule[] | undefined): boolean {
  const left = a ?? [];
  const right = b ?? [];
  return left.length === right.length && left.every((r, i) => ruleKey(r) === ruleKey(right[i]!));
}

function selectorsOf(role: ClusterRole): LabelMatcher[] {
  return (role.aggregationRule?.clusterRoleSelectors ?? []).map((selector, i) => {
    const compiled = compileLabelSelector(selector, `aggregationRule.clusterRoleSelectors[${i}]`);
    if (compiled.error !== undefined) throw new InvalidAggregationRule(`clusterrole "${role.metadata?.name}": ${compiled.error}`);
    return compiled.matches;
  });
}

const byName = (a: ClusterRole, b: ClusterRole): number => {
  const x = a.metadata?.name ?? '';
  const y = b.metadata?.name ?? '';
  return x < y ? -1 : x > y ? 1 : 0;
};

/** The rules `role` aggregates from `all` (every ClusterRole, in any order). */
export function aggregatedRules(role: ClusterRole, all: readonly ClusterRole[]): V1PolicyRule[] {
  const rules: V1PolicyRule[] = [];
  const seen = new Set<string>();
  for (const matches of selectorsOf(role)) {
    const selected = all.filter((r) => r.metadata?.name !== role.metadata?.name && matches(r.metadata?.labels)).sort(byName);
    for (const source of selected) {
      for (const rule of source.rules ?? []) {
        const key = ruleKey(rule);
        if (seen.has(key)) continue;
        seen.add(key);
        rules.push(normalRule(rule));
      }
    }
  }
  return rules;
}

/** The rules to write to an aggregated `role`; undefined when it has none to aggregate or already holds them. */
export function rulesToWrite(role: ClusterRole, all: readonly ClusterRole[]): V1PolicyRule[] | undefined {
  if (!role.aggregationRule) return undefined;
  const rules = aggregatedRules(role, all);
  return sameRules(rules, role.rules) ? undefined : rules;
}

/**
 * The aggregated ClusterRoles whose rules may depend on `changed`: the ones with a selector
 * matching its labels, and the role itself when it aggregates. The controller maps both the old
 * and the new object of an update through this, so a role whose labels stop matching is seen too.
 */
export function aggregatorsAffectedBy(changed: ClusterRole, all: readonly ClusterRole[]): string[] {
  const name = changed.metadata?.name ?? '';
  const keys = changed.aggregationRule ? [name] : [];
  for (const role of all) {
    const aggregator = role.metadata?.name ?? '';
    if (!role.aggregationRule || aggregator === name) continue;
    let matchers: LabelMatcher[];
    try {
      matchers = selectorsOf(role);
    } catch {
      continue; // its own reconcile reports it
    }
    if (matchers.some((m) => m(changed.metadata?.labels))) keys.push(aggregator);
  }
  return keys;
}
