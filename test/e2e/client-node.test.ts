/**
 * Acceptance suite: @kubernetes/client-node 1.4.0 (the controller library) against the
 * embedded API server: informers (add/update/delete, recovery from 410 Gone by relisting),
 * optimistic concurrency (409), paginated lists, selectors and patch content types.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ApiException, CoreV1Api, KubeConfig, ListWatch, makeInformer, PatchStrategy, setHeaderOptions, type Informer, type ObjectCache, type V1ConfigMap } from '@kubernetes/client-node';
import { startTestServer, type TestServer } from '../support/server.ts';
import { assertExpiredEvent, openStream, pollUntil, withTimeout, type Json } from './support.ts';

interface Recorded {
  readonly events: { type: 'add' | 'update' | 'delete'; name: string; rv: string; data: Record<string, string> | undefined }[];
  readonly errors: unknown[];
  connects: number;
}

function record(informer: Informer<V1ConfigMap>): Recorded {
  const rec: Recorded = { events: [], errors: [], connects: 0 };
  for (const type of ['add', 'update', 'delete'] as const) {
    informer.on(type, (o: V1ConfigMap) => rec.events.push({ type, name: o.metadata?.name ?? '', rv: o.metadata?.resourceVersion ?? '', data: o.data }));
  }
  informer.on('error', (err?: unknown) => rec.errors.push(err));
  informer.on('connect', () => {
    rec.connects++;
  });
  return rec;
}

/** Errors other than the AbortError that stopping an informer produces. */
const realErrors = (rec: Recorded) => rec.errors.filter((e) => !(e instanceof Error && (e.name === 'AbortError' || /aborted/i.test(e.message))));

async function expectApiError(p: Promise<unknown>, code: number, what: string): Promise<Json> {
  try {
    await p;
  } catch (err) {
    assert.ok(err instanceof ApiException, `${what}: expected an ApiException, got ${String(err)}`);
    assert.equal(err.code, code, `${what}: ApiException code (body ${typeof err.body === 'string' ? err.body : JSON.stringify(err.body)})`);
    return typeof err.body === 'string' ? JSON.parse(err.body) : err.body;
  }
  assert.fail(`${what}: expected HTTP ${code}, but the call succeeded`);
}

