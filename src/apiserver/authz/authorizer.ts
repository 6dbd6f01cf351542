/**
 * The authorizer chain kube-apiserver runs with `--authorization-mode=Node,RBAC`, behind the
 * `system:masters` short cut every kube-apiserver has: the first authorizer with an opinion
 * decides, and no opinion at the end is a denial.
 */
import type { Attributes } from './attributes.ts';
import { authorizeNode, type NodeGraph } from './node-authorizer.ts';
import type { Decision, RbacIndex } from './rbac-index.ts';

export const mastersGroup = 'system:masters';

export interface Authorizer {
  authorize(a: Attributes): Decision;
}

export function createAuthorizer(rbac: RbacIndex, nodes: NodeGraph): Authorizer {
  return {
    authorize(a) {
      if (a.user.groups.includes(mastersGroup)) return { allowed: true, reason: '' };
      const node = authorizeNode(nodes, a);
      if (node?.allowed) return node;
      const decision = rbac.authorize(a);
      if (decision.allowed || !node) return decision;
      // Both say why, one reason a line, as kube's union authorizer joins them.
      return { allowed: false, reason: [node.reason, decision.reason].filter(Boolean).join('\n') };
    },
  };
}

function scopeOf(a: Attributes & { kind: 'resource' }): string {
  return a.namespace ? `in the namespace "${a.namespace}"` : 'at the cluster scope';
}

/** kube-apiserver's 403 message for a denied request (`responsewriters.forbiddenMessage`). */
export function forbiddenMessage(a: Attributes, reason: string): string {
  const user = `User "${a.user.name}"`;
  const why = reason ? `: ${reason}` : '';
  if (a.kind === 'nonresource') return `forbidden: ${user} cannot ${a.verb} path "${a.path}"${why}`;
  const resource = a.subresource ? `${a.resource}/${a.subresource}` : a.resource;
  const object = a.name ? `${qualified(a)} "${a.name}"` : qualified(a);
  return `${object} is forbidden: ${user} cannot ${a.verb} resource "${resource}" in API group "${a.apiGroup}" ${scopeOf(a)}${why}`;
}

function qualified(a: Attributes & { kind: 'resource' }): string {
  return a.apiGroup ? `${a.resource}.${a.apiGroup}` : a.resource;
}
