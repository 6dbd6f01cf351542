/**
 * The Machine API's identities as the payload ships them (issue 16, item 8): the operator and the
 * controllers each hold what they use and no more, checked with `kubectl auth can-i --as` against
 * a real API server that enforces RBAC. The controllers read Secrets only in
 * openshift-machine-api (the cloud credentials live there), and neither account may touch what
 * is not its business.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { configCRDs } from '../../src/api/config/index.ts';
import { machineAPICRDs } from '../../src/api/machine/index.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { expectAccess, serveCRDs, type AccessCase } from '../support/rbac.ts';

const manifest = (f: string) => new URL(`../../src/release/payload/manifests/0000_30_machine-api-operator_${f}`, import.meta.url).pathname;
const NS = 'openshift-machine-api';
const operator = `system:serviceaccount:${NS}:machine-api-operator`;
const controllers = `system:serviceaccount:${NS}:machine-api-controllers`;

describe('Machine API RBAC from the payload', { timeout: 120_000 }, () => {
  let ts: TestServer;

  before(async () => {
    ts = await startTestServer();
    const crds = [...machineAPICRDs(), ...configCRDs().filter((c) => ['Infrastructure', 'ClusterOperator'].includes(c.spec.names.kind))];
    await serveCRDs(ts, crds);
    const applied = await ts.kubectl(['apply', '-f', manifest('00_namespace.yaml'), '-f', manifest('09_operator-rbac.yaml'), '-f', manifest('09_controllers-rbac.yaml')]);
    assert.equal(applied.code, 0, applied.stderr);
  });

  after(() => ts?.stop());

  const check = (user: string, cases: readonly AccessCase[]) => expectAccess(ts, user, cases);

  it('the operator: its Deployment, Lease and events in its namespace, the platform, its own ClusterOperator', async () => {
    await check(operator, [
      ['create', 'deployments.apps', NS, true],
      ['update', 'deployments.apps', NS, true],
      ['delete', 'deployments.apps', NS, true],
      ['create', 'deployments.apps', 'default', false],
      ['create', 'leases.coordination.k8s.io', NS, true],
      ['create', 'events', NS, true],
      ['list', 'machinesets.machine.openshift.io', NS, true],
      ['list', 'machines.machine.openshift.io', NS, true],
      ['delete', 'machines.machine.openshift.io', NS, false],
      ['watch', 'infrastructures.config.openshift.io', undefined, true],
      ['update', 'infrastructures.config.openshift.io', undefined, false],
      ['create', 'clusteroperators.config.openshift.io', undefined, true],
      ['update', 'clusteroperators.config.openshift.io/machine-api', undefined, true],
      ['update', 'clusteroperators.config.openshift.io/machine-config', undefined, false],
      ['get', 'secrets', NS, false],
      ['get', 'configmaps', NS, false],
      ['create', 'pods', NS, false],
    ]);
  });

  it('the controllers: Machines and their kin, Nodes, drains, Secrets in openshift-machine-api only', async () => {
    await check(controllers, [
      ['create', 'machines.machine.openshift.io', NS, true],
      ['delete', 'machines.machine.openshift.io', NS, true],
      ['patch', 'machines.machine.openshift.io#status', NS, true],
      ['watch', 'machinesets.machine.openshift.io', NS, true],
      ['update', 'machinesets.machine.openshift.io#status', NS, true],
      ['update', 'machinesets.machine.openshift.io#finalizers', NS, true],
      ['delete', 'machinesets.machine.openshift.io', NS, false],
      ['update', 'machinehealthchecks.machine.openshift.io#status', NS, true],
      ['watch', 'machinehealthchecks.healthchecking.openshift.io', 'default', true],
      ['delete', 'nodes', undefined, true],
      ['patch', 'nodes', undefined, true],
      ['delete', 'pods', 'default', true],
      ['create', 'pods#eviction', 'default', true],
      ['create', 'pods', 'default', false],
      ['list', 'daemonsets.apps', 'default', true],
      ['update', 'daemonsets.apps', 'default', false],
      ['list', 'poddisruptionbudgets.policy', 'default', true],
      ['get', 'secrets', NS, true],
      ['list', 'secrets', NS, false],
      ['get', 'secrets', 'default', false],
      ['get', 'secrets', 'kube-system', false],
      ['watch', 'configmaps', NS, true],
      ['get', 'configmaps', 'default', false],
      ['create', 'leases.coordination.k8s.io', NS, true],
      ['create', 'leases.coordination.k8s.io', 'default', false],
      ['watch', 'infrastructures.config.openshift.io', undefined, true],
      ['create', 'events', 'default', true],
      ['update', 'deployments.apps', NS, false],
    ]);
  });
});
