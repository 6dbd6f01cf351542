/**
 * The write checks that belong to authorization, run by the store after validation (so they
 * see the object as it would be stored, patches included):
 * - RBAC escalation prevention, as kube's rbac registry: a Role or ClusterRole may grant only
 *   what its author holds, unless they may `escalate` it; a binding may bind only a role whose
 *   rules its author holds, unless they may `bind` it.
 * - NodeRestriction: a kubelet writes only its own Node and the pods bound to it.
 */
import type { UserInfo } from '../auth/tokens.ts';
import { errors } from '../errors.ts';
import type { KubeObject, ResourceDefinition } from '../registry/resource.ts';
import { mastersGroup, type Authorizer } from './authorizer.ts';
import { nodeNameOf } from './node-authorizer.ts';
import { rbacGroup, type RbacIndex, type RoleRef } from './rbac-index.ts';
import { formatRule, uncoveredRules, type PolicyRule } from './rules.ts';

export interface AdmissionUser {
  readonly name: string;
  readonly uid?: string;
  readonly groups: readonly string[];
}

export interface AuthzAdmission {
  admit(def: ResourceDefinition, obj: KubeObject, old: KubeObject | undefined, ctx: { user?: AdmissionUser; subresource?: string }): void;
  admitDelete(def: ResourceDefinition, obj: KubeObject, ctx: { user?: AdmissionUser }): void;
}

const mirrorAnnotation = 'kubernetes.io/config.mirror';

function asUser(u: AdmissionUser): UserInfo {
  return { name: u.name, uid: u.uid ?? '', groups: u.groups };
}

export function createAuthzAdmission(rbac: RbacIndex, authorizer: Authorizer): AuthzAdmission {
  const allowedTo = (user: UserInfo, verb: string, resource: string, namespace: string, name: string): boolean =>
    authorizer.authorize({ kind: 'resource', user, verb, namespace, apiGroup: rbacGroup, resource, subresource: '', name }).allowed;

  const confirmNoEscalation = (def: ResourceDefinition, name: string, user: UserInfo, namespace: string, granted: readonly PolicyRule[]): void => {
    const held = rbac.rulesFor(user, namespace);
    const missing = uncoveredRules(held.rules, granted);
    if (missing.length === 0) return;
    const groups = `[${user.groups.map((g) => JSON.stringify(g)).join(' ')}]`;
    let msg = `user ${JSON.stringify(user.name)} (groups=${groups}) is attempting to grant RBAC permissions not currently held:\n${[...new Set(missing.map(formatRule))].sort().join('\n')}`;
    if (held.errors.length) msg += `; resolution errors: [${held.errors.join(' ')}]`;
    throw errors.forbidden(def, name, msg);
  };

  const checkRbac = (def: ResourceDefinition, obj: KubeObject, old: KubeObject | undefined, user: UserInfo): void => {
    const ns = obj.metadata?.namespace ?? '';
    const name = obj.metadata?.name ?? '';
    if (def.resource === 'roles' || def.resource === 'clusterroles') {
      if (allowedTo(user, 'escalate', def.resource, ns, name)) return;
      if (def.resource === 'clusterroles' && obj.aggregationRule && !(old && JSON.stringify(old.aggregationRule) === JSON.stringify(obj.aggregationRule))) {
        throw errors.forbidden(def, name, 'must have cluster-admin privileges to use an aggregationRule');
      }
      // An aggregated role's rules are the controller's to write; only the selector is checked.
      if (def.resource === 'clusterroles' && obj.aggregationRule) return;
      confirmNoEscalation(def, name, user, ns, Array.isArray(obj.rules) ? obj.rules : []);
      return;
    }
    // A binding whose roleRef is unchanged (subjects edited by someone who could create it) is still checked, as kube.
    const ref = obj.roleRef as RoleRef | undefined;
    if (!ref?.name) return; // validation reports it
    if (allowedTo(user, 'bind', ref.kind === 'ClusterRole' ? 'clusterroles' : 'roles', ref.kind === 'ClusterRole' && def.resource === 'clusterrolebindings' ? '' : ns, ref.name)) return;
    const rules = rbac.referencedRules(ns, ref);
    if (!rules) throw errors.forbidden(def, name, `${ref.kind === 'ClusterRole' ? 'clusterrole' : 'role'}.${rbacGroup} "${ref.name}" not found`);
    confirmNoEscalation(def, name, user, def.resource === 'clusterrolebindings' ? '' : ns, rules);
  };

  const checkNode = (def: ResourceDefinition, obj: KubeObject, old: KubeObject | undefined, node: string, subresource: string | undefined): void => {
    const name = obj.metadata?.name ?? '';
    if (def.resource === 'nodes') {
      if (name !== node) throw errors.forbidden(def, name, `node "${node}" is not allowed to modify node "${name}"`);
      return;
    }
    if (def.resource !== 'pods') return;
    if (!old) {
      if (!obj.metadata?.annotations?.[mirrorAnnotation]) throw errors.forbidden(def, name, `pod does not have "${mirrorAnnotation}" annotation, node "${node}" can only create mirror pods`);
      if (obj.spec?.nodeName !== node) throw errors.forbidden(def, name, `node "${node}" can only create pods with spec.nodeName set to itself`);
      return;
    }
    if (old.spec?.nodeName !== node) {
      throw errors.forbidden(def, name, subresource === 'status' ? `node "${node}" can only update pod status for pods with spec.nodeName set to itself` : `node "${node}" can only update pods with spec.nodeName set to itself`);
    }
  };

  return {
    admit(def, obj, old, ctx) {
      if (!ctx.user || ctx.user.groups.includes(mastersGroup)) return;
      const user = asUser(ctx.user);
      if (def.group === rbacGroup && !ctx.subresource) checkRbac(def, obj, old, user);
      const node = nodeNameOf(user);
      if (node !== undefined && def.group === '') checkNode(def, obj, old, node, ctx.subresource);
    },
    admitDelete(def, obj, ctx) {
      if (!ctx.user) return;
      const node = nodeNameOf(asUser(ctx.user));
      if (node === undefined || def.group !== '') return;
      const name = obj.metadata?.name ?? '';
      if (def.resource === 'pods' && obj.spec?.nodeName !== node) throw errors.forbidden(def, name, `node "${node}" can only delete pods with spec.nodeName set to itself`);
      if (def.resource === 'nodes' && name !== node) throw errors.forbidden(def, name, `node "${node}" is not allowed to delete node "${name}"`);
    },
  };
}
