/**
 * The kube-apiserver operator's identities as the payload ships them (issue 17, item 10): the
 * operator and `installer-sa` each hold what they use and no more, checked with `kubectl auth
 * can-i --as` against a real API server that enforces RBAC. (That the operator can do its work
 * with this role is kube-apiserver-operator.test.ts's: it runs as this account.)
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { configCRDs } from '../../src/api/config/index.ts';
import { operatorCRDs } from '../../src/api/operator/index.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { expectAccess, serveCRDs, type AccessCase } from '../support/rbac.ts';

const manifest = (f: string) => new URL(`../../src/release/payload/manifests/0000_20_kube-apiserver-operator_${f}`, import.meta.url).pathname;
const NS = 'openshift-kube-apiserver';
const OPERATOR_NS = 'openshift-kube-apiserver-operator';
const LEGACY_NS = 'openshift-cluster-kube-apiserver-operator';
const operator = `system:serviceaccount:${OPERATOR_NS}:kube-apiserver-operator`;
const installer = `system:serviceaccount:${NS}:installer-sa`;

describe('kube-apiserver operator RBAC from the payload', { timeout: 120_000 }, () => {
  let ts: TestServer;

  before(async () => {
    ts = await startTestServer();
    const crds = [...operatorCRDs(), ...configCRDs().filter((c) => ['Infrastructure', 'Network', 'Image', 'ClusterOperator'].includes(c.spec.names.kind))];
    await serveCRDs(ts, crds);
    const applied = await ts.kubectl(['apply', '-f', manifest('00_namespace.yaml'), '-f', manifest('02_rbac.yaml'), '-f', manifest('03_installer-rbac.yaml')]);
    assert.equal(applied.code, 0, applied.stderr);
  });

  after(() => ts?.stop());

  const check = (user: string, cases: readonly AccessCase[]) => expectAccess(ts, user, cases);

  it('the operator: its CR and ClusterOperator, the cluster facts it observes, the operand namespace\'s ConfigMaps and pods, its Lease and events', async () => {
    await check(operator, [
      ['watch', 'kubeapiservers.operator.openshift.io', undefined, true],
      ['update', 'kubeapiservers.operator.openshift.io/cluster', undefined, true],
      ['update', 'kubeapiservers.operator.openshift.io/cluster#status', undefined, true],
      ['update', 'kubeapiservers.operator.openshift.io/other', undefined, false],
      ['delete', 'kubeapiservers.operator.openshift.io/cluster', undefined, false],
      ['create', 'clusteroperators.config.openshift.io', undefined, true],
      ['update', 'clusteroperators.config.openshift.io/kube-apiserver#status', undefined, true],
      ['update', 'clusteroperators.config.openshift.io/machine-api#status', undefined, false],
      ['update', 'clusteroperators.config.openshift.io/kube-apiserver', undefined, false],
      ['get', 'infrastructures.config.openshift.io/cluster', undefined, true],
      ['get', 'networks.config.openshift.io/cluster', undefined, true],
      ['update', 'networks.config.openshift.io/cluster', undefined, false],
      ['watch', 'images.config.openshift.io', undefined, true],
      ['watch', 'nodes', undefined, true],
      ['update', 'nodes', undefined, false],
      ['watch', 'endpoints', 'kube-system', true],
      ['watch', 'configmaps', 'kube-system', true],
      ['update', 'configmaps', 'kube-system', false],
      ['get', 'secrets', 'kube-system', false],
      ['create', 'configmaps', NS, true],
      ['update', 'configmaps', NS, true],
      ['delete', 'configmaps', NS, true],
      ['watch', 'secrets', NS, true],
      ['create', 'secrets', NS, false],
      ['create', 'pods', NS, true],
      ['delete', 'pods', NS, true],
      ['get', 'pods#log', NS, true],
      ['update', 'pods', NS, false],
      ['create', 'pods', 'default', false],
      ['create', 'configmaps', 'default', false],
      ['create', 'leases.coordination.k8s.io', OPERATOR_NS, true],
      ['update', 'leases.coordination.k8s.io', OPERATOR_NS, true],
      ['create', 'leases.coordination.k8s.io', 'kube-system', false],
      ['create', 'events', OPERATOR_NS, true],
      ['patch', 'events', LEGACY_NS, true],
      ['create', 'events', 'default', false],
      ['create', 'deployments.apps', OPERATOR_NS, false],
    ]);
  });

  it('installer-sa: installer pods listed, revision copies read, events on its pod, in the operand namespace only', async () => {
    await check(installer, [
      ['list', 'pods', NS, true],
      ['create', 'pods', NS, false],
      ['delete', 'pods', NS, false],
      ['get', 'configmaps', NS, true],
      ['get', 'secrets', NS, true],
      ['list', 'secrets', NS, false],
      ['update', 'configmaps', NS, false],
      ['create', 'events', NS, true],
      ['get', 'configmaps', 'kube-system', false],
      ['get', 'secrets', 'kube-system', false],
      ['list', 'pods', 'default', false],
    ]);
  });
});
