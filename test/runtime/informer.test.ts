/**
 * The informer against the real Shipyard API server (style example 14): it must sync, follow
 * changes, keep its indexes right, relist when history it needs has been compacted away, and
 * outlive an API server restart, reconnecting by itself.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, it } from 'node:test';
import { CoreV1Api, KubeConfig, type V1ConfigMap } from '@kubernetes/client-node';
import { createInformer, type Informer } from '../../src/runtime/informer.ts';
import type { DeepReadonly } from '../../src/runtime/readonly.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { until } from '../support/until.ts';

const APP_INDEX = 'by-app';

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

function clientFor(ts: TestServer): { kc: KubeConfig; core: CoreV1Api } {
  const kc = new KubeConfig();
  kc.loadFromFile(ts.server.kubeconfigPath);
  return { kc, core: kc.makeApiClient(CoreV1Api) };
}

function cm(namespace: string, name: string, app: string, data: Record<string, string> = {}): V1ConfigMap {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { namespace, name, labels: { app } }, data };
}

async function ensureNamespace(core: CoreV1Api, name: string): Promise<void> {
  await core.createNamespace({ body: { metadata: { name } } }).catch((err: { code?: number }) => {
    if (err.code !== 409) throw err;
  });
}

interface Recorded {
  adds: string[];
  updates: string[];
  deletes: string[];
  errors: unknown[];
}

function start(kc: KubeConfig, core: CoreV1Api, signal: AbortSignal, extra: { labelSelector?: string } = {}): { informer: Informer<V1ConfigMap>; rec: Recorded } {
  const rec: Recorded = { adds: [], updates: [], deletes: [], errors: [] };
  const key = (o: DeepReadonly<V1ConfigMap>): string => `${o.metadata?.namespace}/${o.metadata?.name}`;
  const informer = createInformer<V1ConfigMap>({
    kubeConfig: kc,
    path: '/api/v1/configmaps',
    list: (sel) => core.listConfigMapForAllNamespaces(sel),
    ...extra,
    indexers: { [APP_INDEX]: (o) => (o.metadata?.labels?.app ? [o.metadata.labels.app] : []) },
    signal,
    onError: (err) => rec.errors.push(err),
    // Short backoff so a restart is noticed within the test's deadlines.
    backoff: { initialMs: 50, maxMs: 400 },
  });
  informer.on('add', (o) => rec.adds.push(key(o)));
  informer.on('update', (o) => rec.updates.push(key(o)));
  informer.on('delete', (o) => rec.deletes.push(key(o)));
  return { informer, rec };
}

const names = (objs: readonly DeepReadonly<V1ConfigMap>[]): string[] => objs.map((o) => o.metadata!.name!).sort();

describe('runtime/informer', () => {
  // Each test's servers and directories go when that test ends, not when the suite does.
  const cleanups: (() => Promise<void>)[] = [];
  afterEach(async () => {
    // One failing cleanup must not leave the others' servers running or directories behind.
    const failures: unknown[] = [];
    for (const c of cleanups.splice(0).reverse()) await c().catch((err: unknown) => failures.push(err));
    if (failures.length > 0) throw failures[0];
  });

  it('syncs existing objects, follows add/update/delete and keeps its indexes right', async () => {
    const ts = await startTestServer();
    cleanups.push(() => ts.stop());
    const { kc, core } = clientFor(ts);
    await ensureNamespace(core, 'a');
    await ensureNamespace(core, 'b');
    await core.createNamespacedConfigMap({ namespace: 'a', body: cm('a', 'one', 'web') });
    await core.createNamespacedConfigMap({ namespace: 'b', body: cm('b', 'two', 'db') });

    const ac = new AbortController();
    cleanups.push(async () => ac.abort());
    const { informer, rec } = start(kc, core, ac.signal);
    await informer.waitForSync();
    assert.ok(informer.hasSynced());
    assert.ok(informer.store.get('a/one'));
    assert.ok(informer.store.get('b/two'));
    assert.deepEqual(names(informer.store.byIndex('namespace', 'a')), ['one']);
    assert.deepEqual(names(informer.store.byIndex(APP_INDEX, 'db')), ['two']);
    assert.throws(() => informer.store.byIndex('no-such-index', 'x'), /no index/);

    // Cached objects are frozen: a handler that tried to mutate one would fail loudly.
    const cached = informer.store.get('a/one')!;
    assert.throws(() => {
      (cached.metadata as { name?: string }).name = 'changed';
    }, TypeError);

    await core.createNamespacedConfigMap({ namespace: 'a', body: cm('a', 'three', 'db') });
    await until('add of a/three', () => rec.adds.includes('a/three'));
    assert.deepEqual(names(informer.store.byIndex(APP_INDEX, 'db')), ['three', 'two']);
    assert.deepEqual(names(informer.store.byIndex('namespace', 'a')), ['one', 'three']);

    // A relabel moves the object between index values instead of leaving a stale entry.
    await core.patchNamespacedConfigMap({ namespace: 'a', name: 'one', body: [{ op: 'replace', path: '/metadata/labels/app', value: 'db' }] });
    await until('update of a/one', () => rec.updates.includes('a/one'));
    assert.deepEqual(names(informer.store.byIndex(APP_INDEX, 'web')), []);
    assert.deepEqual(names(informer.store.byIndex(APP_INDEX, 'db')), ['one', 'three', 'two']);

    await core.deleteNamespacedConfigMap({ namespace: 'b', name: 'two' });
    await until('delete of b/two', () => rec.deletes.includes('b/two'));
    assert.equal(informer.store.get('b/two'), undefined);
    assert.deepEqual(names(informer.store.byIndex('namespace', 'b')), []);
    assert.deepEqual(names(informer.store.byIndex(APP_INDEX, 'db')), ['one', 'three']);

    // A late add handler is first told about everything already cached.
    const late: string[] = [];
    informer.on('add', (o) => late.push(o.metadata!.name!));
    assert.deepEqual(late.sort(), ['one', 'three']);

    ac.abort();
    await informer.done;
    assert.equal(rec.errors.length, 0, `unexpected errors: ${rec.errors.map(String).join('; ')}`);
  });

  it('applies its label selector to both the list and the watch', async () => {
    const ts = await startTestServer();
    cleanups.push(() => ts.stop());
    const { kc, core } = clientFor(ts);
    await ensureNamespace(core, 'a');
    await core.createNamespacedConfigMap({ namespace: 'a', body: cm('a', 'web1', 'web') });
    await core.createNamespacedConfigMap({ namespace: 'a', body: cm('a', 'db1', 'db') });
    const ac = new AbortController();
    cleanups.push(async () => ac.abort());
    const { informer, rec } = start(kc, core, ac.signal, { labelSelector: 'app=web' });
    await informer.waitForSync();
    assert.deepEqual(informer.store.keys(), ['a/web1']);
    await core.createNamespacedConfigMap({ namespace: 'a', body: cm('a', 'db2', 'db') });
    await core.createNamespacedConfigMap({ namespace: 'a', body: cm('a', 'web2', 'web') });
    await until('add of a/web2', () => rec.adds.includes('a/web2'));
    assert.deepEqual(informer.store.keys().sort(), ['a/web1', 'a/web2']);
    ac.abort();
    await informer.done;
  });

  it('asks for bookmarks, so changes its selector filters out still advance its resourceVersion', async () => {
    const ts = await startTestServer({ bookmarkIntervalMs: 100 });
    cleanups.push(() => ts.stop());
    const { kc, core } = clientFor(ts);
    await ensureNamespace(core, 'a');
    const ac = new AbortController();
    cleanups.push(async () => ac.abort());
    const { informer, rec } = start(kc, core, ac.signal, { labelSelector: 'app=web' });
    await informer.waitForSync();
    const listed = Number(informer.resourceVersion());
    // A ConfigMap the selector hides: no event reaches the informer, only a bookmark can.
    const hidden = await core.createNamespacedConfigMap({ namespace: 'a', body: cm('a', 'hidden', 'db') });
    const target = Number(hidden.metadata!.resourceVersion);
    assert.ok(target > listed);
    await until('a bookmark to carry the new revision', () => Number(informer.resourceVersion()) >= target);
    assert.deepEqual(rec.adds, []);
    ac.abort();
    await informer.done;
  });

  it('survives an API server restart, and relists when its history was compacted meanwhile', async () => {
    const port = await freePort();
    // Our own data directory: the harness deletes one it created when its server stops.
    const dataDir = mkdtempSync(join(tmpdir(), 'shipyard-informer-'));
    cleanups.push(async () => rmSync(dataDir, { recursive: true, force: true }));
    let ts = await startTestServer({ port, dataDir });
    // Whichever server is up when the test ends (stopping one twice is harmless).
    cleanups.push(() => ts.stop());
    const { kc, core } = clientFor(ts);
    await ensureNamespace(core, 'a');
    await core.createNamespacedConfigMap({ namespace: 'a', body: cm('a', 'keep', 'web') });
    await core.createNamespacedConfigMap({ namespace: 'a', body: cm('a', 'doomed', 'web') });
    await core.createNamespacedConfigMap({ namespace: 'a', body: cm('a', 'changed', 'web', { v: '1' }) });

    const ac = new AbortController();
    cleanups.push(async () => {
      ac.abort();
    });
    const { informer, rec } = start(kc, core, ac.signal);
    await informer.waitForSync();
    assert.equal(informer.store.size, 3);

    // 1. A plain restart on the same data directory and port: the informer must reconnect.
    await ts.stop();
    const errorsWhileDown = rec.errors.length;
    await until('a failed reconnect attempt', () => rec.errors.length > errorsWhileDown);
    ts = await startTestServer({ port, dataDir });
    let client = clientFor(ts).core;
    await client.createNamespacedConfigMap({ namespace: 'a', body: cm('a', 'after-restart', 'db') });
    await until('add of a/after-restart', () => rec.adds.includes('a/after-restart'));
    assert.deepEqual(names(informer.store.byIndex(APP_INDEX, 'db')), ['after-restart']);

    // 2. While the informer is cut off, change things on another port and compact away the
    // history it would need, then bring the server back on its port: only a relist can
    // tell it that `doomed` is gone.
    await ts.stop();
    const side = await startTestServer({ dataDir });
    cleanups.push(() => side.stop());
    client = clientFor(side).core;
    await client.deleteNamespacedConfigMap({ namespace: 'a', name: 'doomed' });
    await client.patchNamespacedConfigMap({ namespace: 'a', name: 'changed', body: [{ op: 'replace', path: '/data/v', value: '2' }] });
    await client.createNamespacedConfigMap({ namespace: 'a', body: cm('a', 'while-away', 'db') });
    await side.server.backend.compact(await side.server.backend.currentRevision());
    await side.stop();
    // The informer's own words for it: a bare /410/ also matched refused connections to ports 410xx.
    const gone = (): boolean => rec.errors.some((e) => /\(410 Gone\)/.test(String(e)));
    assert.equal(gone(), false);

    ts = await startTestServer({ port, dataDir });
    await until('the relist to report the deletion', () => rec.deletes.includes('a/doomed'));
    assert.ok(gone(), 'the informer should have seen 410 Gone');
    assert.equal(informer.store.get('a/doomed'), undefined);
    assert.equal(informer.store.get('a/changed')?.data?.v, '2');
    assert.ok(rec.adds.includes('a/while-away'));
    assert.ok(rec.updates.includes('a/changed'));
    // Unchanged objects are not reported as updates by the relist.
    assert.equal(rec.updates.includes('a/keep'), false);
    assert.deepEqual(names(informer.store.byIndex(APP_INDEX, 'db')), ['after-restart', 'while-away']);

    // And it is still watching after all that.
    client = clientFor(ts).core;
    await client.deleteNamespacedConfigMap({ namespace: 'a', name: 'keep' });
    await until('delete of a/keep', () => rec.deletes.includes('a/keep'));
    ac.abort();
    await informer.done;
  });
});
