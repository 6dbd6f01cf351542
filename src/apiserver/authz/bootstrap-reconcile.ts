/**
 * Writes the bootstrap policy (`bootstrap-policy.ts`) at start, as kube-apiserver's
 * `rbac/bootstrap-roles` hook: missing objects are created; an existing default still marked
 * `rbac.authorization.kubernetes.io/autoupdate: "true"` regains rules and subjects it lost,
 * keeping whatever was added to it. Several replicas may do this at once: a conflict or an
 * AlreadyExists means another got there first, and the next start looks again.
 */
import { isAlreadyExists, isConflict } from '../errors.ts';
import type { ResourceRegistry } from '../registry/registry.ts';
import type { KubeObject, ResourceDefinition } from '../registry/resource.ts';
import type { ObjectStore } from '../registry/store.ts';
import { defaultClusterRoleBindings, defaultClusterRoles, defaultRoleBindings, defaultRoles, type DefaultBinding } from './bootstrap-policy.ts';
import { rbacGroup } from './rbac-index.ts';
import { uncoveredRules, type PolicyRule } from './rules.ts';

const autoupdate = 'rbac.authorization.kubernetes.io/autoupdate';
const manager = { manager: 'kube-apiserver' };

function meta(name: string, namespace?: string, labels: Record<string, string> = {}): KubeObject {
  return { name, ...(namespace ? { namespace } : {}), labels: { 'kubernetes.io/bootstrapping': 'rbac-defaults', ...labels }, annotations: { [autoupdate]: 'true' } };
}

function bindingObject(kind: string, b: DefaultBinding): KubeObject {
  return {
    apiVersion: `${rbacGroup}/v1`,
    kind,
    metadata: meta(b.name, b.namespace),
    roleRef: { apiGroup: rbacGroup, kind: b.roleKind ?? 'ClusterRole', name: b.role },
    subjects: b.subjects.map((s) => (s.kind === 'ServiceAccount' ? { kind: s.kind, name: s.name, namespace: s.namespace } : { kind: s.kind, apiGroup: rbacGroup, name: s.name })),
  };
}

async function ensure(store: ObjectStore, def: ResourceDefinition, desired: KubeObject, reconcile: (live: KubeObject) => KubeObject | undefined): Promise<void> {
  const ns = desired.metadata.namespace as string | undefined;
  try {
    const live = await store.get(def, ns, desired.metadata.name).catch(() => undefined);
    if (!live) {
      await store.create(def, ns, desired, manager);
      return;
    }
    if (live.metadata?.annotations?.[autoupdate] !== 'true') return;
    const next = reconcile(structuredClone(live));
    if (next) await store.update(def, ns, desired.metadata.name, next, manager);
  } catch (err) {
    if (!isAlreadyExists(err) && !isConflict(err)) throw err;
  }
}

function withMissingRules(live: KubeObject, expected: readonly PolicyRule[]): KubeObject | undefined {
  const rules: PolicyRule[] = Array.isArray(live.rules) ? live.rules : [];
  const missing = expected.filter((e) => uncoveredRules(rules, [e]).length > 0);
  if (missing.length === 0) return undefined;
  live.rules = [...rules, ...missing];
  return live;
}

function withMissingSubjects(live: KubeObject, expected: KubeObject): KubeObject | undefined {
  const subjects: KubeObject[] = Array.isArray(live.subjects) ? live.subjects : [];
  const same = (a: KubeObject, b: KubeObject) => a.kind === b.kind && a.name === b.name && (a.namespace ?? '') === (b.namespace ?? '');
  const missing = (expected.subjects as KubeObject[]).filter((e) => !subjects.some((s) => same(s, e)));
  if (missing.length === 0) return undefined;
  live.subjects = [...subjects, ...missing];
  return live;
}

export async function reconcileBootstrapPolicy(store: ObjectStore, registry: ResourceRegistry): Promise<void> {
  const defOf = (resource: string) => registry.lookup(rbacGroup, 'v1', resource)!;
  for (const role of defaultClusterRoles) {
    const labels = role.aggregateTo ? { [`rbac.authorization.k8s.io/aggregate-to-${role.aggregateTo}`]: 'true' } : {};
    const desired: KubeObject = { apiVersion: `${rbacGroup}/v1`, kind: 'ClusterRole', metadata: meta(role.name, undefined, labels), rules: [...role.rules] };
    if (role.aggregationRule) desired.aggregationRule = role.aggregationRule;
    // An aggregated role's rules belong to the aggregation controller; only its selector is kept.
    await ensure(store, defOf('clusterroles'), desired, (live) => (role.aggregationRule ? (live.aggregationRule ? undefined : { ...live, aggregationRule: role.aggregationRule }) : withMissingRules(live, role.rules)));
  }
  for (const role of defaultRoles) {
    const desired: KubeObject = { apiVersion: `${rbacGroup}/v1`, kind: 'Role', metadata: meta(role.name, role.namespace), rules: [...role.rules] };
    await ensure(store, defOf('roles'), desired, (live) => withMissingRules(live, role.rules));
  }
  for (const b of defaultClusterRoleBindings) {
    const desired = bindingObject('ClusterRoleBinding', b);
    await ensure(store, defOf('clusterrolebindings'), desired, (live) => withMissingSubjects(live, desired));
  }
  for (const b of defaultRoleBindings) {
    const desired = bindingObject('RoleBinding', b);
    await ensure(store, defOf('rolebindings'), desired, (live) => withMissingSubjects(live, desired));
  }
}
