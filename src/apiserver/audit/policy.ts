/**
 * kube's audit policy (`audit.k8s.io/v1` Policy): which requests are audited and at what level.
 * Rules are tried in order and the first that matches decides; a request no rule matches is not
 * audited (level None), as in kube-apiserver's policy checker. Only the levels None and Metadata
 * are honoured: Request and RequestResponse would need the request and response bodies, which
 * this server's handlers read and write themselves, so a policy asking for them is refused at
 * start rather than silently logging less than it says.
 */
import { formatPath, type PathSegment } from '../../api/strict-schema.ts';

export type AuditLevel = 'None' | 'Metadata';
export type AuditStage = 'RequestReceived' | 'ResponseStarted' | 'ResponseComplete' | 'Panic';

const stages: readonly AuditStage[] = ['RequestReceived', 'ResponseStarted', 'ResponseComplete', 'Panic'];

export interface GroupResources {
  readonly group: string;
  readonly resources: readonly string[];
  readonly resourceNames: readonly string[];
}

export interface PolicyRule {
  readonly level: AuditLevel;
  readonly users: readonly string[];
  readonly userGroups: readonly string[];
  readonly verbs: readonly string[];
  readonly resources: readonly GroupResources[];
  readonly namespaces: readonly string[];
  readonly nonResourceURLs: readonly string[];
  readonly omitStages: readonly AuditStage[];
}

export interface AuditPolicy {
  readonly rules: readonly PolicyRule[];
  readonly omitStages: readonly AuditStage[];
}

/** What a rule is matched against: the authenticated user and the request. */
export interface AuditAttributes {
  readonly user: { readonly name: string; readonly groups: readonly string[] };
  readonly verb: string;
  readonly resource?: { readonly group: string; readonly resource: string; readonly subresource?: string; readonly namespace?: string; readonly name?: string };
  /** Set for a non-resource request (`/healthz`, `/api`, ...). */
  readonly path?: string;
}

export class AuditPolicyError extends Error {
  constructor(readonly problems: readonly string[]) {
    super(problems.join('\n'));
    this.name = 'AuditPolicyError';
  }
}

const render = (v: unknown): string => JSON.stringify(v ?? null);

