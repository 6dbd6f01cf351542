/**
 * The RBAC authorizer: Roles, ClusterRoles and their bindings, kept in memory from the store's
 * events and indexed by subject, so that a request costs a few map lookups and the rules of
 * the bindings naming its user or one of its groups. Events are applied before the write that
 * caused them is acknowledged (see `StoreEventSource`), so a binding a client has seen created
 * is already in force on this server.
 */
import type { UserInfo } from '../auth/tokens.ts';
import type { StoreEvent, StoreEventSource } from '../controllers/event-source.ts';
import type { ResourceRegistry } from '../registry/registry.ts';
import type { KubeObject } from '../registry/resource.ts';
import type { ObjectStore } from '../registry/store.ts';
import type { Attributes } from './attributes.ts';
import { ruleAllows, type PolicyRule } from './rules.ts';

export const rbacGroup = 'rbac.authorization.k8s.io';

export interface Subject {
  readonly kind: string;
  readonly name: string;
  readonly namespace?: string;
  readonly apiGroup?: string;
}

export interface RoleRef {
  readonly kind: 'Role' | 'ClusterRole';
  readonly name: string;
}

interface Binding {
  readonly kind: 'RoleBinding' | 'ClusterRoleBinding';
  readonly name: string;
  readonly namespace: string;
  readonly roleRef: RoleRef;
  readonly subjects: readonly Subject[];
}

export interface Decision {
  readonly allowed: boolean;
  /** Why: the binding that allowed, or the errors met while looking (roles not found). */
  readonly reason: string;
}

export function serviceAccountUser(namespace: string, name: string): string {
  return `system:serviceaccount:${namespace}:${name}`;
}

/** The index keys a subject is found under: users (service accounts are users) and groups. */
function subjectKey(s: Subject, bindingNamespace: string): string | undefined {
  switch (s.kind) {
    case 'User':
      return `u:${s.name}`;
    case 'Group':
      return `g:${s.name}`;
    case 'ServiceAccount': {
      // A ServiceAccount named without a namespace in a ClusterRoleBinding is no one (kube's appliesToUser).
      const ns = s.namespace || bindingNamespace;
      return ns ? `u:${serviceAccountUser(ns, s.name)}` : undefined;
    }
    default:
      return undefined;
  }
}

// A client's every request carries the same UserInfo object (the authenticators cache it), so
// its index keys are made once per identity rather than once per request.
const keysByUser = new WeakMap<UserInfo, readonly string[]>();

function userKeys(user: UserInfo): readonly string[] {
  let keys = keysByUser.get(user);
  if (!keys) {
    keys = [`u:${user.name}`, ...user.groups.map((g) => `g:${g}`)];
    keysByUser.set(user, keys);
  }
  return keys;
}

/**
 * The subject an allow is credited to, as kube's describeSubject: the first of the binding's
 * subjects that applies to the user (kube's appliesTo), a ServiceAccount as `name/namespace`.
 */
function describeSubject(b: Binding, user: UserInfo): string {
  const keys = new Set(userKeys(user));
  for (const s of b.subjects) {
    const k = subjectKey(s, b.namespace);
    if (!k || !keys.has(k)) continue;
    return s.kind === 'ServiceAccount' ? `ServiceAccount ${JSON.stringify(`${s.name}/${s.namespace || b.namespace}`)}` : `${s.kind} ${JSON.stringify(s.name)}`;
  }
  return '';
}

/**
 * A role a binding names that does not exist, worded as kube words it: the RBAC authorizer reads
 * roles from listers (`clusterrole.rbac.authorization.k8s.io "x" not found`), escalation checks
 * from the registry (`clusterroles.rbac.authorization.k8s.io "x" not found`).
 */
export function missingRoleMessage(ref: RoleRef, source: 'lister' | 'registry'): string {
  const resource = (ref.kind === 'ClusterRole' ? 'clusterrole' : 'role') + (source === 'registry' ? 's' : '');
  return `${resource}.${rbacGroup} ${JSON.stringify(ref.name)} not found`;
}

