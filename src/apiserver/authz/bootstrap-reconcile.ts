/**
 * Writes the bootstrap policy (`bootstrap-policy.ts`) at start, as kube-apiserver's
 * `rbac/bootstrap-roles` hook (pkg/registry/rbac/reconciliation): missing objects are created;
 * an existing default not marked `rbac.authorization.kubernetes.io/autoupdate: "false"` regains
 * the labels, annotations, rules (as single-verb rules), aggregation selectors and subjects it
 * lost, keeping whatever was added to it; a binding whose roleRef differs is recreated. Several
 * replicas may do this at once (issue 17): a conflict or an AlreadyExists means another wrote
 * first, so the object is read and reconciled again, a few times, and then left to the next start.
 */
import { isDeepStrictEqual } from 'node:util';
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

/** What to do with a live default: nothing, an update to this object, or (a binding whose roleRef changed) delete and create. */
type Reconciled = undefined | { update: KubeObject } | { recreate: true };

/** Rounds of read-and-reconcile when another replica's write gets in between, before leaving it to the next start. */
const attempts = 5;

async function ensure(store: ObjectStore, def: ResourceDefinition, desired: KubeObject, reconcile: (live: KubeObject) => Reconciled): Promise<void> {
  const ns = desired.metadata.namespace as string | undefined;
  for (let attempt = 1; ; attempt++) {
    try {
      const live = await store.get(def, ns, desired.metadata.name).catch(() => undefined);
      if (!live) {
        await store.create(def, ns, desired, manager);
        return;
      }
      // Only an explicit "false" protects a default (kube's reconcile-protected): a removed annotation is put back.
      if (live.metadata?.annotations?.[autoupdate] === 'false') return;
      const next = reconcile(structuredClone(live));
      if (!next) return;
      if ('update' in next) {
        await store.update(def, ns, desired.metadata.name, next.update, manager);
        return;
      }
      await store.delete(def, ns, desired.metadata.name, { preconditions: { uid: live.metadata.uid } }, manager);
      await store.create(def, ns, desired, manager);
      return;
    } catch (err) {
      if (!isAlreadyExists(err) && !isConflict(err)) throw err;
      // Another replica (or a user) wrote it meanwhile: look again at what is there now.
      if (attempt >= attempts) return;
    }
  }
}

/** The expected labels and annotations put back where missing; values found on the live object win (kube's merge). */
function withMetadata(live: KubeObject, expected: KubeObject): boolean {
  let changed = false;
  for (const field of ['labels', 'annotations'] as const) {
    const want: Record<string, string> = expected.metadata[field] ?? {};
    const have: Record<string, string> = { ...(live.metadata[field] ?? {}) };
    const absent = Object.keys(want).filter((k) => !(k in have));
    if (absent.length === 0) continue;
    for (const k of absent) have[k] = want[k]!;
    live.metadata[field] = have;
    changed = true;
  }
  return changed;
}

function reconcileRole(live: KubeObject, expected: KubeObject): Reconciled {
  let changed = withMetadata(live, expected);
  const rules: PolicyRule[] = Array.isArray(live.rules) ? live.rules : [];
  // Kube appends the missing atoms themselves (one verb, one resource), not the rule they came from.
  const missing = uncoveredRules(rules, expected.rules ?? []);
  if (missing.length) {
    live.rules = [...rules, ...missing];
    changed = true;
  }
  const wanted = expected.aggregationRule?.clusterRoleSelectors as KubeObject[] | undefined;
  if (!wanted && live.aggregationRule) {
    // Not meant to be aggregated: the aggregation goes, its rules stay.
    delete live.aggregationRule;
    changed = true;
  } else if (wanted) {
    const have: KubeObject[] = live.aggregationRule?.clusterRoleSelectors ?? [];
    const absent = wanted.filter((w) => !have.some((h) => isDeepStrictEqual(h, w)));
    if (absent.length) {
      live.aggregationRule = { ...(live.aggregationRule ?? {}), clusterRoleSelectors: [...have, ...absent] };
      changed = true;
    }
  }
  return changed ? { update: live } : undefined;
}

function reconcileBinding(live: KubeObject, expected: KubeObject): Reconciled {
  const ref = (r: KubeObject | undefined) => [r?.apiGroup ?? '', r?.kind ?? '', r?.name ?? ''].join('/');
  // A roleRef cannot be changed in place: kube deletes the binding and creates it as expected.
  if (ref(live.roleRef) !== ref(expected.roleRef)) return { recreate: true };
  let changed = withMetadata(live, expected);
  const subjects: KubeObject[] = Array.isArray(live.subjects) ? live.subjects : [];
  const same = (a: KubeObject, b: KubeObject) => a.kind === b.kind && (a.apiGroup ?? '') === (b.apiGroup ?? '') && a.name === b.name && (a.namespace ?? '') === (b.namespace ?? '');
  const missing = (expected.subjects as KubeObject[]).filter((e) => !subjects.some((s) => same(s, e)));
  if (missing.length) {
    live.subjects = [...subjects, ...missing];
    changed = true;
  }
  return changed ? { update: live } : undefined;
}

export async function reconcileBootstrapPolicy(store: ObjectStore, registry: ResourceRegistry): Promise<void> {
  const defOf = (resource: string) => registry.lookup(rbacGroup, 'v1', resource)!;
  for (const role of defaultClusterRoles) {
    const labels = role.aggregateTo ? { [`rbac.authorization.k8s.io/aggregate-to-${role.aggregateTo}`]: 'true' } : {};
    const desired: KubeObject = { apiVersion: `${rbacGroup}/v1`, kind: 'ClusterRole', metadata: meta(role.name, undefined, labels), rules: [...role.rules] };
    if (role.aggregationRule) desired.aggregationRule = role.aggregationRule;
    // An aggregated default lists no rules (the aggregation controller writes them), so only its selectors are reconciled.
    await ensure(store, defOf('clusterroles'), desired, (live) => reconcileRole(live, desired));
  }
  for (const role of defaultRoles) {
    const desired: KubeObject = { apiVersion: `${rbacGroup}/v1`, kind: 'Role', metadata: meta(role.name, role.namespace), rules: [...role.rules] };
    await ensure(store, defOf('roles'), desired, (live) => reconcileRole(live, desired));
  }
  for (const b of defaultClusterRoleBindings) {
    const desired = bindingObject('ClusterRoleBinding', b);
    await ensure(store, defOf('clusterrolebindings'), desired, (live) => reconcileBinding(live, desired));
  }
  for (const b of defaultRoleBindings) {
    const desired = bindingObject('RoleBinding', b);
    await ensure(store, defOf('rolebindings'), desired, (live) => reconcileBinding(live, desired));
  }
}
