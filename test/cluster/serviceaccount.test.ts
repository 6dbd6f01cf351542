/**
 * The controllers that furnish every namespace, against the real API server: the `default`
 * ServiceAccount (serviceaccount controller) and the `kube-root-ca.crt` ConfigMap (root CA
 * publisher), created in new namespaces and in those that existed before they started, put
 * back when deleted or edited, and not forced into a namespace that is being deleted.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { KubeConfig, type V1ConfigMap, type V1ServiceAccount } from '@kubernetes/client-node';
import { createRootCaCertPublisher } from '../../src/cluster/rootcacertpublisher/controller.ts';
import { createServiceAccountController } from '../../src/cluster/serviceaccount/controller.ts';
import { ApiClient } from '../../src/runtime/client.ts';
import { clusterCaPem } from '../../src/runtime/kubeconfig.ts';
import { resources } from '../../src/runtime/resources.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { until, type UntilOptions } from '../support/until.ts';

// The probes read objects that are 404 until a controller creates them.
const POLL: UntilOptions = { everyMs: 50, retryErrors: true };

describe('serviceaccount controller and root CA publisher on a real API server', () => {
  let ts: TestServer;
  let client: ApiClient;
  const sa = (ns: string) => client.get<V1ServiceAccount>(resources.serviceAccounts, ns, 'default');
  const rootCa = (ns: string) => client.get<V1ConfigMap>(resources.configMaps, ns, 'kube-root-ca.crt');

  before(async () => {
    // The CA comes from the kubeconfig the controllers run with, as the controller-manager's does without --root-ca-file.
    ts = await startTestServer({ controllers: (ctx) => [createServiceAccountController(ctx), createRootCaCertPublisher(ctx, { caCertPem: clusterCaPem(ctx.client.kubeConfig)! })] });
    const kubeConfig = new KubeConfig();
    kubeConfig.loadFromFile(ts.server.kubeconfigPath);
    client = new ApiClient(kubeConfig, { userAgent: 'serviceaccount-test' });
  });
  after(async () => {
    client.close();
    await ts.stop();
  });

  it('furnishes the namespaces that existed before the controllers started', async () => {
    for (const ns of ['default', 'kube-system', 'kube-public', 'kube-node-lease']) {
      await until(`default ServiceAccount in ${ns}`, () => sa(ns), POLL);
      const cm = await until(`kube-root-ca.crt in ${ns}`, () => rootCa(ns), POLL);
      assert.equal(cm.data?.['ca.crt'], ts.server.caCertPem);
    }
  });

  it('furnishes a new namespace, with the CA the API server’s certificate chains to', async () => {
    await client.create(resources.namespaces, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'team-a' } });
    await until('default ServiceAccount in team-a', () => sa('team-a'), POLL);
    const cm = await until('kube-root-ca.crt in team-a', () => rootCa('team-a'), POLL);
    assert.deepEqual(Object.keys(cm.data ?? {}), ['ca.crt']);
    assert.equal(cm.data?.['ca.crt'], ts.server.caCertPem);
    assert.ok(cm.metadata?.annotations?.['kubernetes.io/description']);
  });

  it('re-creates a deleted default ServiceAccount (a new one, with a new uid)', async () => {
    const before = await until('default ServiceAccount in default', () => sa('default'), POLL);
    await client.delete(resources.serviceAccounts, 'default', 'default');
    const after = await until('a new default ServiceAccount', async () => {
      const now = await sa('default').catch(() => undefined);
      return now && now.metadata?.uid !== before.metadata?.uid ? now : undefined;
    }, POLL);
    assert.ok(after.metadata?.uid);
  });

  it('puts back an edited or deleted kube-root-ca.crt', async () => {
    const cm = await until('kube-root-ca.crt in default', () => rootCa('default'), POLL);
    await client.update(resources.configMaps, { ...cm, data: { 'ca.crt': 'not a CA', extra: 'x' } });
    await until('the CA restored', async () => {
      const now = await rootCa('default');
      return now.data?.['ca.crt'] === ts.server.caCertPem && Object.keys(now.data ?? {}).length === 1;
    }, POLL);
    await client.delete(resources.configMaps, 'default', 'kube-root-ca.crt');
    await until('the ConfigMap re-created', async () => (await rootCa('default')).data?.['ca.crt'] === ts.server.caCertPem, POLL);
  });

  it('leaves a namespace that is being deleted alone', async () => {
    await client.create(resources.namespaces, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'going' } });
    await until('default ServiceAccount in going', () => sa('going'), POLL);
    await until('kube-root-ca.crt in going', () => rootCa('going'), POLL);
    // A finalizer holds the namespace in Terminating while its content is deleted.
    await client.create(resources.configMaps, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'held', namespace: 'going', finalizers: ['example.com/hold'] } });
    await client.delete(resources.namespaces, undefined, 'going');
    await until('the ServiceAccount and ConfigMap gone with the namespace', async () => {
      const left = await Promise.all([sa('going').then(() => true, () => false), rootCa('going').then(() => true, () => false)]);
      return !left.some(Boolean);
    }, POLL);
    // Each controller watches its objects in every namespace on one stream, so deleting and
    // editing them in `default` now queues `default` behind `going`: once `default` is put
    // right, both controllers have had their turn at `going`.
    const saBefore = await sa('default');
    await client.delete(resources.serviceAccounts, 'default', 'default');
    await until('a new default ServiceAccount in default', async () => {
      const now = await sa('default').catch(() => undefined);
      return now && now.metadata?.uid !== saBefore.metadata?.uid;
    }, POLL);
    const cm = await rootCa('default');
    await client.update(resources.configMaps, { ...cm, data: { 'ca.crt': 'not a CA' } });
    await until('the CA in default restored', async () => (await rootCa('default')).data?.['ca.crt'] === ts.server.caCertPem, POLL);
    assert.equal(await sa('going').then(() => true, () => false), false, 'no ServiceAccount re-created in a Terminating namespace');
    assert.equal(await rootCa('going').then(() => true, () => false), false, 'no ConfigMap re-created in a Terminating namespace');
    await client.patch(resources.configMaps, 'going', 'held', { metadata: { finalizers: null } });
  });
});
