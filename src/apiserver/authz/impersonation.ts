/**
 * Impersonation (`kubectl --as`, `--as-group`, `--as-uid`): the `Impersonate-*` headers turn a
 * request into one made as someone else, if the real user may `impersonate` each thing asked
 * for — the user (or the ServiceAccount), every group, the uid and every extra value — as
 * kube-apiserver's impersonation filter checks them.
 */
import type { IncomingHttpHeaders } from 'node:http';
import { isDns1123Label, isDns1123Subdomain } from '../../api/names.ts';
import type { UserInfo } from '../auth/tokens.ts';
import { ApiError, errors } from '../errors.ts';
import type { ResourceAttributes } from './attributes.ts';
import { forbiddenMessage, type Authorizer } from './authorizer.ts';

const saPrefix = 'system:serviceaccount:';

function headerList(v: string | string[] | undefined): string[] {
  if (v === undefined) return [];
  return (Array.isArray(v) ? v : [v]).flatMap((s) => s.split(',')).map((s) => s.trim()).filter(Boolean);
}

/** Whether the request asks to impersonate anyone (cheap: most requests do not). */
export function wantsImpersonation(headers: IncomingHttpHeaders): boolean {
  for (const h in headers) if (h.startsWith('impersonate-')) return true;
  return false;
}

/** `system:serviceaccount:<ns>:<name>` with a valid namespace and name, as kube's SplitUsername; otherwise a plain user name. */
function splitServiceAccount(name: string): { namespace: string; name: string } | undefined {
  if (!name.startsWith(saPrefix)) return undefined;
  const parts = name.slice(saPrefix.length).split(':');
  if (parts.length !== 2 || isDns1123Label(parts[0]!).length > 0 || isDns1123Subdomain(parts[1]!).length > 0) return undefined;
  return { namespace: parts[0]!, name: parts[1]! };
}

export function impersonate(real: UserInfo, headers: IncomingHttpHeaders, authorizer: Authorizer): UserInfo {
  const userHeader = headers['impersonate-user'];
  const name = (Array.isArray(userHeader) ? userHeader[0] : userHeader)?.trim() ?? '';
  const groups = headerList(headers['impersonate-group']);
  const uidHeader = headers['impersonate-uid'];
  const uid = (Array.isArray(uidHeader) ? uidHeader[0] : uidHeader)?.trim() ?? '';
  const extra: Record<string, string[]> = {};
  for (const [h, v] of Object.entries(headers)) {
    if (!h.startsWith('impersonate-extra-')) continue;
    const key = decodeURIComponent(h.slice('impersonate-extra-'.length));
    extra[key] = headerList(v);
  }
  if (!name) throw errors.badRequest('impersonating a group, uid or extra fields requires impersonating a user (Impersonate-User)');

  const check = (resource: string, apiGroup: string, objectName: string, namespace = '', subresource = ''): void => {
    const a: ResourceAttributes = { kind: 'resource', user: real, verb: 'impersonate', namespace, apiGroup, resource, subresource, name: objectName };
    const d = authorizer.authorize(a);
    if (!d.allowed) throw new ApiError(403, 'Forbidden', forbiddenMessage(a, d.reason), { name: objectName, group: apiGroup || undefined, kind: resource });
  };

  // Kube's order of checks: the user (or ServiceAccount), each group, each extra value, the uid.
  const sa = splitServiceAccount(name);
  if (sa) check('serviceaccounts', '', sa.name, sa.namespace);
  else check('users', '', name);
  for (const g of groups) check('groups', '', g);
  for (const [key, values] of Object.entries(extra)) for (const v of values) check('userextras', 'authentication.k8s.io', v, '', key);
  if (uid) check('uids', 'authentication.k8s.io', uid);

  // Groups asked for are the whole answer; only without them does a ServiceAccount get its own.
  const impersonatedGroups = groups.length ? [...groups] : sa ? ['system:serviceaccounts', `system:serviceaccounts:${sa.namespace}`] : [];
  if (name === 'system:anonymous') {
    if (!impersonatedGroups.includes('system:unauthenticated')) impersonatedGroups.push('system:unauthenticated');
  } else if (!impersonatedGroups.includes('system:authenticated') && !impersonatedGroups.includes('system:unauthenticated')) {
    impersonatedGroups.push('system:authenticated');
  }
  return { name, uid, groups: impersonatedGroups, ...(Object.keys(extra).length ? { extra } : {}) };
}
