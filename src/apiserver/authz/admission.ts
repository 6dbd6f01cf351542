/**
 * The write checks that belong to authorization, run by the store after validation (so they
 * see the object as it would be stored, patches included):
 * - RBAC escalation prevention, as kube's rbac registry: a Role or ClusterRole may grant only
 *   what its author holds, unless they may `escalate` it; a binding may bind only a role whose
 *   rules its author holds, unless they may `bind` it.
 * - NodeRestriction: a kubelet writes only its own Node (never its taints), its own Lease, and
 *   the pods bound to it (mirror pods, and their status).
 * - The certificate plugins (approve and sign on the `signers` resource, no system:masters
 *   client certificates): `certificates-admission.ts`.
 */
import { isDeepStrictEqual } from 'node:util';
import type { UserInfo } from '../auth/tokens.ts';
import { errors } from '../errors.ts';
import type { KubeObject, ResourceDefinition } from '../registry/resource.ts';
import { mastersGroup, type Authorizer } from './authorizer.ts';
import { admitCertificateSigningRequest, isCsrResource } from './certificates-admission.ts';
import { nodeNameOf } from './node-authorizer.ts';
import { aggregateMessage, missingRoleMessage, rbacGroup, type RbacIndex, type RoleRef } from './rbac-index.ts';
import { compactRules, formatRule, uncoveredRules, type PolicyRule } from './rules.ts';

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
const nodeLeaseNamespace = 'kube-node-lease';

/** What an aggregationRule may gather: everything, so only those holding everything may set one. */
const fullAuthority: readonly PolicyRule[] = [
  { verbs: ['*'], apiGroups: ['*'], resources: ['*'] },
  { verbs: ['*'], nonResourceURLs: ['*'] },
];

/** JSON as compared: absent, undefined and (as Go's Semantic.DeepEqual) empty are one. */
function sameJson(a: unknown, b: unknown): boolean {
  const norm = (v: unknown) => (v === undefined || (Array.isArray(v) && v.length === 0) ? undefined : JSON.parse(JSON.stringify(v)));
  return isDeepStrictEqual(norm(a), norm(b));
}

/**
 * Kube's IsOnlyMutatingGCFields: an update that changes only owner references, finalizers or
 * managed fields is the garbage collector's, and needs no escalation check.
 */
