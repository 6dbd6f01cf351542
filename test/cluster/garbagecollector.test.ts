/**
 * The garbage collector against the real API server, on the cases the kubectl e2e tests do
 * not reach: dependents whose owners vanished while no collector ran, a namesake owner with
 * another uid, an object with one live owner among dead ones, a custom resource (whose CRD
 * appears after the collector started) owning built-in objects, and a cluster-scoped owner.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { KubeConfig, type V1ConfigMap } from '@kubernetes/client-node';
import { ApiClient } from '../../src/runtime/client.ts';
import { resources, type ResourceRef } from '../../src/runtime/resources.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { until, type UntilOptions } from '../support/until.ts';

const NS = 'default';
const POLL: UntilOptions = { timeoutMs: 20_000, everyMs: 50, retryErrors: true };

const owner = (kind: string, name: string, uid: string, apiVersion = 'v1') => ({ apiVersion, kind, name, uid });

describe('garbage collector on a real API server', () => {
  let ts: TestServer;
  let client: ApiClient;
  let dataDir: string;
  const cm = (name: string, ownerReferences: ReturnType<typeof owner>[] = []): V1ConfigMap => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: NS, ownerReferences }, data: { k: name } });
  const exists = async (ref: ResourceRef, name: string, ns: string | undefined = NS) => client.get(ref, ns, name).then(() => true, () => false);

  before(async () => {
    // Objects stored before the collector starts: their owners are already gone.
    dataDir = mkdtempSync(join(tmpdir(), 'shipyard-gc-'));
    ts = await startTestServer({ dataDir });
    const kubeConfig = new KubeConfig();
    kubeConfig.loadFromFile(ts.server.kubeconfigPath);
    client = new ApiClient(kubeConfig);
    const live = await client.create<V1ConfigMap>(resources.configMaps, cm('live-owner'));
    await client.create(resources.configMaps, cm('dangling', [owner('ConfigMap', 'never-was', '00000000-0000-0000-0000-000000000001')]));
    await client.create(resources.configMaps, cm('half-owned', [owner('ConfigMap', 'live-owner', live.metadata!.uid!), owner('ConfigMap', 'gone', '00000000-0000-0000-0000-000000000002')]));
    client.close();
    await ts.stop();
    ts = await startTestServer({ dataDir, controllers: true });
    kubeConfig.loadFromFile(ts.server.kubeconfigPath);
    client = new ApiClient(kubeConfig);
  });
  after(async () => {
    client?.close();
    await ts?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('deletes what was left owned by an owner that is gone, found at start', async () => {
    await until('dangling configmap collected', async () => !(await exists(resources.configMaps, 'dangling')), POLL);
  });

  it('keeps an object with a live owner and drops its reference to the dead one', async () => {
    const cmNow = await until('reference to the gone owner dropped', async () => {
      const c = await client.get<V1ConfigMap>(resources.configMaps, NS, 'half-owned');
      return c.metadata?.ownerReferences?.length === 1 ? c : undefined;
    }, POLL);
    assert.equal(cmNow.metadata?.ownerReferences?.[0]?.name, 'live-owner');
  });

  it('a namesake with another uid is not the owner', async () => {
    const first = await client.create<V1ConfigMap>(resources.configMaps, cm('namesake'));
    const uid = first.metadata!.uid!;
    await client.delete(resources.configMaps, NS, 'namesake');
    await client.create(resources.configMaps, cm('namesake'));
    await client.create(resources.configMaps, cm('namesake-child', [owner('ConfigMap', 'namesake', uid)]));
    await until('child of the old namesake collected', async () => !(await exists(resources.configMaps, 'namesake-child')), POLL);
    assert.ok(await exists(resources.configMaps, 'namesake'), 'the new namesake stays');
  });

  it('a custom resource whose CRD appears later owns configmaps, and deleting it collects them', async () => {
    const crdRef = resources.customResourceDefinitions;
    await client.create(crdRef, {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'gadgets.gc.example.com' },
      spec: {
        group: 'gc.example.com',
        scope: 'Namespaced',
        names: { plural: 'gadgets', singular: 'gadget', kind: 'Gadget' },
        versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } }],
      },
    } as never);
    const gadgets: ResourceRef = { group: 'gc.example.com', version: 'v1', resource: 'gadgets', kind: 'Gadget', namespaced: true };
    const g = await until('gadget created', () => client.create<{ metadata?: { uid?: string } }>(gadgets, { apiVersion: 'gc.example.com/v1', kind: 'Gadget', metadata: { name: 'g1', namespace: NS } } as never).catch(() => undefined), POLL);
    // Owned by g1 and by a Gadget that never was. The collector must first know the Gadget is
    // alive (rediscovery every 2 s in tests) and must not collect meanwhile. When it has judged
    // both owners it drops the dead one's reference: that write shows it kept the configmap for g1.
    await client.create(resources.configMaps, cm('gadget-part', [owner('Gadget', 'g1', g.metadata!.uid!, 'gc.example.com/v1'), owner('Gadget', 'never-was', '00000000-0000-0000-0000-000000000003', 'gc.example.com/v1')]));
    const kept = await until('the reference to the Gadget that never was dropped', async () => {
      const c = await client.get<V1ConfigMap>(resources.configMaps, NS, 'gadget-part');
      return c.metadata?.ownerReferences?.length === 1 ? c : undefined;
    }, POLL);
    assert.equal(kept.metadata?.ownerReferences?.[0]?.name, 'g1', 'a configmap owned by a live custom resource stays');
    await client.delete(gadgets, NS, 'g1');
    await until('configmap owned by the deleted gadget collected', async () => !(await exists(resources.configMaps, 'gadget-part')), POLL);
  });

  it('a cluster-scoped owner (a Namespace object) collects namespaced dependents in other namespaces', async () => {
    const ns = await client.create<{ metadata?: { uid?: string } }>(resources.namespaces, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'gc-owner' } } as never);
    // As above, a second owner that never was: dropping its reference shows the collector judged the live one.
    await client.create(resources.configMaps, cm('ns-owned', [owner('Namespace', 'gc-owner', ns.metadata!.uid!), owner('Namespace', 'gc-never-was', '00000000-0000-0000-0000-000000000004')]));
    const kept = await until('the reference to the Namespace that never was dropped', async () => {
      const c = await client.get<V1ConfigMap>(resources.configMaps, NS, 'ns-owned');
      return c.metadata?.ownerReferences?.length === 1 ? c : undefined;
    }, POLL);
    assert.equal(kept.metadata?.ownerReferences?.[0]?.name, 'gc-owner', 'a configmap owned by a live Namespace stays');
    await client.delete(resources.namespaces, undefined, 'gc-owner');
    await until('configmap owned by the deleted namespace collected', async () => !(await exists(resources.configMaps, 'ns-owned')), POLL);
  });
});
