/**
 * Acceptance suite: `--dry-run=server` changes nothing, for every verb that takes it (create,
 * update, patch and apply, the status and scale subresources, delete, deletecollection,
 * eviction through `kubectl drain`). Each test reads the stored object back after the dry run and
 * finds it as it was, resourceVersion included; kubectl prints what kube's kubectl prints for a
 * server dry run; a watch opened before the dry runs sees none of them; and validation still
 * runs, so a dry run reports the errors the real request would get.
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startTestServer, type TestServer } from '../support/server.ts';
import { assertFailureStatus, describeResult, getObject, kubectlFails, kubectlOk, openStream, pollUntil, sendJson, tolerantRequest, type Json, type StreamHandle } from './support.ts';

const NS = 'dry';
const cmPath = (name = '', ns = NS) => `/api/v1/namespaces/${ns}/configmaps${name ? `/${name}` : ''}`;
const podPath = (name: string) => `/api/v1/namespaces/${NS}/pods/${name}`;

describe('server-side dry run', { timeout: 240_000 }, () => {
  let ts: TestServer;
  const streams: StreamHandle[] = [];

  const kubectl = (...args: string[]) => kubectlOk(ts, args);
  const apply = (yaml: string, ...args: string[]) => kubectlOk(ts, ['apply', '-f', '-', ...args], { input: yaml });
  const stored = async (path: string): Promise<Json> => {
    const obj = await getObject(ts, path);
    assert.ok(obj, `${path} must exist`);
    return obj;
  };
  /** The stored object is exactly as it was: same resourceVersion, same content. */
  const assertUnchanged = async (path: string, before: Json, what: string): Promise<void> => {
    const now = await stored(path);
    assert.equal(now.metadata.resourceVersion, before.metadata.resourceVersion, `${what}: resourceVersion of ${path} changed`);
    assert.deepEqual(now, before, `${what}: ${path} changed`);
  };
  const configMap = (name: string, data: Record<string, string>, extra: Json = {}) =>
    JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: NS, ...extra }, data });
  /** A watch on configmaps and pods of the namespace from now on: a dry run must add no event to it. */
  const watchFromNow = async (resource: 'configmaps' | 'pods'): Promise<StreamHandle> => {
    const list = await getObject(ts, `/api/v1/namespaces/${NS}/${resource}`);
    const stream = openStream(ts, `/api/v1/namespaces/${NS}/${resource}?watch=true&resourceVersion=${list.metadata.resourceVersion}`);
    streams.push(stream);
    assert.equal((await stream.response).status, 200);
    return stream;
  };
  /** Makes a real change, waits for its event, and asserts it is the first and only one the watch saw. */
  const assertOnlyEventIs = async (stream: StreamHandle, marker: () => Promise<unknown>, name: string): Promise<void> => {
    await marker();
    await pollUntil(`the watch to see ${name}`, async () => stream.lines.length > 0);
    const first = JSON.parse(stream.lines[0]!);
    assert.equal(first.object.metadata.name, name, `the first event after the dry runs must be the real change, got ${stream.lines[0]}`);
  };

  before(async () => {
    ts = await startTestServer();
    await kubectl('create', 'namespace', NS);
    // A node, so that deleting a pod bound to it is graceful (a deletionTimestamp the kubelet would finish).
    await apply(JSON.stringify({ apiVersion: 'v1', kind: 'Node', metadata: { name: 'n1' } }));
    for (const name of ['p1', 'p2']) {
      await apply(JSON.stringify({ apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: NS, labels: { app: 'a' } }, spec: { nodeName: 'n1', containers: [{ name: 'c', image: 'busybox:1.36' }] } }));
      await kubectl('patch', 'pod', name, '-n', NS, '--subresource=status', '--type=merge', '-p', '{"status":{"phase":"Running","conditions":[{"type":"Ready","status":"True"}]}}');
    }
    await apply(JSON.stringify({ apiVersion: 'policy/v1', kind: 'PodDisruptionBudget', metadata: { name: 'pdb', namespace: NS }, spec: { minAvailable: 1, selector: { matchLabels: { app: 'a' } } } }));
    // What the disruption controller would have written: one disruption allowed.
    await kubectl('patch', 'pdb', 'pdb', '-n', NS, '--subresource=status', '--type=merge', '-p', '{"status":{"observedGeneration":1,"disruptionsAllowed":1,"currentHealthy":2,"desiredHealthy":1,"expectedPods":2}}');
  });
  after(async () => {
    for (const s of streams) s.close();
    await ts?.stop();
  });

  it('create: kubectl create, apply and apply --server-side print the object and store nothing; a name in use is still refused', async () => {
    const watch = await watchFromNow('configmaps');
    const created = await kubectl('create', 'configmap', 'new', '-n', NS, '--from-literal=a=1', '--dry-run=server', '-o', 'json');
    const obj = JSON.parse(created.stdout);
    assert.equal(obj.metadata.name, 'new');
    assert.deepEqual(obj.data, { a: '1' });
    assert.ok(obj.metadata.uid && obj.metadata.creationTimestamp, 'the answer is the object as it would be stored');
    assert.equal(obj.metadata.resourceVersion, undefined, 'an object never stored has no resourceVersion');
    assert.equal((await kubectl('create', 'configmap', 'new', '-n', NS, '--from-literal=a=1', '--dry-run=server')).stdout.trim(), 'configmap/new created (server dry run)');
    assert.equal((await apply(configMap('new', { a: '1' }), '--dry-run=server')).stdout.trim(), 'configmap/new created (server dry run)');
    assert.equal((await apply(configMap('new', { a: '1' }), '--server-side', '--dry-run=server')).stdout.trim(), 'configmap/new serverside-applied (server dry run)');
    assert.equal(await getObject(ts, cmPath('new')), undefined, 'nothing was created');
    // A Service's ClusterIP is chosen in the answer, yet the Service does not exist.
    const svc = JSON.parse((await kubectl('create', 'service', 'clusterip', 'web', '-n', NS, '--tcp=80:8080', '--dry-run=server', '-o', 'json')).stdout);
    assert.match(svc.spec.clusterIP, /^127\./);
    assert.equal(await getObject(ts, `/api/v1/namespaces/${NS}/services/web`), undefined, 'nothing was created');

    await kubectl('create', 'configmap', 'taken', '-n', NS, '--from-literal=a=1');
    const taken = await stored(cmPath('taken'));
    const again = await kubectlFails(ts, ['create', 'configmap', 'taken', '-n', NS, '--from-literal=a=2', '--dry-run=server']);
    assert.match(again.stderr, /configmaps "taken" already exists/, describeResult(['create', '--dry-run=server'], again));
    await assertUnchanged(cmPath('taken'), taken, 'dry-run create of a name in use');
    const bad = await kubectlFails(ts, ['create', 'configmap', 'Bad_Name', '-n', NS, '--dry-run=server']);
    assert.match(bad.stderr, /ConfigMap "Bad_Name" is invalid: metadata.name/, 'a dry run is validated like the real request');
    // The only event since the watch began is taken's real creation.
    await pollUntil('the watch to see taken', async () => stream(watch).length > 0);
    assert.deepEqual(stream(watch).map((e) => `${e.type} ${e.object.metadata.name}`), ['ADDED taken']);
  });

  it('update: kubectl replace prints the replaced object and leaves the stored one as it was', async () => {
    await kubectl('create', 'configmap', 'upd', '-n', NS, '--from-literal=a=1');
    const before = await stored(cmPath('upd'));
    const watch = await watchFromNow('configmaps');
    const body = configMap('upd', { a: 'changed' }, { resourceVersion: before.metadata.resourceVersion });
    const out = await kubectlOk(ts, ['replace', '-f', '-', '--dry-run=server', '-o', 'json'], { input: body });
    const answered = JSON.parse(out.stdout);
    assert.deepEqual(answered.data, { a: 'changed' }, 'the answer is what would be stored');
    assert.equal(answered.metadata.resourceVersion, before.metadata.resourceVersion, 'no new revision');
    assert.equal((await kubectlOk(ts, ['replace', '-f', '-', '--dry-run=server'], { input: body })).stdout.trim(), 'configmap/upd replaced (server dry run)');
    await assertUnchanged(cmPath('upd'), before, 'kubectl replace --dry-run=server');
    await assertOnlyEventIs(watch, () => kubectl('label', 'configmap', 'upd', '-n', NS, 'real=yes'), 'upd');
  });

  it('patch: strategic, merge and JSON patches, label, client-side apply and server-side apply change nothing', async () => {
    await apply(configMap('pat', { a: '1' }));
    const before = await stored(cmPath('pat'));
    const watch = await watchFromNow('configmaps');
    // kubectl patch names no dry run in what it prints (its printer ignores the strategy); the others do.
    const cases: [string[], string][] = [
      [['patch', 'configmap', 'pat', '-n', NS, '-p', '{"data":{"a":"2"}}'], 'configmap/pat patched'],
      [['patch', 'configmap', 'pat', '-n', NS, '--type=merge', '-p', '{"data":{"b":"3"}}'], 'configmap/pat patched'],
      [['patch', 'configmap', 'pat', '-n', NS, '--type=json', '-p', '[{"op":"remove","path":"/data/a"}]'], 'configmap/pat patched'],
      [['label', 'configmap', 'pat', '-n', NS, 'tier=web'], 'configmap/pat labeled (server dry run)'],
      [['annotate', 'configmap', 'pat', '-n', NS, 'note=x'], 'configmap/pat annotated (server dry run)'],
    ];
    for (const [args, printed] of cases) {
      const r = await kubectl(...args, '--dry-run=server');
      assert.equal(r.stdout.trim(), printed, describeResult([...args, '--dry-run=server'], r));
    }
    const patched = JSON.parse((await kubectl('patch', 'configmap', 'pat', '-n', NS, '-p', '{"data":{"a":"2"}}', '--dry-run=server', '-o', 'json')).stdout);
    assert.deepEqual(patched.data, { a: '2' }, 'the answer is the patched object');
    assert.equal((await apply(configMap('pat', { a: '9' }), '--dry-run=server')).stdout.trim(), 'configmap/pat configured (server dry run)');
    assert.equal((await apply(configMap('pat', { a: '9' }), '--server-side', '--force-conflicts', '--dry-run=server')).stdout.trim(), 'configmap/pat serverside-applied (server dry run)');
    await assertUnchanged(cmPath('pat'), before, 'patch, label, annotate and apply with --dry-run=server');
    await assertOnlyEventIs(watch, () => kubectl('label', 'configmap', 'pat', '-n', NS, 'real=yes'), 'pat');
  });

  it('subresources: scale and a status patch change nothing', async () => {
    await kubectl('create', 'deployment', 'web', '-n', NS, '--image=nginx:1.27', '--replicas=2');
    const path = `/apis/apps/v1/namespaces/${NS}/deployments/web`;
    const before = await stored(path);
    assert.equal((await kubectl('scale', 'deployment', 'web', '-n', NS, '--replicas=5', '--dry-run=server')).stdout.trim(), 'deployment.apps/web scaled (server dry run)');
    const status = await kubectl('patch', 'deployment', 'web', '-n', NS, '--subresource=status', '--type=merge', '-p', '{"status":{"replicas":7,"observedGeneration":1}}', '--dry-run=server', '-o', 'json');
    assert.equal(JSON.parse(status.stdout).status.replicas, 7, 'the answer carries the patched status');
    // A PUT of the scale subresource with dryRun in the query, as client libraries send it.
    const scale = await stored(`${path}/scale`);
    const put = await sendJson(ts, 'PUT', `${path}/scale?dryRun=All`, { ...scale, spec: { replicas: 4 } });
    assert.equal(put.status, 200, put.text);
    assert.equal(put.body.spec.replicas, 4);
    await assertUnchanged(path, before, 'scale and status patch with --dry-run=server');
  });

  it('delete: a ConfigMap, a pod on a node (graceful), an object held by a finalizer and a namespace stay as they were', async () => {
    await apply(configMap('del', { a: '1' }));
    await apply(configMap('held', { a: '1' }, { finalizers: ['example.com/hold'] }));
    await kubectl('create', 'namespace', 'dry-ns');
    await kubectl('create', 'configmap', 'inside', '-n', 'dry-ns', '--from-literal=a=1');
    const paths = [cmPath('del'), cmPath('held'), podPath('p1'), '/api/v1/namespaces/dry-ns', cmPath('inside', 'dry-ns')];
    const before = await Promise.all(paths.map(stored));
    const watch = await watchFromNow('configmaps');
    assert.equal((await kubectl('delete', 'configmap', 'del', '-n', NS, '--dry-run=server')).stdout.trim(), 'configmap "del" deleted (server dry run)');
    assert.equal((await kubectl('delete', 'configmap', 'held', '-n', NS, '--dry-run=server')).stdout.trim(), 'configmap "held" deleted (server dry run)');
    assert.equal((await kubectl('delete', 'pod', 'p1', '-n', NS, '--dry-run=server')).stdout.trim(), 'pod "p1" deleted (server dry run)');
    assert.equal((await kubectl('delete', 'namespace', 'dry-ns', '--dry-run=server')).stdout.trim(), 'namespace "dry-ns" deleted (server dry run)');
    // kubectl puts dryRun in the DeleteOptions body; a client may put it in the query instead.
    const viaQuery = await tolerantRequest(ts, 'DELETE', `${cmPath('del')}?dryRun=All`, '{}', 'application/json');
    assert.equal(viaQuery.status, 200, viaQuery.body);
    // The answer shows what the delete would have done: the pod's graceful deletion.
    const pod = await tolerantRequest(ts, 'DELETE', podPath('p1'), JSON.stringify({ dryRun: ['All'] }), 'application/json');
    assert.equal(pod.status, 200, pod.body);
    assert.ok(JSON.parse(pod.body).metadata.deletionTimestamp, 'the answer carries the deletionTimestamp a real delete would set');
    for (const [i, path] of paths.entries()) await assertUnchanged(path, before[i], 'delete --dry-run=server');
    await assertOnlyEventIs(watch, () => kubectl('label', 'configmap', 'del', '-n', NS, 'real=yes'), 'del');
  });

  it('deletecollection: with dryRun in the query or in the DeleteOptions body, every item stays', async () => {
    await kubectl('create', 'namespace', 'dry-coll');
    for (const name of ['c1', 'c2']) await kubectl('create', 'configmap', name, '-n', 'dry-coll', '--from-literal=a=1');
    const before = await Promise.all(['c1', 'c2'].map((n) => stored(cmPath(n, 'dry-coll'))));
    const options = join(ts.dataDir, 'delete-options.json');
    writeFileSync(options, JSON.stringify({ kind: 'DeleteOptions', apiVersion: 'v1', dryRun: ['All'] }));
    for (const args of [['delete', '--raw', `${cmPath('', 'dry-coll')}?dryRun=All`], ['delete', '--raw', cmPath('', 'dry-coll'), '-f', options]]) {
      const r = await kubectl(...args);
      const answered = JSON.parse(r.stdout);
      assert.deepEqual(answered.items.map((o: Json) => o.metadata.name).sort(), ['c1', 'c2'], 'the answer lists what would be deleted');
    }
    for (const [i, name] of ['c1', 'c2'].entries()) await assertUnchanged(cmPath(name, 'dry-coll'), before[i], 'deletecollection with dryRun');
  });

  it('eviction: kubectl drain --dry-run=server evicts nothing, spends no disruption, cordons nothing', async () => {
    const paths = [podPath('p1'), podPath('p2'), `/apis/policy/v1/namespaces/${NS}/poddisruptionbudgets/pdb`, '/api/v1/nodes/n1'];
    const before = await Promise.all(paths.map(stored));
    const watch = await watchFromNow('pods');
    const drain = await kubectl('drain', 'n1', '--force', '--dry-run=server');
    const out = drain.stdout.trim().split('\n');
    assert.equal(out[0], 'node/n1 cordoned (server dry run)', describeResult(['drain'], drain));
    assert.deepEqual(out.filter((l) => l.startsWith('evicting')).sort(), [`evicting pod ${NS}/p1 (server dry run)`, `evicting pod ${NS}/p2 (server dry run)`]);
    assert.equal(out.at(-1), 'node/n1 drained (server dry run)');
    // The eviction subresource itself, with dryRun in the query (CreateOptions) or in its DeleteOptions.
    const eviction = (dryRun?: string[]) => JSON.stringify({ apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name: 'p1', namespace: NS }, ...(dryRun ? { deleteOptions: { dryRun } } : {}) });
    for (const [query, body] of [['?dryRun=All', undefined], ['', ['All']], ['?dryRun=All', ['All']]] as const) {
      const r = await sendJson(ts, 'POST', `${podPath('p1')}/eviction${query}`, eviction(body ? [...body] : undefined));
      assert.equal(r.status, 201, r.text);
    }
    for (const [i, path] of paths.entries()) await assertUnchanged(path, before[i], 'drain --dry-run=server');
    assert.ok(!(await stored(podPath('p1'))).status.conditions.some((c: Json) => c.type === 'DisruptionTarget'), 'no DisruptionTarget condition');
    await assertOnlyEventIs(watch, () => kubectl('label', 'pod', 'p2', '-n', NS, 'real=yes'), 'p2');
  });

  it('bad dryRun values are refused as kube-apiserver refuses them, and nothing happens', async () => {
    await kubectl('create', 'configmap', 'keep', '-n', NS, '--from-literal=a=1');
    const before = await stored(cmPath('keep'));
    const inBody = await tolerantRequest(ts, 'DELETE', cmPath('keep'), JSON.stringify({ dryRun: ['Some'] }), 'application/json');
    const s = assertFailureStatus(inBody, 422, 'Invalid', 'DELETE with dryRun ["Some"] in the body');
    assert.equal(s.message, 'DeleteOptions.meta.k8s.io "" is invalid: dryRun: Unsupported value: []string{"Some"}: supported values: "All"');
    const patch = await sendJson(ts, 'PATCH', `${cmPath('keep')}?dryRun=Yes`, { data: { a: '2' } }, 'application/merge-patch+json');
    assert.equal(assertFailureStatus({ status: patch.status, body: patch.text }, 422, 'Invalid', 'PATCH ?dryRun=Yes').details?.kind, 'PatchOptions');
    const put = await sendJson(ts, 'PUT', `${cmPath('keep')}?dryRun=Yes`, { ...before, data: { a: '2' } });
    assert.equal(assertFailureStatus({ status: put.status, body: put.text }, 422, 'Invalid', 'PUT ?dryRun=Yes').details?.kind, 'UpdateOptions');
    const evict = await sendJson(ts, 'POST', `${podPath('p2')}/eviction?dryRun=All`, { apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name: 'p2' }, deleteOptions: { dryRun: ['All', 'All'] } });
    assertFailureStatus({ status: evict.status, body: evict.text }, 400, 'BadRequest', 'eviction whose query and body disagree on dryRun');
    await assertUnchanged(cmPath('keep'), before, 'refused dry runs');
    assert.ok(await getObject(ts, podPath('p2')), 'the pod was not evicted');
  });
});

/** The watch events received so far, parsed. */
function stream(s: StreamHandle): Json[] {
  return s.lines.map((l) => JSON.parse(l));
}