function onlyGcFieldsChanged(obj: KubeObject, old: KubeObject | undefined): boolean {
  if (!old) return false;
  const strip = (o: KubeObject): KubeObject => {
    const { ownerReferences: _o, finalizers: _f, managedFields: _m, selfLink: _s, resourceVersion: _r, ...meta } = o.metadata ?? {};
    return { ...o, metadata: meta };
  };
  return sameJson(strip(obj), strip(old));
}

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
    let msg = `user ${JSON.stringify(user.name)} (groups=${groups}) is attempting to grant RBAC permissions not currently held:\n${[...new Set(compactRules(missing).map(formatRule))].sort().join('\n')}`;
    // Kube resolves the author's roles through the registry, hence its plural resource names here.
    if (held.missing.length) msg += `; resolution errors: [${aggregateMessage(held.missing.map((r) => missingRoleMessage(r, 'registry')))}]`;
    throw errors.forbidden(def, name, msg);
  };

  const checkRbac = (def: ResourceDefinition, obj: KubeObject, old: KubeObject | undefined, user: UserInfo): void => {
    const ns = obj.metadata?.namespace ?? '';
    const name = obj.metadata?.name ?? '';
    if (def.resource === 'roles' || def.resource === 'clusterroles') {
      // Kube asks with the request's name, which a create's URL does not have: an `escalate`
      // limited by resourceNames lets its holder update those roles, not create them.
      if (allowedTo(user, 'escalate', def.resource, ns, old ? name : '')) return;
      if (onlyGcFieldsChanged(obj, old)) return;
      confirmNoEscalation(def, name, user, ns, Array.isArray(obj.rules) ? obj.rules : []);
      // An aggregationRule can gather anything, and removing one can keep what it gathered: both need everything.
      if (def.resource === 'clusterroles' && (obj.aggregationRule || old?.aggregationRule) && uncoveredRules(rbac.rulesFor(user, '').rules, fullAuthority).length > 0) {
        throw errors.forbidden(def, name, 'must have cluster-admin privileges to use the aggregationRule');
      }
      return;
    }
    // A binding whose roleRef is unchanged (subjects edited by someone who could create it) is still checked, as kube.
    const ref = obj.roleRef as RoleRef | undefined;
    if (!ref?.name) return; // validation reports it
    if (onlyGcFieldsChanged(obj, old)) return;
    const roleResource = ref.kind === 'ClusterRole' ? 'clusterroles' : 'roles';
    if (allowedTo(user, 'bind', roleResource, ref.kind === 'ClusterRole' && def.resource === 'clusterrolebindings' ? '' : ns, ref.name)) return;
    const rules = rbac.referencedRules(ns, ref);
    // Kube's binding storage answers with the registry's NotFound itself, not a Forbidden.
    if (!rules) throw errors.notFound({ resource: roleResource, group: rbacGroup }, ref.name);
    confirmNoEscalation(def, name, user, def.resource === 'clusterrolebindings' ? '' : ns, rules);
  };

  const checkLease = (def: ResourceDefinition, obj: KubeObject, node: string): void => {
    const name = obj.metadata?.name ?? '';
    if ((obj.metadata?.namespace ?? '') !== nodeLeaseNamespace) throw errors.forbidden(def, name, `can only access leases in the ${JSON.stringify(nodeLeaseNamespace)} system namespace`);
    // The Node authorizer cannot know a create's name; this is where a node is kept to its own Lease.
    if (name !== node) throw errors.forbidden(def, name, 'can only access node lease with the same name as the requesting node');
  };

  const checkNode = (def: ResourceDefinition, obj: KubeObject, old: KubeObject | undefined, node: string, subresource: string | undefined): void => {
    const name = obj.metadata?.name ?? '';
    if (def.resource === 'nodes') {
      if (name !== node) throw errors.forbidden(def, name, `node "${node}" is not allowed to modify node "${name}"`);
      // Taints are the cluster's to set: a node that could clear its own would steer workloads to itself.
      if (old && !sameJson(obj.spec?.taints, old.spec?.taints)) throw errors.forbidden(def, name, `node "${node}" is not allowed to modify taints`);
      return;
    }
    if (def.resource !== 'pods') return;
    if (subresource && subresource !== 'status') throw errors.forbidden(def, name, `unexpected pod subresource "${subresource}", only 'status' and 'eviction' are allowed`);
    if (old && !subresource) throw errors.forbidden(def, name, `unexpected operation "UPDATE", node "${node}" can only create and delete mirror pods`);
    if (!old) {
      if (!obj.metadata?.annotations?.[mirrorAnnotation]) throw errors.forbidden(def, name, `pod does not have "${mirrorAnnotation}" annotation, node "${node}" can only create mirror pods`);
      if (obj.spec?.nodeName !== node) throw errors.forbidden(def, name, `node "${node}" can only create pods with spec.nodeName set to itself`);
      return;
    }
    if (old.spec?.nodeName !== node) throw errors.forbidden(def, name, `node "${node}" can only update pod status for pods with spec.nodeName set to itself`);
    if (!sameJson(obj.metadata?.labels ?? {}, old.metadata?.labels ?? {})) throw errors.forbidden(def, name, `node "${node}" cannot update labels through pod status`);
  };

  return {
    admit(def, obj, old, ctx) {
      // Before the masters' short cut: nobody, cluster-admins included, may ask for a system:masters certificate.
      if (ctx.user && isCsrResource(def)) admitCertificateSigningRequest(authorizer, def, obj, old, asUser(ctx.user), ctx.subresource);
      if (!ctx.user || ctx.user.groups.includes(mastersGroup)) return;
      const user = asUser(ctx.user);
      if (def.group === rbacGroup && !ctx.subresource) checkRbac(def, obj, old, user);
      const node = nodeNameOf(user);
      if (node === undefined) return;
      if (def.group === '') checkNode(def, obj, old, node, ctx.subresource);
      else if (def.group === 'coordination.k8s.io' && def.resource === 'leases') checkLease(def, obj, node);
    },
    admitDelete(def, obj, ctx) {
      if (!ctx.user) return;
      const node = nodeNameOf(asUser(ctx.user));
      if (node === undefined) return;
      if (def.group === 'coordination.k8s.io' && def.resource === 'leases') return checkLease(def, obj, node);
      if (def.group !== '') return;
      const name = obj.metadata?.name ?? '';
      if (def.resource === 'pods' && obj.spec?.nodeName !== node) throw errors.forbidden(def, name, `node "${node}" can only delete pods with spec.nodeName set to itself`);
      if (def.resource === 'nodes' && name !== node) throw errors.forbidden(def, name, `node "${node}" is not allowed to modify node "${name}"`);
    },
  };
}
