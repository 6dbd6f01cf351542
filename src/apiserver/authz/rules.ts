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

function urlMatches(rule: PolicyRule, path: string): boolean {
  for (const u of rule.nonResourceURLs ?? []) {
    if (u === '*' || u === path) return true;
    if (u.endsWith('*') && path.startsWith(u.slice(0, -1))) return true;
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
  for (const u of owner.nonResourceURLs ?? []) {
    if (u === '*' || u === url) return true;
    if (u.endsWith('*') && url.startsWith(u.slice(0, -1))) return true;
  }
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
