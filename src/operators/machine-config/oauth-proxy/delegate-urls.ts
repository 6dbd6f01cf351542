/**
 * `--openshift-delegate-urls`, as OpenShift's oauth-proxy reads it: a JSON object from URL path
 * prefixes to the access a caller must have, checked with a SubjectAccessReview. A rule naming a
 * `resource` is a resource check (`{"resource": "namespaces", "verb": "get"}`, OpenShift's form);
 * a rule without one checks its verb on the request's own path as a non-resource URL
 * (`{"verb": "get"}`: may this caller GET /metrics on the API server, kube's
 * `system:monitoring`). The longest matching prefix decides; a path no prefix matches is refused.
 */
import type { ResourceRule } from '../../../runtime/delegated-auth.ts';

export interface DelegateRule {
  readonly prefix: string;
  readonly verb: string;
  /** Absent for a non-resource rule. */
  readonly resource?: ResourceRule;
}

const fields = ['verb', 'resource', 'group', 'namespace', 'name', 'subresource'] as const;

export function parseDelegateUrls(text: string): DelegateRule[] {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (err) {
    throw new Error(`--openshift-delegate-urls: not valid JSON: ${(err as Error).message}`);
  }
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) throw new Error('--openshift-delegate-urls: must be a JSON object of path prefixes to access checks');
  const rules: DelegateRule[] = [];
  for (const [prefix, value] of Object.entries(doc as Record<string, unknown>)) {
    if (!prefix.startsWith('/')) throw new Error(`--openshift-delegate-urls: prefix "${prefix}" must start with /`);
    if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new Error(`--openshift-delegate-urls: "${prefix}": must be an object`);
    const v = value as Record<string, unknown>;
    for (const k of Object.keys(v)) if (!(fields as readonly string[]).includes(k)) throw new Error(`--openshift-delegate-urls: "${prefix}": unknown field "${k}" (known: ${fields.join(', ')})`);
    for (const k of fields) if (v[k] !== undefined && typeof v[k] !== 'string') throw new Error(`--openshift-delegate-urls: "${prefix}".${k}: must be a string`);
    const { verb, resource, group, namespace, name, subresource } = v as Partial<Record<(typeof fields)[number], string>>;
    if (!verb) throw new Error(`--openshift-delegate-urls: "${prefix}": verb is required`);
    if (!resource && (group || namespace || name || subresource)) throw new Error(`--openshift-delegate-urls: "${prefix}": group, namespace, name and subresource need a resource`);
    const rule: ResourceRule | undefined = resource ? { verb, resource, ...(group ? { group } : {}), ...(namespace ? { namespace } : {}), ...(name ? { name } : {}), ...(subresource ? { subresource } : {}) } : undefined;
    rules.push({ prefix, verb, ...(rule ? { resource: rule } : {}) });
  }
  return rules.sort((a, b) => b.prefix.length - a.prefix.length);
}

export function ruleFor(rules: readonly DelegateRule[], path: string): DelegateRule | undefined {
  return rules.find((r) => path.startsWith(r.prefix));
}