describe('@kubernetes/client-node against the embedded API server', { timeout: 110_000 }, () => {
  let ts: TestServer;
  let kc: KubeConfig;
  let core: CoreV1Api;
  const informers: (Informer<V1ConfigMap> & ObjectCache<V1ConfigMap>)[] = [];

  const ns = async (name: string) => {
    await core.createNamespace({ body: { metadata: { name } } });
  };
  const cm = (namespace: string, name: string, data: Record<string, string>, labels?: Record<string, string>) => core.createNamespacedConfigMap({ namespace, body: { metadata: { name, labels }, data } });
  const informerFor = (namespace: string) => {
    const inf = makeInformer<V1ConfigMap>(kc, `/api/v1/namespaces/${namespace}/configmaps`, () => core.listNamespacedConfigMap({ namespace }));
    informers.push(inf);
    assert.ok(inf instanceof ListWatch, 'makeInformer returns a ListWatch');
    return inf as ListWatch<V1ConfigMap>;
  };
  const cacheState = (inf: ObjectCache<V1ConfigMap>, namespace: string) =>
    inf
      .list(namespace)
      .map((o) => `${o.metadata?.name}@${o.metadata?.resourceVersion}=${JSON.stringify(o.data)}`)
      .sort();
  const serverState = async (namespace: string) =>
    (await core.listNamespacedConfigMap({ namespace })).items.map((o) => `${o.metadata?.name}@${o.metadata?.resourceVersion}=${JSON.stringify(o.data)}`).sort();

  before(async () => {
    ts = await startTestServer();
    kc = new KubeConfig();
    kc.loadFromFile(ts.server.kubeconfigPath);
    core = kc.makeApiClient(CoreV1Api);
  });
  after(async () => {
    for (const inf of informers) await inf.stop();
    await ts?.stop();
  });

  it('an informer sees the initial list, then add, update and delete events', async () => {
    await ns('inf');
    await cm('inf', 'pre', { v: '0' });
    const inf = informerFor('inf');
    const rec = record(inf);
    await inf.start();
    await pollUntil('initial add of pre', async () => rec.events.some((e) => e.type === 'add' && e.name === 'pre'));

    const created = await cm('inf', 'a', { v: '1' });
    await pollUntil('add event for a', async () => rec.events.some((e) => e.type === 'add' && e.name === 'a'));
    assert.equal(inf.get('a', 'inf')?.metadata?.resourceVersion, created.metadata?.resourceVersion);

    const updated = await core.replaceNamespacedConfigMap({ name: 'a', namespace: 'inf', body: { ...created, data: { v: '2' } } });
    await pollUntil('update event for a with v=2', async () => rec.events.some((e) => e.type === 'update' && e.name === 'a' && e.data?.v === '2'));
    assert.equal(inf.get('a', 'inf')?.metadata?.resourceVersion, updated.metadata?.resourceVersion);
    assert.equal(inf.latestResourceVersion(), updated.metadata?.resourceVersion);

    await core.deleteNamespacedConfigMap({ name: 'a', namespace: 'inf' });
    await pollUntil('delete event for a', async () => rec.events.some((e) => e.type === 'delete' && e.name === 'a'));
    assert.equal(inf.get('a', 'inf'), undefined);
    assert.deepEqual(
      rec.events.map((e) => `${e.type}:${e.name}`),
      ['add:pre', 'add:a', 'update:a', 'delete:a'],
    );
    assert.deepEqual(cacheState(inf, 'inf'), await serverState('inf'));
    assert.deepEqual(realErrors(rec), []);
    await inf.stop();
  });

  it('a watch from a compacted resourceVersion gets ERROR 410 Expired; an informer relists and converges', async () => {
    await ns('inf2');
    await cm('inf2', 'c1', { v: '1' });
    await cm('inf2', 'c2', { v: '1' });
    const inf = informerFor('inf2');
    const rec = record(inf);
    await inf.start();
    await pollUntil('informer cache has c1 and c2', async () => inf.list('inf2').length === 2);
    await inf.stop();
    const oldRV = inf.latestResourceVersion();
    assert.match(oldRV, /^\d+$/);
    const connectsBefore = rec.connects;
    const errorsBefore = realErrors(rec).length;

    // Changes the stopped informer misses, then compaction past its resourceVersion.
    await cm('inf2', 'c3', { v: '1' });
    const c1 = await core.readNamespacedConfigMap({ name: 'c1', namespace: 'inf2' });
    await core.replaceNamespacedConfigMap({ name: 'c1', namespace: 'inf2', body: { ...c1, data: { v: '2' } } });
    await core.deleteNamespacedConfigMap({ name: 'c2', namespace: 'inf2' });
    await cm('inf2', 'tmp', { v: '1' });
    await core.deleteNamespacedConfigMap({ name: 'tmp', namespace: 'inf2' });
    const backend = ts.server.backend;
    await backend.compact(await backend.currentRevision());
    assert.ok(Number(oldRV) < (await backend.compactRevision()), `precondition: ${oldRV} is compacted (compact revision ${await backend.compactRevision()})`);

    // The raw protocol: HTTP 200, one ERROR event carrying a 410 Expired Status, then the server closes.
    const stream = openStream(ts, `/api/v1/namespaces/inf2/configmaps?watch=true&resourceVersion=${oldRV}`);
    try {
      const head = await withTimeout(stream.response, 10_000, 'watch response headers');
      await withTimeout(stream.ended, 10_000, 'the server closes a watch whose resourceVersion is compacted');
      assert.equal(head.status, 200, `watch with a compacted RV: expected 200 + ERROR event, got HTTP ${head.status} ${stream.lines.join('\n')}`);
      assert.equal(stream.lines.length, 1, `exactly one event: ${stream.lines.join('\n')}`);
      const ev = JSON.parse(stream.lines[0]);
      assertExpiredEvent(ev);
    } finally {
      stream.close();
    }

    // The informer restarts from its old resourceVersion, gets 410, relists and converges.
    await inf.start();
    const expected = await serverState('inf2');
    assert.deepEqual(expected.map((s) => s.split('@')[0]), ['c1', 'c3']);
    await pollUntil('informer cache matches the server after relist', async () => JSON.stringify(cacheState(inf, 'inf2')) === JSON.stringify(expected) || undefined, { timeoutMs: 15_000 }).catch((e: Error) => {
      throw new Error(`${e.message}\ncache: ${JSON.stringify(cacheState(inf, 'inf2'))}\nserver: ${JSON.stringify(expected)}\nerrors: ${realErrors(rec).map(String).join('; ')}`);
    });
    assert.ok(rec.connects > connectsBefore, 'the informer reconnected');
    assert.deepEqual(realErrors(rec).slice(errorsBefore).map(String), [], 'no errors surfaced: a 410 is handled by relisting');
    assert.ok(rec.events.some((e) => e.type === 'add' && e.name === 'c3'), 'relist adds c3');
    assert.ok(rec.events.some((e) => e.type === 'update' && e.name === 'c1' && e.data?.v === '2'), 'relist updates c1');
    assert.ok(rec.events.some((e) => e.type === 'delete' && e.name === 'c2'), 'relist deletes c2');
    assert.equal(rec.events.some((e) => e.name === 'tmp'), false, 'tmp was created and deleted while compacted away');

    // And it keeps watching live from the relisted revision.
    await cm('inf2', 'c4', { v: '1' });
    await pollUntil('live add of c4 after the relist', async () => inf.get('c4', 'inf2') !== undefined);
    assert.deepEqual(cacheState(inf, 'inf2'), await serverState('inf2'));
    await inf.stop();
  });

  it('a replace with a stale resourceVersion fails with 409 Conflict', async () => {
    await ns('occ');
    const v1 = await cm('occ', 'stale', { v: '1' });
    const v2 = await core.replaceNamespacedConfigMap({ name: 'stale', namespace: 'occ', body: { ...v1, data: { v: '2' } } });
    assert.notEqual(v2.metadata?.resourceVersion, v1.metadata?.resourceVersion);
    const status = await expectApiError(core.replaceNamespacedConfigMap({ name: 'stale', namespace: 'occ', body: { ...v1, data: { v: '3' } } }), 409, 'stale replace');
    assert.equal(status.kind, 'Status');
    assert.equal(status.reason, 'Conflict');
    assert.match(status.message, /the object has been modified/);
    assert.equal(status.details?.name, 'stale');
    const stored = await core.readNamespacedConfigMap({ name: 'stale', namespace: 'occ' });
    assert.deepEqual(stored.data, { v: '2' });
    assert.equal(stored.metadata?.resourceVersion, v2.metadata?.resourceVersion);
  });

  it('lists page with limit + continue on one consistent snapshot', async () => {
    await ns('paging');
    const names = ['p-0', 'p-1', 'p-2', 'p-3', 'p-4', 'p-5', 'p-6'];
    for (const n of names) await cm('paging', n, { n });
    const first = await core.listNamespacedConfigMap({ namespace: 'paging', limit: 3 });
    assert.equal(first.items.length, 3);
    assert.ok(first.metadata?._continue, 'a continue token when more items remain');
    if (first.metadata?.remainingItemCount !== undefined) assert.equal(first.metadata.remainingItemCount, 4);
    const snapshotRV = first.metadata?.resourceVersion;
    // Written after the first page: a continued list must not show it (it reads at the first page's revision).
    await cm('paging', 'p-9', { n: 'p-9' });
    const seen: (string | undefined)[] = first.items.map((i) => i.metadata?.name);
    let token: string | undefined = first.metadata?._continue;
    let pages = 1;
    while (token) {
      const page = await core.listNamespacedConfigMap({ namespace: 'paging', limit: 3, _continue: token });
      assert.ok(page.items.length <= 3);
      assert.equal(page.metadata?.resourceVersion, snapshotRV, 'every page reports the snapshot revision');
      seen.push(...page.items.map((i) => i.metadata?.name));
      token = page.metadata?._continue;
      assert.ok(++pages <= 5, 'paging terminates');
    }
    assert.equal(pages, 3);
    assert.deepEqual(seen, names, 'all items once, in key order, without the later p-9');
    const full = await core.listNamespacedConfigMap({ namespace: 'paging' });
    assert.deepEqual(full.items.map((i) => i.metadata?.name), [...names, 'p-9']);
    assert.equal(full.metadata?._continue ?? '', '');
  });

  it('a continue token older than the compaction point fails with 410 Expired', async () => {
    const first = await core.listNamespacedConfigMap({ namespace: 'paging', limit: 2 });
    assert.ok(first.metadata?._continue);
    await cm('paging', 'p-10', { n: 'p-10' });
    const backend = ts.server.backend;
    await backend.compact(await backend.currentRevision());
    const status = await expectApiError(core.listNamespacedConfigMap({ namespace: 'paging', limit: 2, _continue: first.metadata?._continue ?? '' }), 410, 'continue after compaction');
    assert.equal(status.reason, 'Expired');
    assert.match(status.message, /continue/);
  });

  it('label and field selectors filter lists', async () => {
    await ns('sel');
    await cm('sel', 's-gold', { a: '1' }, { tier: 'gold' });
    await cm('sel', 's-silver', { a: '1' }, { tier: 'silver' });
    await cm('sel', 's-none', { a: '1' });
    const names = async (labelSelector?: string, fieldSelector?: string) => (await core.listNamespacedConfigMap({ namespace: 'sel', labelSelector, fieldSelector })).items.map((i) => i.metadata?.name).sort();
    assert.deepEqual(await names('tier=gold'), ['s-gold']);
    assert.deepEqual(await names('tier in (gold,silver)'), ['s-gold', 's-silver']);
    assert.deepEqual(await names('tier!=gold'), ['s-none', 's-silver']);
    assert.deepEqual(await names('!tier'), ['s-none']);
    assert.deepEqual(await names('tier'), ['s-gold', 's-silver']);
    assert.deepEqual(await names('tier=gold,tier=silver'), []);
    assert.deepEqual(await names(undefined, 'metadata.name=s-silver'), ['s-silver']);
    assert.deepEqual(await names('tier', 'metadata.name!=s-silver'), ['s-gold']);
    // A labelled informer sees only its selection.
    const inf = makeInformer<V1ConfigMap>(kc, '/api/v1/namespaces/sel/configmaps', () => core.listNamespacedConfigMap({ namespace: 'sel', labelSelector: 'tier=gold' }), 'tier=gold');
    informers.push(inf);
    await inf.start();
    await pollUntil('selected informer lists s-gold', async () => inf.get('s-gold', 'sel') !== undefined);
    await cm('sel', 's-gold-2', { a: '1' }, { tier: 'gold' });
    await cm('sel', 's-bronze', { a: '1' }, { tier: 'bronze' });
    await pollUntil('selected informer adds s-gold-2', async () => inf.get('s-gold-2', 'sel') !== undefined);
    assert.deepEqual(inf.list('sel').map((o) => o.metadata?.name).sort(), ['s-gold', 's-gold-2']);
    await inf.stop();
  });

  it('patches: JSON patch by default, merge patch through setHeaderOptions', async () => {
    await ns('patching');
    await cm('patching', 'mp', { a: '1', b: '2' });
    const merged = await core.patchNamespacedConfigMap({ name: 'mp', namespace: 'patching', body: { data: { a: '10', b: null } } }, setHeaderOptions('Content-Type', PatchStrategy.MergePatch));
    assert.deepEqual(merged.data, { a: '10' });
    assert.deepEqual((await core.readNamespacedConfigMap({ name: 'mp', namespace: 'patching' })).data, { a: '10' });

    const jsonPatched = await core.patchNamespacedConfigMap({ name: 'mp', namespace: 'patching', body: [{ op: 'add', path: '/data/c', value: '3' }] });
    assert.deepEqual(jsonPatched.data, { a: '10', c: '3' });

    const strategic = await core.patchNamespacedConfigMap({ name: 'mp', namespace: 'patching', body: { metadata: { labels: { via: 'smp' } } } }, setHeaderOptions('Content-Type', PatchStrategy.StrategicMergePatch));
    assert.equal(strategic.metadata?.labels?.via, 'smp');

    const applied = await core.patchNamespacedConfigMap({ name: 'ssa', namespace: 'patching', fieldManager: 'client-node-test', body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'ssa', namespace: 'patching' }, data: { x: 'y' } } }, setHeaderOptions('Content-Type', PatchStrategy.ServerSideApply));
    assert.deepEqual(applied.data, { x: 'y' });
    const stored = await core.readNamespacedConfigMap({ name: 'ssa', namespace: 'patching' });
    assert.deepEqual(stored.data, { x: 'y' });
    assert.ok(stored.metadata?.managedFields?.some((m) => m.manager === 'client-node-test' && m.operation === 'Apply'), JSON.stringify(stored.metadata?.managedFields));

    const status = await expectApiError(core.patchNamespacedConfigMap({ name: 'mp', namespace: 'patching', body: [{ op: 'test', path: '/data/a', value: 'nope' }] }), 422, 'failed JSON patch test');
    assert.equal(status.reason, 'Invalid');
    assert.deepEqual((await core.readNamespacedConfigMap({ name: 'mp', namespace: 'patching' })).data, { a: '10', c: '3' });
  });
});
