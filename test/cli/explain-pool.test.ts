/**
 * `shipyard explain mcp/<pool>` against a real API server: the facts it reads (the pool, its
 * nodes by selector, the daemon's drain failure, the budget, the pod's Deployment, the other
 * replica's FailedScheduling event) and the explanation printed from them.
 */
import assert from 'node:assert/strict';
import type { KubernetesObject } from '@kubernetes/client-node';
import { after, before, describe, it } from 'node:test';
import { MachineConfigPool } from '../../src/api/machineconfiguration/index.ts';
import { renderPoolExplanation } from '../../src/cli/explain/explain-pool.ts';
import { gatherPoolFacts } from '../../src/cli/explain/pool-facts.ts';
import { ApiClient } from '../../src/runtime/client.ts';
import { ClientConfig } from '../../src/runtime/kubeconfig.ts';
import { resources } from '../../src/runtime/resources.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { until } from '../support/until.ts';

const reason = 'failed to drain node worker-0: Cannot evict pod openshift-ingress/router-default-1: would violate PodDisruptionBudget openshift-ingress/router-default';

describe('shipyard explain mcp/<pool> on a real API server', () => {
  let ts: TestServer;
  let client: ApiClient;
  before(async () => {
    ts = await startTestServer();
    const kc = new ClientConfig();
    kc.loadFromFile(ts.server.kubeconfigPath);
    client = new ApiClient(kc, { userAgent: 'explain-test' });
    await client.create(resources.customResourceDefinitions, MachineConfigPool.crd as KubernetesObject);
    await until('the MachineConfigPool CRD is served', async () => (await client.list(resources.machineConfigPools).then(() => true, () => false)) || undefined, { timeoutMs: 30_000, everyMs: 100 });
  });
  after(async () => {
    client?.close();
    await ts.stop();
  });

  it('finds the blocked node, the budget, the Deployment and why its other replica stays Pending', async () => {
    await client.create(resources.machineConfigPools, {
      apiVersion: 'machineconfiguration.openshift.io/v1',
      kind: 'MachineConfigPool',
      metadata: { name: 'worker' },
      spec: { nodeSelector: { matchLabels: { 'node-role.kubernetes.io/worker': '' } }, machineConfigSelector: { matchLabels: { 'machineconfiguration.openshift.io/role': 'worker' } }, configuration: { name: 'rendered-worker-new' } },
    } as KubernetesObject);
    const node = (name: string, labels: Record<string, string>, annotations: Record<string, string> = {}) =>
      client.create(resources.nodes, { apiVersion: 'v1', kind: 'Node', metadata: { name, labels, annotations }, spec: { unschedulable: name === 'worker-0' } } as KubernetesObject);
    await node('worker-0', { 'node-role.kubernetes.io/worker': '' }, {
      'machineconfiguration.openshift.io/currentConfig': 'rendered-worker-old',
      'machineconfiguration.openshift.io/desiredConfig': 'rendered-worker-new',
      'machineconfiguration.openshift.io/state': 'Degraded',
      'machineconfiguration.openshift.io/reason': reason,
    });
    await node('master-0', { 'node-role.kubernetes.io/master': '' });
    await client.create(resources.namespaces, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'openshift-ingress' } } as KubernetesObject);
    const labels = { app: 'router' };
    const dep = await client.create(resources.deployments, {
      apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'router-default', namespace: 'openshift-ingress' },
      spec: { replicas: 2, selector: { matchLabels: labels }, template: { metadata: { labels }, spec: { containers: [{ name: 'r', image: 'router' }] } } },
    } as KubernetesObject);
    const rs = await client.create(resources.replicaSets, {
      apiVersion: 'apps/v1', kind: 'ReplicaSet', metadata: { name: 'router-default-abc', namespace: 'openshift-ingress', ownerReferences: [{ apiVersion: 'apps/v1', kind: 'Deployment', name: 'router-default', uid: dep.metadata!.uid!, controller: true }] },
      spec: { replicas: 2, selector: { matchLabels: labels }, template: { metadata: { labels }, spec: { containers: [{ name: 'r', image: 'router' }] } } },
    } as KubernetesObject);
    const owner = [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'router-default-abc', uid: rs.metadata!.uid!, controller: true }];
    await client.create(resources.pods, { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'router-default-1', namespace: 'openshift-ingress', labels, ownerReferences: owner }, spec: { nodeName: 'worker-0', containers: [{ name: 'r', image: 'router' }] } } as KubernetesObject);
    const pending = await client.create(resources.pods, { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'router-default-2', namespace: 'openshift-ingress', labels, ownerReferences: owner }, spec: { containers: [{ name: 'r', image: 'router' }] } } as KubernetesObject);
    await client.create(resources.podDisruptionBudgets, { apiVersion: 'policy/v1', kind: 'PodDisruptionBudget', metadata: { name: 'router-default', namespace: 'openshift-ingress' }, spec: { minAvailable: 1, selector: { matchLabels: labels } } } as KubernetesObject);
    const why = '0/2 nodes are available: 1 node(s) were unschedulable, 1 node(s) had untolerated taint {node-role.kubernetes.io/master: }.';
    await client.create(resources.events, {
      apiVersion: 'v1', kind: 'Event', metadata: { name: 'router-default-2.1', namespace: 'openshift-ingress' },
      involvedObject: { kind: 'Pod', namespace: 'openshift-ingress', name: 'router-default-2', uid: pending.metadata!.uid }, reason: 'FailedScheduling', message: why, type: 'Warning', lastTimestamp: new Date().toISOString(),
    } as KubernetesObject);

    const facts = await gatherPoolFacts(client, 'worker');
    assert.deepEqual(facts.nodes.map((n) => n.name), ['worker-0'], 'only the nodes the pool selects');
    const b = facts.blockers.get('worker-0');
    assert.equal(b?.budget, 'openshift-ingress/router-default');
    assert.deepEqual(b?.owner, { kind: 'Deployment', name: 'openshift-ingress/router-default', replicas: 2 });
    assert.deepEqual(b?.pendingSiblings, [{ name: 'router-default-2', message: why }]);
    const text = renderPoolExplanation(facts);
    assert.match(text, /node worker-0 \(Unknown,SchedulingDisabled\): draining: an eviction is refused/);
    assert.match(text, /pod openshift-ingress\/router-default-1 cannot be evicted: it would violate PodDisruptionBudget openshift-ingress\/router-default/);
    assert.match(text, /its replica router-default-2 cannot be scheduled elsewhere: 0\/2 nodes are available/);
  });
});
