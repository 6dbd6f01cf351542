/**
 * The event recorder against the real Shipyard API server, read back the way people read
 * Events: with kubectl. An Event lands with the fields `kubectl describe` shows, a repeat
 * raises the count of the same Event, a cluster-scoped object's Events go to `default`, and a
 * flood about one object is cut off by the spam filter.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { CoreV1Api, KubeConfig, type CoreV1Event, type V1ConfigMap } from '@kubernetes/client-node';
import { createEventRecorder } from '../../src/runtime/events.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

describe('event recorder (API server)', () => {
  let ts: TestServer;
  let kc: KubeConfig;
  let core: CoreV1Api;
  const stop = new AbortController();

  before(async () => {
    ts = await startTestServer();
    kc = new KubeConfig();
    kc.loadFromFile(ts.server.kubeconfigPath);
    core = kc.makeApiClient(CoreV1Api);
  });
  after(async () => {
    stop.abort();
    await ts.stop();
  });

  /** Events about `name`, as kubectl sees them. */
  async function eventsAbout(name: string, namespace = 'default'): Promise<CoreV1Event[]> {
    const r = await ts.kubectl(['get', 'events', '-n', namespace, '--field-selector', `involvedObject.name=${name}`, '-o', 'json']);
    assert.equal(r.code, 0, r.stderr);
    return (JSON.parse(r.stdout) as { items: CoreV1Event[] }).items;
  }

  async function configMap(name: string): Promise<V1ConfigMap> {
    return core.createNamespacedConfigMap({ namespace: 'default', body: { metadata: { name }, data: { a: '1' } } });
  }

  it('writes an Event with the involved object, source and timestamps', async () => {
    const cm = await configMap('ev-fields');
    const rec = createEventRecorder({ kubeConfig: kc, component: 'test-controller', host: 'node-1', signal: stop.signal });
    // metav1.Time drops the milliseconds.
    const notBefore = Math.floor(Date.now() / 1000) * 1000;
    rec.event({ apiVersion: 'v1', kind: 'ConfigMap', metadata: cm.metadata }, 'Normal', 'Synced', 'configmap synced');
    await rec.flush();
    const notAfter = Date.now();

    const [ev, ...more] = await eventsAbout('ev-fields');
    assert.equal(more.length, 0);
    assert.match(ev.metadata.name!, /^ev-fields\.[0-9a-f]+$/);
    assert.equal(ev.metadata.namespace, 'default');
    assert.deepEqual(ev.involvedObject, { apiVersion: 'v1', kind: 'ConfigMap', name: 'ev-fields', namespace: 'default', uid: cm.metadata!.uid, resourceVersion: cm.metadata!.resourceVersion });
    assert.equal(ev.type, 'Normal');
    assert.equal(ev.reason, 'Synced');
    assert.equal(ev.message, 'configmap synced');
    assert.deepEqual(ev.source, { component: 'test-controller', host: 'node-1' });
    assert.equal(ev.reportingComponent, 'test-controller');
    assert.equal(ev.reportingInstance, 'node-1');
    assert.equal(ev.count, 1);
    // metav1.Time is whole seconds; kubectl parsed it into a string it got from the server.
    const raw = JSON.parse((await ts.request('GET', `/api/v1/namespaces/default/events/${ev.metadata.name}`)).body) as Record<string, string>;
    assert.match(raw.firstTimestamp, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    assert.equal(raw.lastTimestamp, raw.firstTimestamp);
    const at = Date.parse(raw.firstTimestamp);
    assert.ok(at >= notBefore && at <= notAfter, `${raw.firstTimestamp}: the time the Event was recorded`);
  });

  it('counts a repeat on the same Event, as `kubectl get events` shows', async () => {
    const cm = await configMap('ev-repeat');
    const rec = createEventRecorder({ kubeConfig: kc, component: 'test-controller', signal: stop.signal });
    const obj = { apiVersion: 'v1', kind: 'ConfigMap', metadata: cm.metadata };
    rec.event(obj, 'Normal', 'Synced', 'same message');
    await rec.flush();
    rec.event(obj, 'Normal', 'Synced', 'same message');
    rec.event(obj, 'Normal', 'Synced', 'same message');
    rec.event(obj, 'Normal', 'Synced', 'a different message');
    await rec.flush();

    const events = await eventsAbout('ev-repeat');
    assert.equal(events.length, 2, JSON.stringify(events));
    const same = events.find((e) => e.message === 'same message')!;
    assert.equal(same.count, 3);
    assert.ok(new Date(same.lastTimestamp!).getTime() >= new Date(same.firstTimestamp!).getTime());
    assert.equal(events.find((e) => e.message === 'a different message')!.count, 1);

    const table = await ts.kubectl(['get', 'events', '-n', 'default', '-o', 'wide', '--field-selector', 'involvedObject.name=ev-repeat,reason=Synced']);
    assert.equal(table.code, 0, table.stderr);
    const row = table.stdout.split('\n').find((l) => l.includes('same message'));
    assert.ok(row, table.stdout);
    assert.match(row, /\s3\s/);
    assert.match(row, /configmap\/ev-repeat/);
  });

  it('records a Warning that a type=Warning selector finds', async () => {
    const cm = await configMap('ev-warning');
    const rec = createEventRecorder({ kubeConfig: kc, component: 'test-controller', signal: stop.signal });
    rec.event({ apiVersion: 'v1', kind: 'ConfigMap', metadata: cm.metadata }, 'Warning', 'FailedSync', 'could not sync: boom');
    await rec.flush();
    const r = await ts.kubectl(['get', 'events', '-n', 'default', '--field-selector', 'type=Warning', '-o', 'json']);
    assert.equal(r.code, 0, r.stderr);
    const mine = (JSON.parse(r.stdout) as { items: CoreV1Event[] }).items.filter((e) => e.involvedObject.name === 'ev-warning');
    assert.equal(mine.length, 1);
    assert.equal(mine[0].reason, 'FailedSync');
    assert.equal(mine[0].type, 'Warning');
  });

  it("puts a cluster-scoped object's Events in `default`, with no namespace on the reference", async () => {
    const ns = await core.createNamespace({ body: { metadata: { name: 'ev-cluster-scoped' } } });
    const rec = createEventRecorder({ kubeConfig: kc, component: 'namespace-controller', signal: stop.signal });
    rec.event({ apiVersion: 'v1', kind: 'Namespace', metadata: ns.metadata }, 'Normal', 'Created', 'namespace ready');
    await rec.flush();
    const [ev] = await eventsAbout('ev-cluster-scoped', 'default');
    assert.ok(ev, 'no event in default');
    assert.equal(ev.metadata.namespace, 'default');
    assert.equal(ev.involvedObject.kind, 'Namespace');
    assert.equal(ev.involvedObject.namespace, undefined);
    assert.equal(ev.involvedObject.uid, ns.metadata!.uid);
  });

  it('cuts off a flood about one object with the spam filter, but not other objects', async () => {
    const rec = createEventRecorder({ kubeConfig: kc, component: 'test-controller', signal: stop.signal, spamBurst: 3 });
    const flood = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'ev-flood', namespace: 'default', uid: 'u-flood' } };
    for (let i = 0; i < 10; i++) rec.event(flood, 'Warning', 'Failed', `attempt ${i}`);
    rec.event({ ...flood, metadata: { ...flood.metadata, name: 'ev-calm', uid: 'u-calm' } }, 'Normal', 'Fine', 'ok');
    await rec.flush();
    assert.deepEqual((await eventsAbout('ev-flood')).map((e) => e.message).sort(), ['attempt 0', 'attempt 1', 'attempt 2']);
    assert.equal((await eventsAbout('ev-calm')).length, 1);
  });
});
