/**
 * What an authorizer decides on: who asks, and what for. Kube's authorizer.Attributes, reduced
 * to what Shipyard's authorizers read. A resource request names a verb on a (sub)resource of an
 * API group, in a namespace or at the cluster scope; anything else is a verb on a URL path.
 */
import type { UserInfo } from '../auth/tokens.ts';
import type { RequestInfo } from '../http/request-info.ts';

export interface ResourceAttributes {
  readonly kind: 'resource';
  readonly user: UserInfo;
  readonly verb: string;
  /** '' for the cluster scope. */
  readonly namespace: string;
  readonly apiGroup: string;
  readonly apiVersion?: string;
  readonly resource: string;
  readonly subresource: string;
  /** '' when the request names no object (list, create, deletecollection). */
  readonly name: string;
}

export interface NonResourceAttributes {
  readonly kind: 'nonresource';
  readonly user: UserInfo;
  readonly verb: string;
  readonly path: string;
}

export type Attributes = ResourceAttributes | NonResourceAttributes;

const httpVerbs: Record<string, string> = { GET: 'get', HEAD: 'get', POST: 'post', PUT: 'put', PATCH: 'patch', DELETE: 'delete', OPTIONS: 'options' };

/** The attributes of one HTTP request, as kube-apiserver's RequestInfoFactory derives them. */
export function attributesOf(user: UserInfo, method: string, path: string, info: RequestInfo): Attributes {
  if (info.kind === 'resource') {
    return {
      kind: 'resource',
      user,
      verb: info.verb,
      // A namespace's own URL (`/api/v1/namespaces/x`) is in namespace x, so that a RoleBinding
      // there may grant reading the namespace itself, as kube's RequestInfoFactory has it.
      namespace: info.namespace ?? (info.group === '' && info.resource === 'namespaces' && info.name ? info.name : ''),
      apiGroup: info.group,
      apiVersion: info.version,
      resource: info.resource,
      subresource: info.subresource ?? '',
      name: info.name ?? '',
    };
  }
  // Discovery paths (/api, /apis/g/v) are non-resource URLs to an authorizer, as in kube.
  return { kind: 'nonresource', user, verb: httpVerbs[method] ?? method.toLowerCase(), path };
}

export function isResource(a: Attributes): a is ResourceAttributes {
  return a.kind === 'resource';
}
