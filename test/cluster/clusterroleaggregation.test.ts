/**
 * The clusterrole-aggregation controller against the real API server (style example 14): the
 * bootstrap `admin`/`edit`/`view` fill up by chained aggregation, a labelled role joins and
 * leaves the union, and a reconcile with nothing to change writes nothing.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { V1ClusterRole, V1PolicyRule } from '@kubernetes/client-node';
import { FIELD_MANAGER, createClusterRoleAggregationController } from '../../src/cluster/clusterroleaggregation/controller.ts';
import type { ApiClient } from '../../src/runtime/client.ts';
import type { ControllerObserver } from '../../src/runtime/controller.ts';
import type { ReconcileReport } from '../../src/runtime/reconcile-loop.ts';
import { resources } from '../../src/runtime/resources.ts';
import { startControllers, type RunningControllers } from '../support/controllers.ts';
import { until } from '../support/until.ts';

const key = (r: V1PolicyRule): string => JSON.stringify([r.verbs, r.apiGroups ?? [], r.resources ?? [], r.resourceNames ?? [], r.nonResourceURLs ?? []]);
const keys = (rules: readonly V1PolicyRule[] | undefined): string[] => (rules ?? []).map(key);

describe('clusterrole-aggregation controller on a real API server', () => {
  let cluster: RunningControllers;
  let client: ApiClient;
  const reports: ReconcileReport[] = [];
  const observer: ControllerObserver = { observe: (r) => reports.push(r), setDepth: () => {}, countAdd: () => {} };

  const get = (name: string) => client.get<V1ClusterRole>(resources.clusterRoles, undefined, name);
  const rulesOf = async (name: string) => keys((await get(name)).rules);
  const holds = async (name: string, wanted: readonly V1PolicyRule[]) => {
    const have = new Set(await rulesOf(name));
    return wanted.every((r) => have.has(key(r)));
  };

  before(async () => {
    cluster = await startControllers({ userAgent: 'clusterrole-aggregation-test' }, (ctx) => [createClusterRoleAggregationController({ ...ctx, metrics: { forController: () => observer } })]);
    ({ client } = cluster);
  });

  after(() => cluster?.stop());

  it('fills view, edit and admin from the bootstrap roles, each link of the chain in order', async () => {
    const [toView, toEdit, toAdmin] = await Promise.all(['system:aggregate-to-view', 'system:aggregate-to-edit', 'system:aggregate-to-admin'].map(rulesOf));
    // view ⊂ edit ⊂ admin: edit selects view's role by its aggregate-to-edit label, admin selects edit.
    const viewRules = await until('view aggregated', async () => ((await rulesOf('view')).length ? rulesOf('view') : undefined));
    assert.deepEqual(viewRules, toView);
    // edit's selector matches system:aggregate-to-edit and view; sorted by name that is system:… first.
    await until('edit aggregated', async () => (await rulesOf('edit')).length === new Set([...toEdit!, ...toView!]).size);
    assert.deepEqual(await rulesOf('edit'), [...new Set([...toEdit!, ...toView!])]);
    // admin: edit, then system:aggregate-to-admin (sorted by name).
    const editRules = await rulesOf('edit');
    await until('admin aggregated', async () => (await rulesOf('admin')).length === new Set([...editRules, ...toAdmin!]).size);
    assert.deepEqual(await rulesOf('admin'), [...new Set([...editRules, ...toAdmin!])]);
    const managers = (await get('view')).metadata?.managedFields?.map((m) => m.manager);
    assert.ok(managers?.includes(FIELD_MANAGER), `managers of view: ${managers}`);
  });

  it('a role labelled aggregate-to-view joins view, edit and admin, and leaves them when unlabelled or deleted', async () => {
    const widgets: V1PolicyRule = { verbs: ['get', 'list', 'watch'], apiGroups: ['example.com'], resources: ['widgets'] };
    const gadgets: V1PolicyRule = { verbs: ['get'], apiGroups: ['example.com'], resources: ['gadgets'] };
    await client.create<V1ClusterRole>(resources.clusterRoles, {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRole',
      metadata: { name: 'widgets-view', labels: { 'rbac.authorization.k8s.io/aggregate-to-view': 'true' } },
      rules: [widgets],
    });
    for (const name of ['view', 'edit', 'admin']) await until(`${name} holds widgets`, () => holds(name, [widgets]));

    // A rule added to the source flows through too.
    await client.patch(resources.clusterRoles, undefined, 'widgets-view', { rules: [widgets, gadgets] });
    for (const name of ['view', 'edit', 'admin']) await until(`${name} holds gadgets`, () => holds(name, [widgets, gadgets]));

    // Losing the label takes its rules out of every link, though the role still exists.
    await client.patch(resources.clusterRoles, undefined, 'widgets-view', { metadata: { labels: { 'rbac.authorization.k8s.io/aggregate-to-view': null } } });
    for (const name of ['view', 'edit', 'admin']) await until(`${name} lost widgets`, async () => !(await rulesOf(name)).includes(key(widgets)));

    await client.patch(resources.clusterRoles, undefined, 'widgets-view', { metadata: { labels: { 'rbac.authorization.k8s.io/aggregate-to-edit': 'true' } } });
    await until('edit holds widgets again', () => holds('edit', [widgets]));
    assert.ok(!(await rulesOf('view')).includes(key(widgets)), 'aggregate-to-edit does not reach view');
    await client.delete(resources.clusterRoles, undefined, 'widgets-view');
    for (const name of ['edit', 'admin']) await until(`${name} lost widgets after the delete`, async () => !(await rulesOf(name)).includes(key(gadgets)));
  });

  it('a user-made aggregated role with two selectors gathers both, and its own edits to rules are put back', async () => {
    const a: V1PolicyRule = { verbs: ['get'], apiGroups: [''], resources: ['configmaps'] };
    const b: V1PolicyRule = { verbs: ['list'], apiGroups: [''], resources: ['secrets'] };
    const mk = (name: string, labels: Record<string, string>, rules: V1PolicyRule[]) =>
      client.create<V1ClusterRole>(resources.clusterRoles, { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name, labels }, rules });
    await mk('part-b', { team: 'b' }, [b]);
    await mk('part-a', { team: 'a' }, [a]);
    await client.create<V1ClusterRole>(resources.clusterRoles, {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRole',
      metadata: { name: 'team-union' },
      aggregationRule: { clusterRoleSelectors: [{ matchLabels: { team: 'b' } }, { matchExpressions: [{ key: 'team', operator: 'In', values: ['a'] }] }] },
    });
    // Selector order first, then name: b's rules before a's.
    await until('team-union aggregated', async () => (await rulesOf('team-union')).length === 2);
    assert.deepEqual(await rulesOf('team-union'), [key(b), key(a)]);
    await client.patch(resources.clusterRoles, undefined, 'team-union', { rules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }] });
    await until('team-union put back', async () => JSON.stringify(await rulesOf('team-union')) === JSON.stringify([key(b), key(a)]));
  });

  it('writes nothing when an aggregated role already holds the union', async () => {
    await until('view aggregated', async () => (await rulesOf('view')).length > 0);
    // The server itself turns an update that changes nothing into a no-op, so the resourceVersion
    // alone cannot tell; its request counter can (only the controller PUTs clusterroles here).
    const updates = async () => (await cluster.ts.server.metrics.requests.get()).values.filter((v) => v.labels.verb === 'update' && v.labels.resource === 'clusterroles').reduce((n, v) => n + v.value, 0);
    const before = { rv: (await get('view')).metadata?.resourceVersion, updates: await updates() };
    const seen = reports.filter((r) => r.key === 'view').length;
    // An edit of a role view selects, leaving its rules alone, makes view reconcile again.
    await client.patch(resources.clusterRoles, undefined, 'system:aggregate-to-view', { metadata: { annotations: { 'example.com/touched': 'yes' } } });
    await until('view reconciled again', () => reports.filter((r) => r.key === 'view').length > seen);
    assert.equal(reports.filter((r) => r.key === 'view').at(-1)?.result, 'success');
    assert.deepEqual({ rv: (await get('view')).metadata?.resourceVersion, updates: await updates() }, before);
  });
});
