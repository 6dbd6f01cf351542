/**
 * The shared informers as controllers get them: caches without managedFields (as kube's
 * components keep them), metadata-only informers for a controller that reads nothing else,
 * and `existing`, which lets such a controller reuse a full informer instead of opening a
 * second watch. Against the real API server (style example 14).
 */
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { KubeConfig, type V1ConfigMap } from '@kubernetes/client-node';
import { ApiClient } from '../../src/runtime/client.ts';
import { InformerFactory } from '../../src/runtime/informer-factory.ts';
import { resources } from '../../src/runtime/resources.ts';
import { startTestServer } from '../support/server.ts';
import { until } from '../support/until.ts';

describe('runtime/informer-factory', () => {
  const cleanups: (() => Promise<void> | void)[] = [];
  after(async () => {
    for (const c of cleanups.reverse()) await c();
  });

  async function setup(): Promise<{ client: ApiClient; factory: InformerFactory; stop: AbortController }> {
    const ts = await startTestServer();
    cleanups.push(() => ts.stop());
    const kc = new KubeConfig();
    kc.loadFromFile(ts.server.kubeconfigPath);
    const client = new ApiClient(kc, { userAgent: 'informer-factory-test' });
    const stop = new AbortController();
    cleanups.push(() => {
      stop.abort();
      client.close();
    });
    return { client, factory: new InformerFactory({ client, signal: stop.signal }), stop };
  }

  const configMap = (name: string, data: Record<string, string>, owner?: string): V1ConfigMap => ({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name, namespace: 'default', labels: { app: 'web' }, ...(owner ? { ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'owner', uid: owner }] } : {}) },
    data,
  });

  it('caches full objects without managedFields, listed or watched', async () => {
    const { client, factory } = await setup();
    await client.create(resources.configMaps, configMap('listed', { a: '1' }));
    const informer = factory.informer<V1ConfigMap>(resources.configMaps, { namespace: 'default' });
    await informer.waitForSync();
    const stored = await client.get<V1ConfigMap>(resources.configMaps, 'default', 'listed');
    assert.ok(stored.metadata?.managedFields?.length, 'the server keeps managedFields');
    assert.equal(informer.store.get('default/listed')?.metadata?.managedFields, undefined);
    assert.deepEqual(informer.store.get('default/listed')?.data, { a: '1' });
    await client.create(resources.configMaps, configMap('watched', { b: '2' }));
    await until('the watched ConfigMap', () => informer.store.get('default/watched') !== undefined);
    assert.equal(informer.store.get('default/watched')?.metadata?.managedFields, undefined);
    assert.deepEqual(informer.store.get('default/watched')?.data, { b: '2' });
    assert.equal(factory.existing(resources.configMaps, { namespace: 'default' }), informer);
  });

  it('keeps only metadata in a metadata informer, and starts no full one', async () => {
    const { client, factory } = await setup();
    await client.create(resources.configMaps, configMap('first', { big: 'x'.repeat(1000) }, 'u-1'));
    const informer = factory.metadataInformer(resources.configMaps);
    await informer.waitForSync();
    const first = informer.store.get('default/first');
    assert.equal(first?.metadata.ownerReferences?.[0]?.uid, 'u-1');
    assert.deepEqual(first?.metadata.labels, { app: 'web' });
    assert.equal((first as { data?: unknown } | undefined)?.data, undefined, 'no data in a metadata informer');
    assert.equal(first?.metadata.managedFields, undefined);

    await client.create(resources.configMaps, configMap('second', { big: 'y' }));
    await until('the second ConfigMap', () => informer.store.get('default/second') !== undefined);
    assert.equal((informer.store.get('default/second') as { data?: unknown }).data, undefined);
    await client.patch(resources.configMaps, 'default', 'second', { metadata: { labels: { app: 'db' } } });
    await until('the relabel', () => informer.store.get('default/second')?.metadata.labels?.app === 'db');
    await client.delete(resources.configMaps, 'default', 'first');
    await until('the delete', () => informer.store.get('default/first') === undefined);
    assert.equal(factory.existing(resources.configMaps), undefined, 'a metadata informer is not a full one');
  });
});