/** Go's utilerrors aggregate: one message alone, several deduplicated in brackets. */
export function aggregateMessage(messages: readonly string[]): string {
  const unique = [...new Set(messages)];
  return unique.length === 1 ? unique[0]! : `[${unique.join(', ')}]`;
}

function rulesOf(obj: KubeObject): PolicyRule[] {
  return Array.isArray(obj.rules) ? (obj.rules as PolicyRule[]) : [];
}

function bindingOf(obj: KubeObject, kind: Binding['kind']): Binding {
  return {
    kind,
    name: obj.metadata.name,
    namespace: obj.metadata.namespace ?? '',
    roleRef: { kind: obj.roleRef?.kind, name: obj.roleRef?.name },
    subjects: Array.isArray(obj.subjects) ? obj.subjects : [],
  };
}

const none: Iterable<Binding> = [];

/**
 * Bindings by scope (a RoleBinding's namespace; '' for ClusterRoleBindings), then by the index
 * key of each subject they name. Lookups return the stored bindings themselves, so a request
 * builds no key strings and no iterator of its own.
 */
class SubjectIndex {
  private readonly bindings = new Map<string, Binding>();
  private readonly byScope = new Map<string, Map<string, Map<string, Binding>>>();

  constructor(private readonly scoped: boolean) {}

  private keysOf(b: Binding): string[] {
    const out: string[] = [];
    for (const s of b.subjects) {
      const k = subjectKey(s, b.namespace);
      if (k) out.push(k);
    }
    return out;
  }

  put(id: string, b: Binding | undefined): void {
    const old = this.bindings.get(id);
    if (old) {
      const scope = this.scopeOf(old);
      const subjects = this.byScope.get(scope);
      for (const k of this.keysOf(old)) {
        const ids = subjects?.get(k);
        ids?.delete(id);
        if (ids?.size === 0) subjects!.delete(k);
      }
      if (subjects?.size === 0) this.byScope.delete(scope);
      this.bindings.delete(id);
    }
    if (!b) return;
    this.bindings.set(id, b);
    const scope = this.scopeOf(b);
    let subjects = this.byScope.get(scope);
    if (!subjects) this.byScope.set(scope, (subjects = new Map()));
    for (const k of this.keysOf(b)) {
      let ids = subjects.get(k);
      if (!ids) subjects.set(k, (ids = new Map()));
      ids.set(id, b);
    }
  }

  private scopeOf(b: Binding): string {
    return this.scoped ? b.namespace : '';
  }

  /** The bindings in `scope` ('' for cluster bindings) that name the subject `key`. */
  matching(scope: string, key: string): Iterable<Binding> {
    return this.byScope.get(scope)?.get(key)?.values() ?? none;
  }

  all(): Iterable<Binding> {
    return this.bindings.values();
  }
}

/** An allow whose reason is worded only when read: the router never reads it, the review APIs do. */
function allowedBy(reason: () => string): Decision {
  return {
    allowed: true,
    get reason() {
      return reason();
    },
  };
}

const key = (obj: KubeObject): string => (obj.metadata.namespace ? `${obj.metadata.namespace}/${obj.metadata.name}` : obj.metadata.name);

export class RbacIndex {
  private readonly roles = new Map<string, PolicyRule[]>();
  private readonly clusterRoles = new Map<string, PolicyRule[]>();
  private readonly clusterBindings = new SubjectIndex(false);
  private readonly namespacedBindings = new SubjectIndex(true);

  async start(events: StoreEventSource, store: ObjectStore, registry: ResourceRegistry): Promise<void> {
    const apply = (kind: string) => (ev: Pick<StoreEvent, 'type' | 'object'>) => this.apply(kind, ev.type === 'delete' ? undefined : ev.object, ev.object);
    const kinds: [string, string][] = [['roles', 'Role'], ['clusterroles', 'ClusterRole'], ['rolebindings', 'RoleBinding'], ['clusterrolebindings', 'ClusterRoleBinding']];
    for (const [resource, kind] of kinds) events.subscribe(`${rbacGroup}/${resource}`, apply(kind));
    for (const [resource, kind] of kinds) {
      const def = registry.lookup(rbacGroup, 'v1', resource)!;
      for (const obj of (await store.list(def, undefined)).items) this.apply(kind, obj, obj);
    }
  }

