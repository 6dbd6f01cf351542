/**
 * Parses a request path the way kube-apiserver's RequestInfoFactory does:
 * `/api/v1[/namespaces/{ns}]/{resource}[/{name}[/{subresource}]]` and the same under
 * `/apis/{group}/{version}`, and derives the verb from the method and query.
 */
import { errors } from '../errors.ts';

export type Verb = 'get' | 'list' | 'watch' | 'create' | 'update' | 'patch' | 'delete' | 'deletecollection';

export interface ResourceRequest {
  readonly kind: 'resource';
  readonly group: string;
  readonly version: string;
  readonly namespace?: string;
  readonly resource: string;
  readonly name?: string;
  readonly subresource?: string;
  readonly verb: Verb;
}

export interface NonResourceRequest {
  readonly kind: 'nonresource';
  readonly path: string;
}

export interface GroupRequest {
  /** `/api`, `/apis`, `/api/v1`, `/apis/{g}`, `/apis/{g}/{v}`: discovery. */
  readonly kind: 'discovery';
  readonly group?: string;
  readonly version?: string;
  readonly legacy: boolean;
}

export type RequestInfo = ResourceRequest | NonResourceRequest | GroupRequest;

function decodeSegment(s: string): string {
  // Most segments hold no escape, and decodeURIComponent (with its try) is a measurable part of every request.
  if (!s.includes('%')) return s;
  try {
    return decodeURIComponent(s);
  } catch {
    throw errors.badRequest(`malformed path segment ${JSON.stringify(s)}`);
  }
}

export function parseRequestInfo(method: string, pathname: string, query: URLSearchParams): RequestInfo {
  const parts = pathname.split('/').filter((p) => p.length > 0).map(decodeSegment);
  if (parts[0] !== 'api' && parts[0] !== 'apis') return { kind: 'nonresource', path: pathname };
  const legacy = parts[0] === 'api';
  let group = '';
  let version: string | undefined;
  let rest: string[];
  if (legacy) {
    version = parts[1];
    rest = parts.slice(2);
  } else {
    group = parts[1] ?? '';
    version = parts[2];
    rest = parts.slice(3);
    if (!group) return { kind: 'discovery', legacy: false };
  }
  if (!version) return { kind: 'discovery', legacy, group: group || undefined };
  if (rest.length === 0) return { kind: 'discovery', legacy, group, version };
  let namespace: string | undefined;
  // `/namespaces/{ns}/{resource}...` is a namespaced request; `/namespaces[/{name}[/status|finalize]]` is the namespace itself.
  if (rest[0] === 'namespaces' && rest.length >= 3 && rest[2] !== 'status' && rest[2] !== 'finalize') {
    namespace = rest[1];
    rest = rest.slice(2);
  }
  const [resource, name, subresource, ...extra] = rest as [string, string | undefined, string | undefined, ...string[]];
  if (extra.length > 0) throw errors.badRequest(`unexpected path segments after subresource: /${extra.join('/')}`);
  const watch = query.get('watch') === 'true' || query.get('watch') === '1';
  let verb: Verb;
  switch (method) {
    case 'GET':
    case 'HEAD':
      verb = name ? (watch ? 'watch' : 'get') : watch ? 'watch' : 'list';
      break;
    case 'POST':
      verb = 'create';
      break;
    case 'PUT':
      verb = 'update';
      break;
    case 'PATCH':
      verb = 'patch';
      break;
    case 'DELETE':
      verb = name ? 'delete' : 'deletecollection';
      break;
    default:
      throw errors.methodNotAllowed(method, pathname);
  }
  return { kind: 'resource', group, version, namespace, resource, name, subresource, verb };
}