/** Reads a decoded policy document; every problem is reported with its field path. */
export function parseAuditPolicy(doc: unknown): AuditPolicy {
  const problems: string[] = [];
  const bad = (path: PathSegment[], message: string) => problems.push(`${formatPath(path) || '<root>'}: ${message}`);
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) throw new AuditPolicyError(['<root>: Invalid value: must be an audit.k8s.io/v1 Policy object']);
  const d = doc as Record<string, unknown>;
  if (d.apiVersion !== undefined && d.apiVersion !== 'audit.k8s.io/v1') bad(['apiVersion'], `Unsupported value: ${render(d.apiVersion)}: supported values: "audit.k8s.io/v1"`);
  if (d.kind !== undefined && d.kind !== 'Policy') bad(['kind'], `Unsupported value: ${render(d.kind)}: supported values: "Policy"`);
  for (const key of Object.keys(d)) if (!['apiVersion', 'kind', 'metadata', 'rules', 'omitStages', 'omitManagedFields'].includes(key)) bad([key], 'unknown field');
  const strings = (value: unknown, path: PathSegment[]): string[] => {
    if (value === undefined || value === null) return [];
    if (!Array.isArray(value) || value.some((v) => typeof v !== 'string')) {
      bad(path, `Invalid value: ${render(value)}: must be a list of strings`);
      return [];
    }
    return value as string[];
  };
  const stageList = (value: unknown, path: PathSegment[]): AuditStage[] =>
    strings(value, path).filter((s, i) => {
      if (stages.includes(s as AuditStage)) return true;
      bad([...path, i], `Unsupported value: ${render(s)}: supported values: ${stages.map(render).join(', ')}`);
      return false;
    }) as AuditStage[];
  if (!Array.isArray(d.rules)) bad(['rules'], 'Required value: a list of rules (none: nothing is audited)');
  const rules = (Array.isArray(d.rules) ? d.rules : []).map((raw: unknown, i): PolicyRule | undefined => {
    const path: PathSegment[] = ['rules', i];
    if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
      bad(path, 'Invalid value: must be an object');
      return undefined;
    }
    const r = raw as Record<string, unknown>;
    for (const key of Object.keys(r)) if (!['level', 'users', 'userGroups', 'verbs', 'resources', 'namespaces', 'nonResourceURLs', 'omitStages', 'omitManagedFields'].includes(key)) bad([...path, key], 'unknown field');
    if (r.level === 'Request' || r.level === 'RequestResponse') {
      bad([...path, 'level'], `Unsupported value: ${render(r.level)}: supported values: "None", "Metadata" (this server does not log request or response bodies)`);
    } else if (r.level !== 'None' && r.level !== 'Metadata') {
      bad([...path, 'level'], r.level === undefined ? 'Required value' : `Unsupported value: ${render(r.level)}: supported values: "None", "Metadata"`);
    }
    const resources = (r.resources === undefined ? [] : Array.isArray(r.resources) ? r.resources : (bad([...path, 'resources'], 'Invalid value: must be a list'), [])).map((g: unknown, j): GroupResources => {
      const gp: PathSegment[] = [...path, 'resources', j];
      const gr = (typeof g === 'object' && g !== null ? g : {}) as Record<string, unknown>;
      if (gr.group !== undefined && typeof gr.group !== 'string') bad([...gp, 'group'], `Invalid value: ${render(gr.group)}: must be a string`);
      return { group: typeof gr.group === 'string' ? gr.group : '', resources: strings(gr.resources, [...gp, 'resources']), resourceNames: strings(gr.resourceNames, [...gp, 'resourceNames']) };
    });
    const nonResourceURLs = strings(r.nonResourceURLs, [...path, 'nonResourceURLs']);
    const namespaces = strings(r.namespaces, [...path, 'namespaces']);
    // kube's validation: a rule is about resources or about non-resource URLs, not both.
    if (nonResourceURLs.length > 0 && (resources.length > 0 || namespaces.length > 0)) bad([...path, 'nonResourceURLs'], 'Invalid value: rules cannot apply to both regular resources and non-resource URLs');
    nonResourceURLs.forEach((u, j) => {
      if (!u.startsWith('/') && u !== '*') bad([...path, 'nonResourceURLs', j], `Invalid value: ${render(u)}: non-resource URL rules must begin with a '/' character`);
      if (u.includes('*') && !u.endsWith('*')) bad([...path, 'nonResourceURLs', j], `Invalid value: ${render(u)}: non-resource URL wildcards ('*') must be the final character of the rule`);
    });
    return {
      level: r.level as AuditLevel,
      users: strings(r.users, [...path, 'users']),
      userGroups: strings(r.userGroups, [...path, 'userGroups']),
      verbs: strings(r.verbs, [...path, 'verbs']),
      resources,
      namespaces,
      nonResourceURLs,
      omitStages: stageList(r.omitStages, [...path, 'omitStages']),
    };
  });
  const omitStages = stageList(d.omitStages, ['omitStages']);
  if (problems.length > 0) throw new AuditPolicyError(problems);
  return { rules: rules as PolicyRule[], omitStages };
}

function matchesResource(rule: PolicyRule, r: NonNullable<AuditAttributes['resource']>): boolean {
  if (rule.nonResourceURLs.length > 0) return false;
  if (rule.namespaces.length > 0 && !rule.namespaces.includes(r.namespace ?? '')) return false;
  if (rule.resources.length === 0) return true;
  const combined = r.subresource ? `${r.resource}/${r.subresource}` : r.resource;
  return rule.resources.some((g) => {
    if (g.group !== r.group) return false;
    if (g.resources.length === 0) return true;
    const named = g.resourceNames.length === 0 || (r.name !== undefined && g.resourceNames.includes(r.name));
    return named && g.resources.some((res) => res === combined || res === `${r.resource}/*` || (r.subresource !== undefined && res === `*/${r.subresource}`));
  });
}

function matchesPath(rule: PolicyRule, path: string): boolean {
  if (rule.resources.length > 0 || rule.namespaces.length > 0) return false;
  if (rule.nonResourceURLs.length === 0) return true;
  return rule.nonResourceURLs.some((u) => u === '*' || u === path || (u.endsWith('*') && path.startsWith(u.slice(0, -1))));
}

/** The first matching rule's level and the stages not to record; None when no rule matches. */
export function evaluatePolicy(policy: AuditPolicy, a: AuditAttributes): { level: AuditLevel; omitStages: readonly AuditStage[] } {
  for (const rule of policy.rules) {
    if (rule.users.length > 0 && !rule.users.includes(a.user.name)) continue;
    if (rule.userGroups.length > 0 && !a.user.groups.some((g) => rule.userGroups.includes(g))) continue;
    if (rule.verbs.length > 0 && !rule.verbs.includes(a.verb)) continue;
    if (a.resource ? !matchesResource(rule, a.resource) : !matchesPath(rule, a.path ?? '')) continue;
    return { level: rule.level, omitStages: [...new Set([...policy.omitStages, ...rule.omitStages])] };
  }
  return { level: 'None', omitStages: policy.omitStages };
}

