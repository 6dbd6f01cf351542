import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { V1LabelSelector, V1OwnerReference, V1Pod, V1PodDisruptionBudget } from '@kubernetes/client-node';
import { ApiError } from '../api/status.ts';
import { budgetsFor, deletionOverdue, DrainError, evictionMessage, planDrain, podKey, warningLine } from './drain.ts';

const owner = (kind: string, name: string, apiVersion = kind === 'DaemonSet' || kind === 'ReplicaSet' ? 'apps/v1' : 'v1'): V1OwnerReference[] => [{ apiVersion, kind, name, uid: `uid-${name}`, controller: true }];

function pod(ns: string, name: string, extra: { owners?: V1OwnerReference[]; mirror?: boolean; phase?: string; emptyDir?: boolean; labels?: Record<string, string> } = {}): V1Pod {
  return {
    metadata: {
      namespace: ns,
      name,
      ...(extra.labels ? { labels: extra.labels } : {}),
      ...(extra.owners ? { ownerReferences: extra.owners } : {}),
      ...(extra.mirror ? { annotations: { 'kubernetes.io/config.mirror': 'hash' } } : {}),
    },
    spec: { nodeName: 'worker-0', containers: [{ name: 'c', image: 'i' }], ...(extra.emptyDir ? { volumes: [{ name: 'scratch', emptyDir: {} }] } : {}) },
    status: { phase: extra.phase ?? 'Running' },
  };
}

const budget = (ns: string, name: string, selector: V1LabelSelector | undefined): V1PodDisruptionBudget => ({ metadata: { namespace: ns, name }, spec: { selector } });

describe('planDrain: which pods a drain moves (kubectl filters, the MCO options)', () => {
  it('evicts managed pods, leaves mirror pods silently and DaemonSet pods with a warning', () => {
    const plan = planDrain(
      [
        pod('openshift-ingress', 'router-default-x', { owners: owner('ReplicaSet', 'router-default-796df5847b') }),
        pod('openshift-dns', 'dns-default-h2lt5', { owners: owner('DaemonSet', 'dns-default') }),
        pod('openshift-machine-config-operator', 'machine-config-daemon-vwh4d', { owners: owner('DaemonSet', 'machine-config-daemon') }),
        pod('kube-system', 'etcd-worker-0', { mirror: true, owners: owner('Node', 'worker-0') }),
      ],
      new Set(['openshift-dns/dns-default', 'openshift-machine-config-operator/machine-config-daemon']),
    );
    assert.deepEqual(plan.evict.map(podKey), ['openshift-ingress/router-default-x']);
    assert.deepEqual(plan.ignored.map(podKey), ['openshift-dns/dns-default-h2lt5', 'openshift-machine-config-operator/machine-config-daemon-vwh4d']);
    assert.equal(warningLine(plan.warnings), 'WARNING: ignoring DaemonSet-managed Pods: openshift-dns/dns-default-h2lt5, openshift-machine-config-operator/machine-config-daemon-vwh4d');
  });

  it('evicts, with a warning each, pods whose DaemonSet is gone, pods without a controller and pods with local storage', () => {
    const plan = planDrain(
      [
        pod('a', 'orphan', { owners: owner('DaemonSet', 'gone') }),
        pod('a', 'bare'),
        pod('a', 'cache', { owners: owner('ReplicaSet', 'web'), emptyDir: true }),
        pod('a', 'done', { phase: 'Succeeded' }),
      ],
      new Set(),
    );
    assert.deepEqual(plan.evict.map(podKey), ['a/bare', 'a/cache', 'a/done', 'a/orphan']);
    assert.deepEqual(plan.ignored, []);
    // A finished pod needs no warning: nothing is lost by deleting it.
    assert.equal(warningLine(plan.warnings), 'WARNING: deleting Pods whose DaemonSet is gone: a/orphan; deleting Pods that declare no controller: a/bare; deleting Pods with local storage: a/cache');
  });

  it('a DaemonSet owner must be apps/v1 and the controller reference to count', () => {
    const notController = pod('a', 'p', { owners: [{ apiVersion: 'apps/v1', kind: 'DaemonSet', name: 'ds', uid: 'u', controller: false }] });
    const plan = planDrain([notController], new Set(['a/ds']));
    assert.deepEqual(plan.evict.map(podKey), ['a/p']);
    assert.equal(warningLine(new Map()), undefined);
  });
});

