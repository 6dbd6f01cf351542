import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { V1ClusterRole, V1LabelSelector, V1PolicyRule } from '@kubernetes/client-node';
import { aggregatedRules, aggregatorsAffectedBy, InvalidAggregationRule, rulesToWrite, sameRules } from './aggregate.ts';

const rule = (verbs: string[], resources: string[], extra: Partial<V1PolicyRule> = {}): V1PolicyRule => ({ verbs, apiGroups: [''], resources, ...extra });

function role(name: string, o: { labels?: Record<string, string>; rules?: V1PolicyRule[]; selectors?: V1LabelSelector[] } = {}): V1ClusterRole {
  return {
    metadata: { name, labels: o.labels },
    rules: o.rules,
    ...(o.selectors ? { aggregationRule: { clusterRoleSelectors: o.selectors } } : {}),
  };
}

const to = (x: string) => ({ [`rbac.authorization.k8s.io/aggregate-to-${x}`]: 'true' });
const selecting = (x: string): V1LabelSelector => ({ matchLabels: to(x) });

describe('aggregatedRules: the union kube computes', () => {
  it('takes the selected roles sorted by name, keeps each one’s rule order, drops exact duplicates', () => {
    const view = role('view', { selectors: [selecting('view')] });
    const all = [
      view,
      role('zz-crd-viewer', { labels: to('view'), rules: [rule(['get'], ['widgets']), rule(['get', 'list'], ['pods'])] }),
      role('aa-pods', { labels: to('view'), rules: [rule(['get', 'list'], ['pods']), rule(['watch'], ['pods'])] }),
      role('unrelated', { labels: { other: 'true' }, rules: [rule(['delete'], ['pods'])] }),
    ];
    assert.deepEqual(aggregatedRules(view, all), [rule(['get', 'list'], ['pods']), rule(['watch'], ['pods']), rule(['get'], ['widgets'])]);
  });

  it('goes selector by selector, each selector’s matches sorted by name', () => {
    const agg = role('agg', { selectors: [{ matchLabels: { b: 'x' } }, { matchLabels: { a: 'x' } }] });
    const all = [agg, role('r1', { labels: { a: 'x' }, rules: [rule(['get'], ['one'])] }), role('r2', { labels: { b: 'x' }, rules: [rule(['get'], ['two'])] })];
    assert.deepEqual(aggregatedRules(agg, all).map((r) => r.resources?.[0]), ['two', 'one']);
  });

  it('never selects itself, even when its own labels match', () => {
    const self = role('self', { labels: to('view'), selectors: [selecting('view')], rules: [rule(['get'], ['old'])] });
    assert.deepEqual(aggregatedRules(self, [self]), []);
  });

  it('matches with matchExpressions, and an empty selector selects every other role', () => {
    const exprs = role('e', { selectors: [{ matchExpressions: [{ key: 'tier', operator: 'In', values: ['a', 'b'] }] }] });
    const everything = role('all', { selectors: [{}] });
    const all = [exprs, everything, role('a', { labels: { tier: 'a' }, rules: [rule(['get'], ['a'])] }), role('c', { labels: { tier: 'c' }, rules: [rule(['get'], ['c'])] })];
    assert.deepEqual(aggregatedRules(exprs, all).map((r) => r.resources?.[0]), ['a']);
    assert.deepEqual(aggregatedRules(everything, all).map((r) => r.resources?.[0]), ['a', 'c']);
  });

  it('treats an empty list as an absent one, as kube’s semantic equality does, and writes neither', () => {
    const agg = role('agg', { selectors: [selecting('x')] });
    const all = [agg, role('a', { labels: to('x'), rules: [rule(['get'], ['pods'], { resourceNames: [] })] }), role('b', { labels: to('x'), rules: [rule(['get'], ['pods'])] })];
    assert.deepEqual(aggregatedRules(agg, all), [{ verbs: ['get'], apiGroups: [''], resources: ['pods'] }]);
  });

  it('keeps non-resource URL rules', () => {
    const agg = role('agg', { selectors: [selecting('x')] });
    const all = [agg, role('a', { labels: to('x'), rules: [{ verbs: ['get'], nonResourceURLs: ['/healthz'] }] })];
    assert.deepEqual(aggregatedRules(agg, all), [{ verbs: ['get'], nonResourceURLs: ['/healthz'] }]);
  });

  it('refuses a selector that does not compile, naming the role', () => {
    const bad = role('bad', { selectors: [{ matchExpressions: [{ key: 'k', operator: 'In', values: [] }] }] });
    assert.throws(() => aggregatedRules(bad, [bad]), (err: Error) => err instanceof InvalidAggregationRule && /clusterrole "bad"/.test(err.message));
  });
});

describe('rulesToWrite: only when different', () => {
  const source = role('src', { labels: to('view'), rules: [rule(['get'], ['pods'])] });

  it('is undefined for a role without an aggregationRule', () => {
    assert.equal(rulesToWrite(role('plain', { rules: [] }), [source]), undefined);
  });

  it('is undefined when the role already holds the union, however its empty lists are spelled', () => {
    const view = role('view', { selectors: [selecting('view')], rules: [rule(['get'], ['pods'], { resourceNames: [], nonResourceURLs: [] })] });
    assert.equal(rulesToWrite(view, [view, source]), undefined);
  });

  it('gives the union when rules differ, in order too', () => {
    const view = role('view', { selectors: [selecting('view')], rules: [] });
    assert.deepEqual(rulesToWrite(view, [view, source]), [rule(['get'], ['pods'])]);
    const other = role('other', { labels: to('view'), rules: [rule(['list'], ['pods'])] });
    // 'other' sorts before 'src', so its rule comes first: the same rules in another order are rewritten.
    const reordered = role('view', { selectors: [selecting('view')], rules: [rule(['get'], ['pods']), rule(['list'], ['pods'])] });
    assert.deepEqual(rulesToWrite(reordered, [reordered, source, other]), [rule(['list'], ['pods']), rule(['get'], ['pods'])]);
  });

  it('empties the rules of a role nothing matches any more; an absent list and [] are the same', () => {
    const view = role('view', { selectors: [selecting('view')], rules: [rule(['get'], ['pods'])] });
    assert.deepEqual(rulesToWrite(view, [view]), []);
    assert.equal(rulesToWrite(role('view', { selectors: [selecting('view')] }), []), undefined);
    assert.ok(sameRules(undefined, []));
  });
});

describe('aggregatorsAffectedBy: which aggregated roles a change concerns', () => {
  const admin = role('admin', { selectors: [selecting('admin')] });
  const edit = role('edit', { labels: to('admin'), selectors: [selecting('edit')] });
  const view = role('view', { labels: to('edit'), selectors: [selecting('view')] });
  const all = [admin, edit, view];

  it('a role labelled for view concerns view only', () => {
    assert.deepEqual(aggregatorsAffectedBy(role('crd-view', { labels: to('view') }), all), ['view']);
  });

  it('view itself concerns view (its own rule may have changed) and edit, which selects it', () => {
    assert.deepEqual(aggregatorsAffectedBy(view, all).sort(), ['edit', 'view']);
  });

  it('an unlabelled plain role concerns nothing', () => {
    assert.deepEqual(aggregatorsAffectedBy(role('plain'), all), []);
  });
});
