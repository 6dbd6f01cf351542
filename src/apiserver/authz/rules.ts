/**
 * RBAC's PolicyRule and how it matches a request, as rbac/v1's helpers define it: `*` matches
 * anything, `*\/sub` any resource's subresource `sub`, an empty `resourceNames` every name, and
 * a non-resource URL ending in `*` every path it prefixes.
 */
import type { Attributes } from './attributes.ts';

export interface PolicyRule {
  readonly verbs: readonly string[];
  readonly apiGroups?: readonly string[];
  readonly resources?: readonly string[];
  readonly resourceNames?: readonly string[];
  readonly nonResourceURLs?: readonly string[];
}

function has(list: readonly string[] | undefined, value: string): boolean {
  if (!list) return false;
  for (const v of list) if (v === '*' || v === value) return true;
  return false;
}

function resourceMatches(rule: PolicyRule, resource: string, subresource: string): boolean {
  const combined = subresource ? `${resource}/${subresource}` : resource;
  for (const r of rule.resources ?? []) {
    if (r === '*' || r === combined) return true;
    if (subresource && r === `*/${subresource}`) return true;
  }
  return false;
}

/** `/api/*` (or `/api/**`: Go's TrimRight drops every trailing `*`) prefixes every path under it. */
function urlPrefixMatches(pattern: string, path: string): boolean {
  return pattern.endsWith('*') && path.startsWith(pattern.replace(/\*+$/, ''));
}

function urlMatches(rule: PolicyRule, path: string): boolean {
  for (const u of rule.nonResourceURLs ?? []) {
    if (u === '*' || u === path || urlPrefixMatches(u, path)) return true;
  }
  return false;
}

export function ruleAllows(rule: PolicyRule, a: Attributes): boolean {
  if (!has(rule.verbs, a.verb)) return false;
  if (a.kind === 'nonresource') return urlMatches(rule, a.path);
  if (!has(rule.apiGroups, a.apiGroup) || !resourceMatches(rule, a.resource, a.subresource)) return false;
  const names = rule.resourceNames;
  return !names || names.length === 0 || names.includes(a.name);
}

export function rulesAllow(rules: readonly PolicyRule[], a: Attributes): boolean {
  for (const r of rules) if (ruleAllows(r, a)) return true;
  return false;
}

/** A rule as kube prints it in escalation errors (rbacv1helpers.CompactString): `{APIGroups:[""], Resources:["pods"], Verbs:["get"]}`. */
export function formatRule(r: PolicyRule): string {
  const q = (l: readonly string[]) => `[${l.map((s) => JSON.stringify(s)).join(' ')}]`;
  const parts: string[] = [];
  if (r.apiGroups?.length) parts.push(`APIGroups:${q(r.apiGroups)}`);
  if (r.resources?.length) parts.push(`Resources:${q(r.resources)}`);
  if (r.nonResourceURLs?.length) parts.push(`NonResourceURLs:${q(r.nonResourceURLs)}`);
  if (r.resourceNames?.length) parts.push(`ResourceNames:${q(r.resourceNames)}`);
  parts.push(`Verbs:${q(r.verbs)}`);
  return `{${parts.join(', ')}}`;
}

// Escalation checks (kube's validation.Covers): every atom of what is granted — one verb on
// one resource of one group (and one name), or one verb on one URL — must be allowed by a rule
// the granting user holds. Wildcards in the grant are covered only by wildcards held.

function covers(owner: readonly string[] | undefined, value: string): boolean {
  if (!owner) return false;
  return owner.includes('*') || owner.includes(value);
}

function resourceCovered(owner: PolicyRule, resource: string): boolean {
  const held = owner.resources ?? [];
  if (held.includes('*') || held.includes(resource)) return true;
  const slash = resource.indexOf('/');
  // `*/status` held covers `pods/status` granted.
  return slash > 0 && held.includes(`*${resource.slice(slash)}`);
}

function urlCovered(owner: PolicyRule, url: string): boolean {
  for (const u of owner.nonResourceURLs ?? []) if (u === url || urlPrefixMatches(u, url)) return true;
  return false;
}

function atoms(rule: PolicyRule): PolicyRule[] {
  const out: PolicyRule[] = [];
  for (const verb of rule.verbs) {
    for (const url of rule.nonResourceURLs ?? []) out.push({ verbs: [verb], nonResourceURLs: [url] });
    for (const group of rule.apiGroups ?? []) {
      for (const resource of rule.resources ?? []) {
        if (rule.resourceNames?.length) for (const name of rule.resourceNames) out.push({ verbs: [verb], apiGroups: [group], resources: [resource], resourceNames: [name] });
        else out.push({ verbs: [verb], apiGroups: [group], resources: [resource] });
      }
    }
  }
  return out;
}

function atomCovered(owner: PolicyRule, atom: PolicyRule): boolean {
  if (!covers(owner.verbs, atom.verbs[0]!)) return false;
  if (atom.nonResourceURLs) return urlCovered(owner, atom.nonResourceURLs[0]!);
  if (!covers(owner.apiGroups, atom.apiGroups![0]!) || !resourceCovered(owner, atom.resources![0]!)) return false;
  const held = owner.resourceNames;
  if (!held || held.length === 0) return true;
  return atom.resourceNames !== undefined && held.includes(atom.resourceNames[0]!);
}

/** The atoms of `requested` that none of `held` covers (empty: every one is held). */
export function uncoveredRules(held: readonly PolicyRule[], requested: readonly PolicyRule[]): PolicyRule[] {
  const missing: PolicyRule[] = [];
  for (const rule of requested) for (const atom of atoms(rule)) if (!held.some((h) => atomCovered(h, atom))) missing.push(atom);
  return missing;
}

/**
 * Missing atoms as kube's escalation error lists them (validation.CompactRules): the atoms of
 * one group, resource and name merged into one rule with their verbs in order; anything else
 * (URLs) kept as it is.
 */
export function compactRules(rules: readonly PolicyRule[]): PolicyRule[] {
  const others: PolicyRule[] = [];
  const simple = new Map<string, { verbs: string[]; apiGroups: readonly string[]; resources: readonly string[]; resourceNames?: readonly string[] }>();
  for (const r of rules) {
    const isSimple = !r.nonResourceURLs?.length && r.apiGroups?.length === 1 && r.resources?.length === 1 && (r.resourceNames?.length ?? 0) <= 1;
    if (!isSimple) {
      others.push(r);
      continue;
    }
    const id = JSON.stringify([r.apiGroups![0], r.resources![0], r.resourceNames?.[0] ?? null]);
    const existing = simple.get(id);
    if (existing) existing.verbs.push(...r.verbs);
    else simple.set(id, { verbs: [...r.verbs], apiGroups: r.apiGroups!, resources: r.resources!, ...(r.resourceNames?.length ? { resourceNames: r.resourceNames } : {}) });
  }
  return [...others, ...simple.values()];
}