describe('budgetsFor: the budget in a refused pod\'s way, by selector', () => {
  const router = pod('openshift-ingress', 'router-default-x', { labels: { 'ingresscontroller.operator.openshift.io/deployment-ingresscontroller': 'default', app: 'router' } });
  it('matches matchLabels and matchExpressions in the pod\'s namespace only', () => {
    const budgets = [
      budget('openshift-ingress', 'router-default', { matchLabels: { 'ingresscontroller.operator.openshift.io/deployment-ingresscontroller': 'default' } }),
      budget('openshift-ingress', 'other', { matchLabels: { app: 'web' } }),
      budget('elsewhere', 'same-labels', { matchLabels: { app: 'router' } }),
      budget('openshift-ingress', 'by-expression', { matchExpressions: [{ key: 'app', operator: 'In', values: ['router', 'x'] }] }),
    ];
    assert.deepEqual(budgetsFor(router, budgets), ['openshift-ingress/by-expression', 'openshift-ingress/router-default']);
  });
  it('a budget without a selector selects nothing; an empty one everything', () => {
    assert.deepEqual(budgetsFor(router, [budget('openshift-ingress', 'none', undefined)]), []);
    assert.deepEqual(budgetsFor(router, [budget('openshift-ingress', 'all', {})]), ['openshift-ingress/all']);
  });
});

describe('evictionMessage and DrainError: the words a refused drain is reported in', () => {
  const refusal = 'Cannot evict pod as it would violate the pod\'s disruption budget.';
  const cause = 'The disruption budget router-default needs 1 healthy pods and has 1 currently';
  it('keeps kube\'s sentence and drops the cause Shipyard\'s server appends', () => {
    const ours = ApiError.received('POST /api/v1/namespaces/a/pods/x/eviction', 429, { reason: 'TooManyRequests', message: `${refusal} ${cause}.`, details: { causes: [{ reason: 'DisruptionBudget', message: cause }] } });
    assert.equal(evictionMessage(ours), refusal);
    const kubes = ApiError.received('POST /api/v1/namespaces/a/pods/x/eviction', 429, { reason: 'TooManyRequests', message: refusal, details: { causes: [{ reason: 'DisruptionBudget', message: cause }] } });
    assert.equal(evictionMessage(kubes), refusal);
    const shedding = ApiError.received('POST /x', 429, { reason: 'TooManyRequests', message: 'too many requests, please try again later' });
    assert.equal(evictionMessage(shedding), 'too many requests, please try again later');
  });
  it('names the node, then each pod in the way and its budget', () => {
    const err = new DrainError('worker-0', [
      { pod: 'openshift-ingress/router-default-x', budget: 'openshift-ingress/router-default', message: 'Cannot evict pod openshift-ingress/router-default-x: would violate PodDisruptionBudget openshift-ingress/router-default' },
    ]);
    assert.equal(err.message, 'failed to drain node worker-0: Cannot evict pod openshift-ingress/router-default-x: would violate PodDisruptionBudget openshift-ingress/router-default');
    assert.equal(err.node, 'worker-0');
    assert.equal(err.blockers[0]?.budget, 'openshift-ingress/router-default');
  });
});

describe('deletionOverdue: kubectl\'s skip-wait-for-delete rule, for nodes nobody will finish deletions on', () => {
  it('counts a pod as gone once its deletion is more than the given seconds overdue, and only with the option set', () => {
    const deleting = { ...pod('a', 'p'), metadata: { namespace: 'a', name: 'p', deletionTimestamp: new Date('2024-01-01T00:00:10Z') } } as V1Pod;
    const at = (iso: string) => Date.parse(iso);
    assert.equal(deletionOverdue(deleting, 1, at('2024-01-01T00:00:11Z')), false);
    assert.equal(deletionOverdue(deleting, 1, at('2024-01-01T00:00:11.001Z')), true);
    assert.equal(deletionOverdue(deleting, undefined, at('2024-01-02T00:00:00Z')), false);
    assert.equal(deletionOverdue(deleting, 0, at('2024-01-02T00:00:00Z')), false);
    assert.equal(deletionOverdue(pod('a', 'live'), 1, at('2024-01-02T00:00:00Z')), false);
  });
});
