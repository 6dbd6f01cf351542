/**
 * Acceptance suite: the object semantics controllers rely on, asserted on the resulting
 * state (read back after every write): generation, the status subresource, finalizers and
 * deletionTimestamp, generateName, immutable metadata, list paging and continue tokens,
 * resourceVersionMatch=Exact, multi-version CRDs, CRD schema features (int-or-string,
 * preserve-unknown-fields, embedded resources, defaults), CRD deletion, pods/binding, the
 * scale subresource, /metrics, the public health endpoints and OpenAPI v3 for CRDs.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestServer, type TestServer } from '../support/server.ts';
import { assertFailureStatus, getObject, kubectlOk, openStream, pollUntil, sendJson, statusText, withTimeout, type Json, type StreamHandle } from './support.ts';

const CRDS = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';
const AGGREGATED = 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json';

const cmPath = (ns: string, name?: string) => `/api/v1/namespaces/${ns}/configmaps${name ? `/${name}` : ''}`;
const deployPath = (ns: string, name?: string) => `/apis/apps/v1/namespaces/${ns}/deployments${name ? `/${name}` : ''}`;

const deployment = (name: string, labels: Record<string, string> = { app: name }, replicas = 1): Json => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name },
  spec: { replicas, selector: { matchLabels: labels }, template: { metadata: { labels }, spec: { containers: [{ name: 'c', image: 'nginx:1.27' }] } } },
});

/** A namespaced CRD with one served+storage version v1 (unless `versions` is given). */
function crd(group: string, kind: string, plural: string, schema: Json, extra: { subresources?: Json; versions?: Json[]; conversion?: Json } = {}): Json {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${plural}.${group}` },
    spec: {
      group,
      scope: 'Namespaced',
      names: { plural, singular: kind.toLowerCase(), kind, listKind: `${kind}List` },
      versions: extra.versions ?? [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: schema }, ...(extra.subresources ? { subresources: extra.subresources } : {}) }],
      ...(extra.conversion ? { conversion: extra.conversion } : {}),
    },
  };
}

const gadgetSchema: Json = {
  type: 'object',
  properties: {
    spec: { type: 'object', properties: { size: { type: 'string' }, replicas: { type: 'integer' } } },
    status: { type: 'object', properties: { phase: { type: 'string' }, observedGeneration: { type: 'integer' } } },
  },
};

describe('resource semantics', { timeout: 58_000 }, () => {
  let ts: TestServer;
  const streams: StreamHandle[] = [];

  const ns = async (name: string) => {
    const r = await sendJson(ts, 'POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
    assert.equal(r.status, 201, `create namespace ${name}: ${r.text}`);
  };
  const ok = async (method: string, path: string, body?: unknown, contentType?: string, expect = method === 'POST' ? 201 : 200): Promise<Json> => {
    const r = await sendJson(ts, method, path, body, contentType);
    assert.equal(r.status, expect, `${method} ${path} → ${r.status} ${r.text.slice(0, 800)}`);
    return r.body;
  };
  const get = async (path: string): Promise<Json> => {
    const o = await getObject(ts, path);
    assert.ok(o !== undefined, `GET ${path} → 404`);
    return o;
  };
  /** Creates a CRD and waits until it is Established and its list endpoint answers. */
  const createCrd = async (def: Json, listPath: string): Promise<Json> => {
    await ok('POST', CRDS, def);
    await pollUntil(`CRD ${def.metadata.name} Established`, async () => {
      const c = await getObject(ts, `${CRDS}/${def.metadata.name}`);
      return c?.status?.conditions?.some((x: Json) => x.type === 'Established' && x.status === 'True');
    });
    await pollUntil(`${listPath} served`, async () => (await ts.request('GET', listPath, { accept: 'application/json' })).status === 200);
    return get(`${CRDS}/${def.metadata.name}`);
  };

  before(async () => {
    ts = await startTestServer();
    await ns('sem');
    await createCrd(crd('semantics.example.com', 'Gadget', 'gadgets', gadgetSchema, { subresources: { status: {} } }), '/apis/semantics.example.com/v1/namespaces/sem/gadgets');
  });
  after(async () => {
    for (const s of streams) s.close();
    await ts?.stop();
  });

  const G = (name?: string) => `/apis/semantics.example.com/v1/namespaces/sem/gadgets${name ? `/${name}` : ''}`;
  const merge = 'application/merge-patch+json';

  describe('generation', () => {
    it('a Deployment starts at generation 1 and bumps only on spec changes', async () => {
      const created = await ok('POST', deployPath('sem'), deployment('gen'));
      assert.equal(created.metadata.generation, 1);
      const path = deployPath('sem', 'gen');
      const steps: { what: string; write: () => Promise<unknown>; generation: number }[] = [
        { what: 'label', write: () => ok('PATCH', path, { metadata: { labels: { x: 'y' } } }, merge), generation: 1 },
        { what: 'annotation', write: () => ok('PATCH', path, { metadata: { annotations: { note: 'n' } } }, merge), generation: 1 },
        { what: 'status via /status', write: () => ok('PATCH', `${path}/status`, { status: { observedGeneration: 1, replicas: 1 } }, merge), generation: 1 },
        { what: 'finalizer', write: () => ok('PATCH', path, { metadata: { finalizers: ['example.com/keep'] } }, merge), generation: 1 },
        { what: 'finalizer removed', write: () => ok('PATCH', path, { metadata: { finalizers: null } }, merge), generation: 1 },
        { what: 'spec.replicas', write: () => ok('PATCH', path, { spec: { replicas: 2 } }, merge), generation: 2 },
        { what: 'pod template', write: () => ok('PATCH', path, { spec: { template: { spec: { containers: [{ name: 'c', image: 'nginx:1.28' }] } } } }, merge), generation: 3 },
        { what: 'label again', write: () => ok('PATCH', path, { metadata: { labels: { x: 'z' } } }, merge), generation: 3 },
      ];
      for (const s of steps) {
        await s.write();
        const d = await get(path);
        assert.equal(d.metadata.generation, s.generation, `generation after a ${s.what} change`);
      }
      const d = await get(path);
      assert.equal(d.spec.replicas, 2);
      assert.equal(d.spec.template.spec.containers[0].image, 'nginx:1.28');
      assert.equal(d.status.observedGeneration, 1);
    });

    it('a custom resource with a status subresource bumps generation only on spec changes', async () => {
      const created = await ok('POST', G(), { apiVersion: 'semantics.example.com/v1', kind: 'Gadget', metadata: { name: 'gen' }, spec: { size: 'S' } });
      assert.equal(created.metadata.generation, 1);
      const path = G('gen');
      const steps: { what: string; write: () => Promise<unknown>; generation: number }[] = [
        { what: 'label', write: () => ok('PATCH', path, { metadata: { labels: { x: 'y' } } }, merge), generation: 1 },
        { what: 'annotation', write: () => ok('PATCH', path, { metadata: { annotations: { note: 'n' } } }, merge), generation: 1 },
        { what: 'status via /status', write: () => ok('PATCH', `${path}/status`, { status: { phase: 'Ready' } }, merge), generation: 1 },
        { what: 'spec', write: () => ok('PATCH', path, { spec: { size: 'M' } }, merge), generation: 2 },
        { what: 'spec again', write: () => ok('PATCH', path, { spec: { replicas: 3 } }, merge), generation: 3 },
        { what: 'label again', write: () => ok('PATCH', path, { metadata: { labels: { x: 'z' } } }, merge), generation: 3 },
      ];
      for (const s of steps) {
        await s.write();
        const g = await get(path);
        assert.equal(g.metadata.generation, s.generation, `generation after a ${s.what} change`);
      }
      const g = await get(path);
      assert.deepEqual(g.spec, { size: 'M', replicas: 3 });
      assert.deepEqual(g.status, { phase: 'Ready' });
    });

    it('a write that changes nothing keeps resourceVersion and generation', async () => {
      const path = deployPath('sem', 'gen');
      const before = await get(path);
      const after = await ok('PATCH', path, { spec: { replicas: before.spec.replicas } }, merge);
      assert.equal(after.metadata.resourceVersion, before.metadata.resourceVersion, 'a no-op patch does not write a new revision');
      assert.equal(after.metadata.generation, before.metadata.generation);
      const put = await ok('PUT', path, before);
      assert.equal(put.metadata.resourceVersion, before.metadata.resourceVersion, 'a no-op PUT does not write a new revision');
    });
  });

  describe('status subresource', () => {
    it('Deployment: a /status PUT changes only status; a main-resource PUT ignores status', async () => {
      await ok('POST', deployPath('sem'), deployment('st', { app: 'st' }, 1));
      const path = deployPath('sem', 'st');
      const cur = await get(path);
      const body = structuredClone(cur);
      body.spec.replicas = 7;
      body.metadata.labels = { changed: 'by-status-write' };
      body.status = { replicas: 1, observedGeneration: 1, readyReplicas: 1 };
      const r1 = await ok('PUT', `${path}/status`, body);
      assert.equal(r1.status.readyReplicas, 1);
      let d = await get(path);
      assert.deepEqual(d.status, { replicas: 1, observedGeneration: 1, readyReplicas: 1 }, 'status written');
      assert.equal(d.spec.replicas, 1, 'spec in a /status body is ignored');
      assert.deepEqual(d.metadata.labels, cur.metadata.labels, 'labels in a Deployment /status body are ignored');
      assert.equal(d.metadata.generation, 1);

      const main = structuredClone(d);
      main.spec.replicas = 3;
      main.status = { replicas: 99, observedGeneration: 42 };
      const r2 = await ok('PUT', path, main);
      assert.equal(r2.spec.replicas, 3);
      d = await get(path);
      assert.equal(d.spec.replicas, 3, 'spec written');
      assert.deepEqual(d.status, { replicas: 1, observedGeneration: 1, readyReplicas: 1 }, 'status in a main-resource PUT is ignored');
      assert.equal(d.metadata.generation, 2);

      // The same through PATCH.
      await ok('PATCH', path, { spec: { replicas: 4 }, status: { replicas: 55 } }, merge);
      await ok('PATCH', `${path}/status`, { spec: { replicas: 9 }, status: { replicas: 2 } }, merge);
      d = await get(path);
      assert.equal(d.spec.replicas, 4);
      assert.equal(d.status.replicas, 2);
    });

    it('custom resource: a /status PUT changes only status; a main-resource PUT ignores status', async () => {
      await ok('POST', G(), { apiVersion: 'semantics.example.com/v1', kind: 'Gadget', metadata: { name: 'st', labels: { a: 'b' } }, spec: { size: 'S' }, status: { phase: 'IgnoredOnCreate' } });
      const path = G('st');
      const cur = await get(path);
      assert.equal(cur.status, undefined, 'status on create is dropped when the status subresource is on');
      const body = structuredClone(cur);
      body.spec = { size: 'L' };
      body.metadata.labels = { changed: 'by-status-write' };
      body.status = { phase: 'Ready' };
      await ok('PUT', `${path}/status`, body);
      let g = await get(path);
      assert.deepEqual(g.status, { phase: 'Ready' });
      assert.deepEqual(g.spec, { size: 'S' }, 'spec in a /status body is ignored');
      assert.deepEqual(g.metadata.labels, { a: 'b' }, 'metadata in a custom resource /status body is ignored');
      assert.equal(g.metadata.generation, 1);

      const main = structuredClone(g);
      main.spec = { size: 'M' };
      main.status = { phase: 'Hacked' };
      await ok('PUT', path, main);
      g = await get(path);
      assert.deepEqual(g.spec, { size: 'M' });
      assert.deepEqual(g.status, { phase: 'Ready' }, 'status in a main-resource PUT is ignored');
      assert.equal(g.metadata.generation, 2);
    });
  });

  it('finalizers: DELETE sets deletionTimestamp, no new finalizers while deleting (422), removing the last one deletes', async () => {
    const path = G('fin');
    await ok('POST', G(), { apiVersion: 'semantics.example.com/v1', kind: 'Gadget', metadata: { name: 'fin', finalizers: ['example.com/a', 'example.com/b'] }, spec: { size: 'S' } });
    const del = await sendJson(ts, 'DELETE', path);
    assert.ok(del.status === 200 || del.status === 202, `DELETE → ${del.status} ${del.text}`);
    assert.ok(del.body?.metadata?.deletionTimestamp, `DELETE returns the lingering object with deletionTimestamp: ${del.text.slice(0, 400)}`);
    let g = await get(path);
    assert.ok(g.metadata.deletionTimestamp, 'object still readable, with deletionTimestamp');
    assert.equal(g.metadata.deletionGracePeriodSeconds, 0);
    assert.equal(g.metadata.generation, 2, 'setting deletionTimestamp bumps generation');
    assert.deepEqual(g.metadata.finalizers, ['example.com/a', 'example.com/b']);
    const ts0 = g.metadata.deletionTimestamp;

    const add = await sendJson(ts, 'PATCH', path, { metadata: { finalizers: ['example.com/a', 'example.com/b', 'example.com/c'] } }, merge);
    const st = assertFailureStatus({ status: add.status, body: add.text }, 422, 'Invalid', 'adding a finalizer while deleting');
    assert.match(statusText(st), /no new finalizers can be added if the object is being deleted/);
    g = await get(path);
    assert.deepEqual(g.metadata.finalizers, ['example.com/a', 'example.com/b'], 'finalizers unchanged after the refused write');

    // A second DELETE does not move the deletionTimestamp.
    const again = await sendJson(ts, 'DELETE', path);
    assert.ok(again.status === 200 || again.status === 202, `second DELETE → ${again.status} ${again.text}`);
    await ok('PATCH', path, { metadata: { finalizers: ['example.com/b'] } }, merge);
    g = await get(path);
    assert.deepEqual(g.metadata.finalizers, ['example.com/b'], 'removing one finalizer keeps the object');
    assert.equal(g.metadata.deletionTimestamp, ts0, 'deletionTimestamp unchanged');

    await ok('PATCH', path, [{ op: 'remove', path: '/metadata/finalizers' }], 'application/json-patch+json');
    assert.equal(await getObject(ts, path), undefined, 'the write that removes the last finalizer deletes the object (GET 404)');
    const list = await get(G());
    assert.ok(!list.items.some((i: Json) => i.metadata.name === 'fin'), 'gone from the list too');
  });

  it('generateName produces the prefix plus 5 characters', async () => {
    const names = new Set<string>();
    for (let i = 0; i < 3; i++) {
      const o = await ok('POST', cmPath('sem'), { apiVersion: 'v1', kind: 'ConfigMap', metadata: { generateName: 'gen-' }, data: { i: String(i) } });
      assert.match(o.metadata.name, /^gen-[a-z0-9]{5}$/);
      assert.equal(o.metadata.generateName, 'gen-');
      const stored = await get(cmPath('sem', o.metadata.name));
      assert.deepEqual(stored.data, { i: String(i) });
      names.add(o.metadata.name);
    }
    assert.equal(names.size, 3, 'each generated name is distinct');
  });

  it('uid and creationTimestamp are set and immutable; an update cannot rename', async () => {
    const created = await ok('POST', cmPath('sem'), { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'imm' }, data: { a: '1' } });
    assert.match(created.metadata.uid, /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    assert.match(created.metadata.creationTimestamp, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    const path = cmPath('sem', 'imm');
    const cur = await get(path);

    const uidChange = structuredClone(cur);
    uidChange.metadata.uid = '00000000-0000-0000-0000-000000000001';
    uidChange.data = { a: 'uid' };
    // A PUT body's uid is a precondition (rest.DefaultUpdatedObjectInfo): a different one → 409 Conflict.
    const r1 = await sendJson(ts, 'PUT', path, uidChange);
    const s1 = assertFailureStatus({ status: r1.status, body: r1.text }, 409, 'Conflict', 'PUT changing metadata.uid');
    assert.match(s1.message ?? '', /Precondition failed: UID in precondition/);

    const tsChange = structuredClone(cur);
    tsChange.metadata.creationTimestamp = '2001-01-01T00:00:00Z';
    tsChange.data = { a: 'ts' };
    const r2 = await sendJson(ts, 'PUT', path, tsChange);
    assert.equal(r2.status, 200, `PUT changing creationTimestamp is accepted, the change ignored: ${r2.text}`);
    assert.equal(r2.body.metadata.creationTimestamp, cur.metadata.creationTimestamp);

    const rename = structuredClone(r2.body);
    rename.metadata.name = 'imm-renamed';
    const r3 = await sendJson(ts, 'PUT', path, rename);
    assert.ok(r3.status === 400 || r3.status === 422, `PUT changing metadata.name → ${r3.status} ${r3.text}`);
    const r4 = await sendJson(ts, 'PATCH', path, { metadata: { name: 'imm-renamed' } }, merge);
    assert.ok(r4.status === 400 || r4.status === 422, `PATCH changing metadata.name → ${r4.status} ${r4.text}`);

    const now = await get(path);
    assert.equal(now.metadata.uid, cur.metadata.uid, 'uid unchanged');
    assert.equal(now.metadata.creationTimestamp, cur.metadata.creationTimestamp, 'creationTimestamp unchanged');
    assert.deepEqual(now.data, { a: 'ts' });
    assert.equal(await getObject(ts, cmPath('sem', 'imm-renamed')), undefined, 'no renamed object was created');
  });

  it('a PATCH changing metadata.uid is refused as an immutable-field change (422)', async () => {
    const created = await ok('POST', cmPath('sem'), { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'imm-patch' }, data: { a: '1' } });
    const path = cmPath('sem', 'imm-patch');
    // PATCH builds its UpdatedObjectInfo with no object (rest.DefaultUpdatedObjectInfo(nil, …)), so there is
    // no uid precondition: the patched object fails ValidateObjectMetaUpdate instead.
    const r = await sendJson(ts, 'PATCH', path, { metadata: { uid: '00000000-0000-0000-0000-000000000002' }, data: { a: 'uid-patch' } }, merge);
    const st = assertFailureStatus({ status: r.status, body: r.text }, 422, 'Invalid', 'PATCH changing metadata.uid');
    assert.match(statusText(st), /metadata\.uid/);
    assert.match(statusText(st), /field is immutable/);
    const now = await get(path);
    assert.equal(now.metadata.uid, created.metadata.uid);
    assert.deepEqual(now.data, { a: '1' });
  });

  it('list limit+continue pages through 25 objects exactly once each, at one snapshot; an expired continue gets 410', async () => {
    await ns('paging');
    const want: string[] = [];
    for (let i = 0; i < 25; i++) {
      const name = `p${String(i).padStart(2, '0')}`;
      want.push(name);
      await ok('POST', cmPath('paging'), { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { i: String(i) } });
    }
    const seen: string[] = [];
    const sizes: number[] = [];
    let token: string | undefined;
    let snapshot: string | undefined;
    let page = 0;
    do {
      const l = await get(`${cmPath('paging')}?limit=10${token ? `&continue=${encodeURIComponent(token)}` : ''}`);
      sizes.push(l.items.length);
      seen.push(...l.items.map((i: Json) => i.metadata.name));
      if (snapshot === undefined) snapshot = l.metadata.resourceVersion;
      else assert.equal(l.metadata.resourceVersion, snapshot, `page ${page} is served at the first page's resourceVersion`);
      token = l.metadata.continue || undefined;
      if (page === 0) {
        // Written during paging: not part of this list (a consistent snapshot).
        await ok('POST', cmPath('paging'), { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'p99-late' } });
        await ok('DELETE', cmPath('paging', 'p24'));
      }
      page++;
      assert.ok(page <= 5, 'paging terminates');
    } while (token);
    assert.deepEqual(sizes, [10, 10, 5]);
    assert.deepEqual(seen, want, 'every object exactly once, in name order, as of the first page');

    // A continue token older than a compaction → 410 Expired.
    const first = await get(`${cmPath('paging')}?limit=5`);
    assert.ok(first.metadata.continue, 'first page has a continue token');
    await ok('POST', cmPath('paging'), { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'after-token' } });
    await ts.server.backend.compact(await ts.server.backend.currentRevision());
    const res = await ts.request('GET', `${cmPath('paging')}?limit=5&continue=${encodeURIComponent(first.metadata.continue)}`, { accept: 'application/json' });
    const st = assertFailureStatus(res, 410, 'Expired', 'continue after compaction');
    assert.match(st.message ?? '', /The provided continue parameter is too old/);
  });

  it('resourceVersionMatch=Exact lists at an older revision; NotOlderThan lists the latest', async () => {
    await ns('exact');
    const a1 = await ok('POST', cmPath('exact'), { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a' }, data: { v: '1' } });
    const b = await ok('POST', cmPath('exact'), { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'b' }, data: { v: '1' } });
    const a2 = await ok('PATCH', cmPath('exact', 'a'), { data: { v: '2' } }, merge);
    await ok('DELETE', cmPath('exact', 'b'));
    const state = (l: Json) => l.items.map((i: Json) => `${i.metadata.name}=${i.data.v}@${i.metadata.resourceVersion}`);

    const at1 = await get(`${cmPath('exact')}?resourceVersion=${a1.metadata.resourceVersion}&resourceVersionMatch=Exact`);
    assert.equal(at1.metadata.resourceVersion, a1.metadata.resourceVersion, 'the list is stamped with the requested revision');
    assert.deepEqual(state(at1), [`a=1@${a1.metadata.resourceVersion}`]);
    const atB = await get(`${cmPath('exact')}?resourceVersion=${b.metadata.resourceVersion}&resourceVersionMatch=Exact`);
    assert.deepEqual(state(atB), [`a=1@${a1.metadata.resourceVersion}`, `b=1@${b.metadata.resourceVersion}`]);
    const atA2 = await get(`${cmPath('exact')}?resourceVersion=${a2.metadata.resourceVersion}&resourceVersionMatch=Exact`);
    assert.deepEqual(state(atA2), [`a=2@${a2.metadata.resourceVersion}`, `b=1@${b.metadata.resourceVersion}`]);

    const latest = await get(`${cmPath('exact')}?resourceVersion=${a1.metadata.resourceVersion}&resourceVersionMatch=NotOlderThan`);
    assert.deepEqual(state(latest), [`a=2@${a2.metadata.resourceVersion}`]);
    assert.ok(Number(latest.metadata.resourceVersion) > Number(a2.metadata.resourceVersion));

    // Exact at a compacted revision → 410 Expired.
    await ts.server.backend.compact(Number(a2.metadata.resourceVersion));
    const gone = await ts.request('GET', `${cmPath('exact')}?resourceVersion=${a1.metadata.resourceVersion}&resourceVersionMatch=Exact`, { accept: 'application/json' });
    assertFailureStatus(gone, 410, 'Expired', 'Exact list at a compacted revision');
  });

  describe('CustomResourceDefinitions', () => {
    it('two versions (v1beta1 served, v1 storage; conversion None): create via v1beta1, read via v1, list via both; unserving v1beta1 removes it', async () => {
      const group = 'multi.example.com';
      const schema = { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: { color: { type: 'string' } } } } } };
      const def = crd(group, 'Thing', 'things', {}, {
        versions: [
          { name: 'v1beta1', served: true, storage: false, schema },
          { name: 'v1', served: true, storage: true, schema },
        ],
        conversion: { strategy: 'None' },
      });
      const beta = `/apis/${group}/v1beta1/namespaces/sem/things`;
      const v1 = `/apis/${group}/v1/namespaces/sem/things`;
      await createCrd(def, v1);
      await pollUntil('v1beta1 served', async () => (await ts.request('GET', beta, { accept: 'application/json' })).status === 200);

      const created = await ok('POST', beta, { apiVersion: `${group}/v1beta1`, kind: 'Thing', metadata: { name: 't1' }, spec: { color: 'red' } });
      assert.equal(created.apiVersion, `${group}/v1beta1`, 'the create response is in the request version');
      const viaV1 = await get(`${v1}/t1`);
      assert.equal(viaV1.apiVersion, `${group}/v1`);
      assert.equal(viaV1.kind, 'Thing');
      assert.deepEqual(viaV1.spec, { color: 'red' });
      assert.equal(viaV1.metadata.uid, created.metadata.uid);
      const viaBeta = await get(`${beta}/t1`);
      assert.equal(viaBeta.apiVersion, `${group}/v1beta1`);

      const listV1 = await get(v1);
      assert.equal(listV1.apiVersion, `${group}/v1`);
      assert.equal(listV1.kind, 'ThingList');
      assert.deepEqual(listV1.items.map((i: Json) => `${i.apiVersion} ${i.metadata.name}`), [`${group}/v1 t1`]);
      const listBeta = await get(beta);
      assert.equal(listBeta.apiVersion, `${group}/v1beta1`);
      assert.deepEqual(listBeta.items.map((i: Json) => `${i.apiVersion} ${i.metadata.name}`), [`${group}/v1beta1 t1`]);
      const stored = await get(`${CRDS}/things.${group}`);
      assert.deepEqual(stored.status.storedVersions, ['v1']);

      const groupDoc = await get(`/apis/${group}`);
      assert.deepEqual(groupDoc.versions.map((v: Json) => v.version).sort(), ['v1', 'v1beta1']);
      assert.equal(groupDoc.preferredVersion.version, 'v1');

      // Stop serving v1beta1.
      const crdNow = await get(`${CRDS}/things.${group}`);
      crdNow.spec.versions.find((v: Json) => v.name === 'v1beta1').served = false;
      await ok('PUT', `${CRDS}/things.${group}`, crdNow);
      await pollUntil('v1beta1 answers 404', async () => (await ts.request('GET', `${beta}/t1`, { accept: 'application/json' })).status === 404, { timeoutMs: 30_000 });
      assert.equal((await ts.request('GET', beta, { accept: 'application/json' })).status, 404, 'v1beta1 list → 404');
      const postBeta = await sendJson(ts, 'POST', beta, { apiVersion: `${group}/v1beta1`, kind: 'Thing', metadata: { name: 't2' } });
      assert.equal(postBeta.status, 404, 'v1beta1 create → 404');
      await pollUntil('discovery stops listing v1beta1', async () => {
        const g = await getObject(ts, `/apis/${group}`);
        return g !== undefined && g.versions.map((v: Json) => v.version).join() === 'v1';
      }, { timeoutMs: 30_000 });
      assert.equal((await ts.request('GET', `/apis/${group}/v1beta1`, { accept: 'application/json' })).status, 404, 'GET /apis/<group>/v1beta1 → 404');
      const groups = await get('/apis');
      const entry = groups.groups.find((g: Json) => g.name === group);
      assert.deepEqual(entry?.versions.map((v: Json) => v.version), ['v1'], 'legacy /apis lists only v1');
      const agg = await ts.request('GET', '/apis', { accept: AGGREGATED });
      const aggEntry = JSON.parse(agg.body).items.find((i: Json) => i.metadata.name === group);
      assert.deepEqual(aggEntry?.versions.map((v: Json) => v.version), ['v1'], 'aggregated discovery lists only v1');
      // v1 keeps working.
      assert.deepEqual((await get(`${v1}/t1`)).spec, { color: 'red' });
    });

    it('schema features: int-or-string, preserve-unknown-fields, embedded resources and defaults', async () => {
      const group = 'schema.example.com';
      const schema: Json = {
        type: 'object',
        properties: {
          spec: {
            type: 'object',
            properties: {
              port: { 'x-kubernetes-int-or-string': true },
              extra: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
              known: { type: 'object', properties: { a: { type: 'string' } } },
              template: { type: 'object', 'x-kubernetes-embedded-resource': true, 'x-kubernetes-preserve-unknown-fields': true },
              mode: { type: 'string', default: 'auto' },
              nested: { type: 'object', default: {}, properties: { level: { type: 'integer', default: 3 }, name: { type: 'string' } } },
            },
          },
        },
      };
      const S = `/apis/${group}/v1/namespaces/sem/shapes`;
      await createCrd(crd(group, 'Shape', 'shapes', schema), S);
      const shape = (name: string, spec: Json) => ({ apiVersion: `${group}/v1`, kind: 'Shape', metadata: { name }, spec });

      // x-kubernetes-int-or-string
      const five = await ok('POST', S, shape('port-int', { port: 5 }));
      assert.equal(five.spec.port, 5);
      const pct = await ok('POST', S, shape('port-str', { port: '50%' }));
      assert.equal(pct.spec.port, '50%');
      assert.equal((await get(`${S}/port-int`)).spec.port, 5);
      assert.equal((await get(`${S}/port-str`)).spec.port, '50%');
      const bad = await sendJson(ts, 'POST', S, shape('port-bool', { port: true }));
      const sb = assertFailureStatus({ status: bad.status, body: bad.text }, 422, 'Invalid', 'int-or-string given a boolean');
      assert.match(statusText(sb), /spec\.port/);
      assert.equal(await getObject(ts, `${S}/port-bool`), undefined);

      // x-kubernetes-preserve-unknown-fields keeps unknown fields under it; pruning elsewhere.
      await ok('POST', S, shape('prune', { extra: { anything: { deep: [1, 'x'] }, flag: true }, known: { a: 'kept', unknown: 'pruned' }, bogus: 'pruned' }));
      const pr = await get(`${S}/prune`);
      assert.deepEqual(pr.spec.extra, { anything: { deep: [1, 'x'] }, flag: true }, 'unknown fields under preserve-unknown-fields are kept');
      assert.deepEqual(pr.spec.known, { a: 'kept' }, 'unknown fields elsewhere are pruned');
      assert.equal(pr.spec.bogus, undefined, 'unknown spec field pruned');
      const topLevel = await ok('POST', S, { ...shape('prune-top', {}), unknownTop: 1 });
      assert.equal(topLevel.unknownTop, undefined, 'unknown top-level field pruned');

      // x-kubernetes-embedded-resource requires apiVersion and kind.
      const noKind = await sendJson(ts, 'POST', S, shape('embed-bad', { template: { metadata: { name: 'x' }, spec: { a: 1 } } }));
      const se = assertFailureStatus({ status: noKind.status, body: noKind.text }, 422, 'Invalid', 'embedded resource without apiVersion/kind');
      assert.match(statusText(se), /spec\.template\.apiVersion/);
      assert.match(statusText(se), /spec\.template\.kind/);
      await ok('POST', S, shape('embed-ok', { template: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'inner', labels: { l: 'v' } }, data: { k: 'v' } } }));
      const em = await get(`${S}/embed-ok`);
      assert.deepEqual(em.spec.template, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'inner', labels: { l: 'v' } }, data: { k: 'v' } });

      // Defaults, including those inside a defaulted object.
      const d = await ok('POST', S, shape('defaults', {}));
      assert.equal(d.spec.mode, 'auto');
      assert.deepEqual(d.spec.nested, { level: 3 });
      const stored = await get(`${S}/defaults`);
      assert.equal(stored.spec.mode, 'auto');
      assert.deepEqual(stored.spec.nested, { level: 3 });
      const explicit = await ok('POST', S, shape('explicit', { mode: 'manual', nested: { name: 'n' } }));
      assert.equal(explicit.spec.mode, 'manual', 'a given value is not overwritten by the default');
      assert.deepEqual(explicit.spec.nested, { level: 3, name: 'n' });
    });

    it('deleting a CRD deletes its custom resources, then the CRD, and its resource leaves discovery', async () => {
      const group = 'gone.example.com';
      const T = `/apis/${group}/v1/namespaces/sem/temps`;
      const schema = { type: 'object', properties: { spec: { type: 'object', properties: { n: { type: 'integer' } } } } };
      const def = crd(group, 'Temp', 'temps', schema);
      await createCrd(def, T);
      for (let i = 0; i < 3; i++) await ok('POST', T, { apiVersion: `${group}/v1`, kind: 'Temp', metadata: { name: `t${i}` }, spec: { n: i } });
      assert.equal((await get(T)).items.length, 3);
      await pollUntil('discovery lists the group', async () => (await ts.request('GET', `/apis/${group}/v1`, { accept: 'application/json' })).status === 200);

      await ok('DELETE', `${CRDS}/temps.${group}`);
      await pollUntil('the CRD is gone (GET 404)', async () => (await getObject(ts, `${CRDS}/temps.${group}`)) === undefined, { timeoutMs: 15_000 });
      await pollUntil('the resource is no longer served', async () => (await ts.request('GET', T, { accept: 'application/json' })).status === 404);
      await pollUntil('discovery drops the group', async () => {
        const apis = await get('/apis');
        const agg = JSON.parse((await ts.request('GET', '/apis', { accept: AGGREGATED })).body);
        const gv = await ts.request('GET', `/apis/${group}/v1`, { accept: 'application/json' });
        return !apis.groups.some((g: Json) => g.name === group) && !agg.items.some((i: Json) => i.metadata.name === group) && gv.status === 404;
      });
      const resources = await ts.kubectl(['api-resources', '-o', 'name']);
      assert.ok(!resources.stdout.includes(`temps.${group}`), `kubectl api-resources no longer lists temps: ${resources.stdout}`);

      // The custom resources were deleted, not merely hidden: recreating the CRD shows none.
      await createCrd(def, T);
      assert.deepEqual((await get(T)).items, [], 'no custom resources survive their CRD');
    });
  });

  it('pods/binding sets spec.nodeName; a second binding gets 409', async () => {
    await ok('POST', '/api/v1/namespaces/sem/pods', { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'bind-me' }, spec: { containers: [{ name: 'c', image: 'nginx:1.27' }] } });
    const binding = (node: string) => ({ apiVersion: 'v1', kind: 'Binding', metadata: { name: 'bind-me' }, target: { apiVersion: 'v1', kind: 'Node', name: node } });
    await ok('POST', '/api/v1/namespaces/sem/pods/bind-me/binding', binding('node-a'));
    let p = await get('/api/v1/namespaces/sem/pods/bind-me');
    assert.equal(p.spec.nodeName, 'node-a');
    assert.equal(p.status?.conditions?.find((c: Json) => c.type === 'PodScheduled')?.status, 'True');
    const second = await sendJson(ts, 'POST', '/api/v1/namespaces/sem/pods/bind-me/binding', binding('node-b'));
    assertFailureStatus({ status: second.status, body: second.text }, 409, 'Conflict', 'second binding');
    p = await get('/api/v1/namespaces/sem/pods/bind-me');
    assert.equal(p.spec.nodeName, 'node-a', 'nodeName unchanged by the refused binding');
  });

  it('scale subresource: GET returns autoscaling/v1 Scale with status.selector; PUT with a stale resourceVersion gets 409', async () => {
    const d = await ok('POST', deployPath('sem'), deployment('scaled', { app: 'scaled', tier: 'web' }, 2));
    const path = deployPath('sem', 'scaled');
    const scale = await get(`${path}/scale`);
    assert.equal(scale.kind, 'Scale');
    assert.equal(scale.apiVersion, 'autoscaling/v1');
    assert.equal(scale.metadata.name, 'scaled');
    assert.equal(scale.metadata.namespace, 'sem');
    assert.equal(scale.metadata.uid, d.metadata.uid);
    assert.equal(scale.metadata.resourceVersion, d.metadata.resourceVersion);
    assert.equal(scale.spec.replicas, 2);
    assert.equal(scale.status.selector, 'app=scaled,tier=web');
    assert.equal(typeof scale.status.replicas, 'number');

    const put = await ok('PUT', `${path}/scale`, { ...scale, spec: { replicas: 4 } });
    assert.equal(put.spec.replicas, 4);
    let now = await get(path);
    assert.equal(now.spec.replicas, 4);
    assert.equal(now.metadata.generation, 2);
    assert.notEqual(put.metadata.resourceVersion, scale.metadata.resourceVersion);

    const stale = await sendJson(ts, 'PUT', `${path}/scale`, { ...scale, spec: { replicas: 6 } });
    assertFailureStatus({ status: stale.status, body: stale.text }, 409, 'Conflict', 'PUT /scale with a stale resourceVersion');
    now = await get(path);
    assert.equal(now.spec.replicas, 4, 'replicas unchanged by the refused scale');
  });

  it('kubectl get --raw /metrics exposes request counts, registered watchers and the storage revision', async () => {
    await ok('POST', cmPath('sem'), { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'metrics-probe' } });
    const w = openStream(ts, `${cmPath('sem')}?watch=true`);
    streams.push(w);
    assert.equal((await withTimeout(w.response, 10_000, 'watch')).status, 200);
    const revision = await ts.server.backend.currentRevision();
    const sample = (text: string, name: string) =>
      text
        .split('\n')
        .filter((l) => l.startsWith(`${name}{`) || l.startsWith(`${name} `))
        .map((l) => {
          const m = /^(\S+?)(?:\{(.*)\})? (\S+)$/.exec(l)!;
          const labels: Record<string, string> = {};
          for (const [, k, v] of (m[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)) labels[k] = v;
          return { labels, value: Number(m[3]) };
        });
    let text = (await kubectlOk(ts, ['get', '--raw', '/metrics'])).stdout;
    const requests = sample(text, 'apiserver_request_total');
    assert.ok(requests.length > 0, 'apiserver_request_total present');
    assert.ok(requests.every((s) => 'verb' in s.labels && 'resource' in s.labels && 'code' in s.labels), 'every apiserver_request_total sample has verb, resource and code');
    const created = requests.find((s) => /^(create|POST)$/i.test(s.labels.verb) && s.labels.resource === 'configmaps' && s.labels.code === '201');
    assert.ok(created && created.value >= 1, `a configmaps create counted with code 201: ${JSON.stringify(requests.filter((s) => s.labels.resource === 'configmaps'))}`);
    const watchers = sample(text, 'apiserver_registered_watchers');
    assert.ok(watchers.length > 0, 'apiserver_registered_watchers present');
    assert.ok(watchers.reduce((a, s) => a + s.value, 0) >= 1, `an open watch is counted: ${JSON.stringify(watchers)}`);
    const rev = sample(text, 'apiserver_storage_revision');
    assert.equal(rev.length, 1, 'apiserver_storage_revision present');
    assert.ok(rev[0].value >= revision, `storage revision ${rev[0].value} ≥ ${revision}`);

    // Closing the watch brings the gauge back down.
    const open = watchers.reduce((a, s) => a + s.value, 0);
    w.close();
    await pollUntil('registered watchers decrease after the watch closes', async () => {
      text = (await ts.request('GET', '/metrics')).body;
      return sample(text, 'apiserver_registered_watchers').reduce((a, s) => a + s.value, 0) < open;
    });
  });

  it('/version, /healthz, /readyz and /livez answer without a token; /api without a token gets 401', async () => {
    const version = await ts.request('GET', '/version', { token: null });
    assert.equal(version.status, 200);
    const v = JSON.parse(version.body);
    assert.equal(v.major, '1');
    assert.match(v.gitVersion, /^v1\.\d+\.\d+/);
    for (const p of ['/healthz', '/readyz', '/livez']) {
      const r = await ts.request('GET', p, { token: null });
      assert.equal(r.status, 200, `${p} without a token`);
      assert.equal(r.body, 'ok');
    }
    for (const p of ['/api', '/apis', '/api/v1/namespaces', '/metrics']) {
      const r = await ts.request('GET', p, { token: null, accept: 'application/json' });
      assertFailureStatus(r, 401, 'Unauthorized', `${p} without a token`);
    }
    const wrong = await ts.request('GET', '/api', { token: 'not-a-valid-token', accept: 'application/json' });
    assertFailureStatus(wrong, 401, 'Unauthorized', '/api with a wrong token');
  });

  it('/openapi/v3 lists apis/apps/v1 and the CRD group-version; the linked document has the CRD schema', async () => {
    const root = await pollUntil('the CRD group-version in /openapi/v3', async () => {
      const r = await get('/openapi/v3');
      return r.paths?.['apis/schema.example.com/v1'] ? r : undefined;
    });
    assert.ok(root.paths['apis/apps/v1']?.serverRelativeURL, 'apis/apps/v1 listed with a serverRelativeURL');
    assert.ok(root.paths['api/v1']?.serverRelativeURL, 'api/v1 listed');
    const url: string = root.paths['apis/schema.example.com/v1'].serverRelativeURL;
    assert.match(url, /^\/openapi\/v3\/apis\/schema\.example\.com\/v1(\?hash=\w+)?$/);
    const doc = await get(url);
    assert.match(doc.openapi, /^3\./);
    const entries = Object.entries<Json>(doc.components?.schemas ?? {});
    const found = entries.find(([, s]) => (s['x-kubernetes-group-version-kind'] ?? []).some((g: Json) => g.group === 'schema.example.com' && g.version === 'v1' && g.kind === 'Shape'));
    assert.ok(found, `a component for schema.example.com/v1 Shape: ${JSON.stringify(entries.map(([k]) => k))}`);
    const spec = found[1].properties?.spec;
    assert.ok(spec?.properties?.port?.['x-kubernetes-int-or-string'], `the Shape component carries the CRD schema: ${JSON.stringify(found[1]).slice(0, 600)}`);
    assert.equal(spec.properties.mode.default, 'auto');
    assert.equal(spec.properties.extra['x-kubernetes-preserve-unknown-fields'], true);
    assert.ok(Object.keys(doc.paths ?? {}).some((p) => p.includes('/namespaces/{namespace}/shapes')), 'paths include the shapes endpoints');
    const apps = await get(root.paths['apis/apps/v1'].serverRelativeURL);
    assert.ok(Object.values<Json>(apps.components.schemas).some((s) => (s['x-kubernetes-group-version-kind'] ?? []).some((g: Json) => g.group === 'apps' && g.kind === 'Deployment')), 'apps/v1 document has Deployment');
  });
});