  /** Applies one object (undefined: `was` is gone). Public for tests. */
  apply(kind: string, obj: KubeObject | undefined, was: KubeObject): void {
    const id = key(was);
    switch (kind) {
      case 'Role':
        if (obj) this.roles.set(id, rulesOf(obj));
        else this.roles.delete(id);
        return;
      case 'ClusterRole':
        if (obj) this.clusterRoles.set(id, rulesOf(obj));
        else this.clusterRoles.delete(id);
        return;
      case 'RoleBinding':
        this.namespacedBindings.put(id, obj ? bindingOf(obj, 'RoleBinding') : undefined);
        return;
      case 'ClusterRoleBinding':
        this.clusterBindings.put(id, obj ? bindingOf(obj, 'ClusterRoleBinding') : undefined);
        return;
    }
  }

  private roleRules(b: Binding, missing: RoleRef[]): readonly PolicyRule[] {
    const rules = this.referencedRules(b.namespace, b.roleRef);
    if (!rules) missing.push(b.roleRef);
    return rules ?? [];
  }

  /** Kube's RBACAuthorizer.Authorize: allowed by any binding of the user or a group of theirs. */
  authorize(a: Attributes): Decision {
    const errs: RoleRef[] = [];
    const keys = userKeys(a.user);
    for (const k of keys) {
      for (const b of this.clusterBindings.matching('', k)) {
        for (const r of this.roleRules(b, errs)) {
          if (ruleAllows(r, a)) return allowedBy(() => `RBAC: allowed by ClusterRoleBinding "${b.name}" of ${b.roleRef.kind} "${b.roleRef.name}" to ${describeSubject(b, a.user)}`);
        }
      }
    }
    const ns = a.kind === 'resource' ? a.namespace : '';
    if (ns) {
      for (const k of keys) {
        for (const b of this.namespacedBindings.matching(ns, k)) {
          for (const r of this.roleRules(b, errs)) {
            if (ruleAllows(r, a)) return allowedBy(() => `RBAC: allowed by RoleBinding "${b.name}/${ns}" of ${b.roleRef.kind} "${b.roleRef.name}" to ${describeSubject(b, a.user)}`);
          }
        }
      }
    }
    if (errs.length === 0) return { allowed: false, reason: '' };
    // A binding naming the user twice, or two bindings of one missing role, report it once, as kube's aggregate does.
    return { allowed: false, reason: `RBAC: ${aggregateMessage(errs.map((r) => missingRoleMessage(r, 'lister')))}` };
  }

  /**
   * Every rule the user holds in `namespace` ('' for the cluster scope only): what escalation
   * checks compare a grant with, and what SelfSubjectRulesReview lists. `missing` lists roles
   * that bindings name but that do not exist.
   */
  rulesFor(user: UserInfo, namespace: string): { rules: PolicyRule[]; missing: RoleRef[] } {
    const rules: PolicyRule[] = [];
    const errs: RoleRef[] = [];
    const keys = userKeys(user);
    const seen = new Set<Binding>();
    for (const k of keys) for (const b of this.clusterBindings.matching('', k)) if (!seen.has(b) && seen.add(b)) rules.push(...this.roleRules(b, errs));
    if (namespace) for (const k of keys) for (const b of this.namespacedBindings.matching(namespace, k)) if (!seen.has(b) && seen.add(b)) rules.push(...this.roleRules(b, errs));
    return { rules, missing: errs };
  }

  /** The rules of a role a binding refers to (undefined: no such role). */
  referencedRules(namespace: string, ref: RoleRef): readonly PolicyRule[] | undefined {
    return ref.kind === 'ClusterRole' ? this.clusterRoles.get(ref.name) : this.roles.get(`${namespace}/${ref.name}`);
  }
}
