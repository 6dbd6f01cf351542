/**
 * The bootstrap policy reconciled against a real store (SQLite in a temporary directory), as
 * kube-apiserver's `rbac/bootstrap-roles` hook reconciles it (pkg/registry/rbac/reconciliation):
 * created when missing, left alone when unchanged or marked autoupdate "false", and otherwise
 * given back what it lost (rules as single-verb atoms, subjects, labels, annotations,
 * aggregation selectors) with additions kept; a binding whose roleRef changed is recreated.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { openSqliteBackend } from '../../storage/sqlite.ts';
import type { Backend } from '../../storage/types.ts';
import { attachBuiltinSchemas } from '../bootstrap.ts';
import { ensureSystemNamespaces } from '../controllers/namespace-system.ts';
import { builtinResources } from '../registry/builtin/catalogue.ts';
import { ResourceRegistry } from '../registry/registry.ts';
import type { KubeObject } from '../registry/resource.ts';
import { ObjectStore } from '../registry/store.ts';
import { reconcileBootstrapPolicy } from './bootstrap-reconcile.ts';

const rbacGroup = 'rbac.authorization.k8s.io';
const autoupdate = 'rbac.authorization.kubernetes.io/autoupdate';
const someone = { manager: 'kubectl' };

describe('reconcileBootstrapPolicy', () => {
  const dir = mkdtempSync(join(tmpdir(), 'shipyard-bootstrap-policy-'));
  let backend: Backend;
  let store: ObjectStore;
  let registry: ResourceRegistry;
  const defOf = (resource: string) => registry.lookup(rbacGroup, 'v1', resource)!;
  const get = (resource: string, name: string, namespace?: string) => store.get(defOf(resource), namespace, name);
  const update = (resource: string, obj: KubeObject) => store.update(defOf(resource), obj.metadata.namespace, obj.metadata.name, obj, someone);
  const reconcile = () => reconcileBootstrapPolicy(store, registry);

  before(async () => {
    backend = await openSqliteBackend({ path: join(dir, 'state.db') });
    registry = new ResourceRegistry();
    registry.register(attachBuiltinSchemas(builtinResources()));
    store = new ObjectStore(backend, registry);
    await ensureSystemNamespaces(store, registry);
    await reconcile();
  });
  after(async () => {
    await backend.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('creates kube’s defaults, labelled and marked for autoupdate', async () => {
    const admin = await get('clusterroles', 'cluster-admin');
    assert.deepEqual(admin.rules, [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }, { verbs: ['*'], nonResourceURLs: ['*'] }]);
    assert.equal(admin.metadata.labels['kubernetes.io/bootstrapping'], 'rbac-defaults');
    assert.equal(admin.metadata.annotations[autoupdate], 'true');
    const binding = await get('clusterrolebindings', 'cluster-admin');
    assert.deepEqual(binding.roleRef, { apiGroup: rbacGroup, kind: 'ClusterRole', name: 'cluster-admin' });
    assert.deepEqual(binding.subjects, [{ kind: 'Group', apiGroup: rbacGroup, name: 'system:masters' }]);
    assert.equal((await get('clusterroles', 'view')).metadata.labels['rbac.authorization.k8s.io/aggregate-to-edit'], 'true');
    assert.deepEqual((await get('roles', 'system::leader-locking-kube-scheduler', 'kube-system')).rules[1], { verbs: ['get', 'update'], apiGroups: [''], resources: ['configmaps'], resourceNames: ['kube-scheduler'] });
    assert.equal((await get('rolebindings', 'system::leader-locking-kube-scheduler', 'kube-system')).roleRef.kind, 'Role');
  });

  it('writes nothing when nothing changed', async () => {
    const before = await backend.currentRevision();
    await reconcile();
    assert.equal(await backend.currentRevision(), before);
  });

  it('gives a role back the rules it lost, as single-verb atoms after what it has, keeping additions', async () => {
    const discovery = await get('clusterroles', 'system:discovery');
    const urls: string[] = discovery.rules[0].nonResourceURLs;
    discovery.rules = [{ verbs: ['get'], nonResourceURLs: urls.filter((u) => u !== '/healthz' && u !== '/livez') }, { verbs: ['get'], nonResourceURLs: ['/extra'] }];
    await update('clusterroles', discovery);
    await reconcile();
    const after = await get('clusterroles', 'system:discovery');
    assert.deepEqual(after.rules.slice(2), [{ verbs: ['get'], nonResourceURLs: ['/healthz'] }, { verbs: ['get'], nonResourceURLs: ['/livez'] }]);
    assert.deepEqual(after.rules[1], { verbs: ['get'], nonResourceURLs: ['/extra'] }, 'an addition is kept');
  });

  it('a role marked autoupdate "false" is left as it is; one whose annotation was removed is reconciled and marked again', async () => {
    const protectedRole = await get('clusterroles', 'system:public-info-viewer');
    protectedRole.metadata.annotations[autoupdate] = 'false';
    protectedRole.rules = [];
    await update('clusterroles', protectedRole);
    const unmarked = await get('clusterroles', 'system:monitoring');
    delete unmarked.metadata.annotations[autoupdate];
    delete unmarked.metadata.labels['kubernetes.io/bootstrapping'];
    unmarked.metadata.labels.mine = 'yes';
    unmarked.rules = [];
    await update('clusterroles', unmarked);
    await reconcile();
    assert.deepEqual((await get('clusterroles', 'system:public-info-viewer')).rules, []);
    const monitoring = await get('clusterroles', 'system:monitoring');
    assert.equal(monitoring.rules.length, 8, 'every URL back, one rule each');
    assert.equal(monitoring.metadata.annotations[autoupdate], 'true');
    assert.deepEqual(monitoring.metadata.labels, { mine: 'yes', 'kubernetes.io/bootstrapping': 'rbac-defaults' });
  });

  it('gives a binding back the subjects it lost, keeping added ones', async () => {
    const b = await get('clusterrolebindings', 'system:basic-user');
    b.subjects = [{ kind: 'User', apiGroup: rbacGroup, name: 'alice' }];
    await update('clusterrolebindings', b);
    await reconcile();
    assert.deepEqual((await get('clusterrolebindings', 'system:basic-user')).subjects, [
      { kind: 'User', apiGroup: rbacGroup, name: 'alice' },
      { kind: 'Group', apiGroup: rbacGroup, name: 'system:authenticated' },
    ]);
  });

  it('recreates a binding whose roleRef is not the default’s', async () => {
    const def = defOf('clusterrolebindings');
    const old = await get('clusterrolebindings', 'system:discovery');
    await store.delete(def, undefined, 'system:discovery', {}, someone);
    await store.create(def, undefined, { metadata: { name: 'system:discovery' }, roleRef: { apiGroup: rbacGroup, kind: 'ClusterRole', name: 'view' }, subjects: old.subjects }, someone);
    await reconcile();
    const now = await get('clusterrolebindings', 'system:discovery');
    assert.deepEqual(now.roleRef, { apiGroup: rbacGroup, kind: 'ClusterRole', name: 'system:discovery' });
    assert.equal(now.metadata.annotations[autoupdate], 'true');
  });

  it('puts back missing aggregation selectors (keeping others), and removes an aggregationRule a default does not have', async () => {
    const edit = await get('clusterroles', 'edit');
    const mine = { matchLabels: { 'example.com/aggregate-to-edit': 'true' } };
    edit.aggregationRule = { clusterRoleSelectors: [mine] };
    await update('clusterroles', edit);
    const admin = await get('clusterroles', 'cluster-admin');
    admin.aggregationRule = { clusterRoleSelectors: [mine] };
    await update('clusterroles', admin);
    await reconcile();
    assert.deepEqual((await get('clusterroles', 'edit')).aggregationRule.clusterRoleSelectors, [mine, { matchLabels: { 'rbac.authorization.k8s.io/aggregate-to-edit': 'true' } }]);
    const adminNow = await get('clusterroles', 'cluster-admin');
    assert.equal(adminNow.aggregationRule, undefined);
    assert.equal(adminNow.rules.length, 2, 'its rules stay');
  });
});
