/**
 * Acceptance suite: what kubectl reads from discovery and OpenAPI v2. A `kind: List` is validated
 * on the client against the OpenAPI v2 document in gnostic protobuf, so `kubectl apply -f
 * list.yaml` works and `--validate=strict` refuses an unknown field in an item (built-in or custom
 * resource); `/api/v1` and every group's resources carry kube's `storageVersionHash`.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestServer, type TestServer } from '../support/server.ts';
import { describeResult, getObject, kubectlFails, kubectlOk, pollUntil, type Json } from './support.ts';

const list = (...items: Json[]) => JSON.stringify({ apiVersion: 'v1', kind: 'List', items });

describe('OpenAPI v2 and discovery for kubectl', { timeout: 120_000 }, () => {
  let ts: TestServer;

  before(async () => {
    ts = await startTestServer();
  });
  after(() => ts?.stop());

  it('kubectl apply -f of a List of a ConfigMap and a Service creates both', async () => {
    const yaml = list(
      { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'listed', namespace: 'default' }, data: { a: '1' } },
      { apiVersion: 'v1', kind: 'Service', metadata: { name: 'listed', namespace: 'default' }, spec: { selector: { app: 'x' }, ports: [{ name: 'http', port: 80, targetPort: 'http' }] } },
    );
    const r = await kubectlOk(ts, ['apply', '-f', '-'], { input: yaml });
    assert.deepEqual(r.stdout.trim().split('\n'), ['configmap/listed created', 'service/listed created']);
    assert.ok(await getObject(ts, '/api/v1/namespaces/default/configmaps/listed'));
    assert.ok(await getObject(ts, '/api/v1/namespaces/default/services/listed'));
  });

  it('kubectl apply --validate=strict refuses a List item with an unknown field, built-in or custom, and applies nothing', async () => {
    const bad = list({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'strict', namespace: 'default' }, data: { a: '1' }, foo: 'bar' });
    const r = await kubectlFails(ts, ['apply', '--validate=strict', '-f', '-'], { input: bad });
    assert.match(r.stderr, /ValidationError\(ConfigMap\): unknown field "foo" in io\.k8s\.api\.core\.v1\.ConfigMap/, describeResult(['apply', '--validate=strict'], r));
    assert.equal(await getObject(ts, '/api/v1/namespaces/default/configmaps/strict'), undefined);

    await kubectlOk(ts, ['apply', '-f', '-'], {
      input: JSON.stringify({
        apiVersion: 'apiextensions.k8s.io/v1',
        kind: 'CustomResourceDefinition',
        metadata: { name: 'widgets.example.com' },
        spec: {
          group: 'example.com',
          scope: 'Namespaced',
          names: { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList' },
          versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: { size: { type: 'integer' } } } } } } }],
        },
      }),
    });
    await pollUntil('the Widget kind in OpenAPI v2', async () => JSON.parse((await kubectlOk(ts, ['get', '--raw', '/openapi/v2'])).stdout).definitions['com.example.v1.Widget']);
    const widget = (spec: Json) => list({ apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w', namespace: 'default' }, spec });
    const refused = await kubectlFails(ts, ['apply', '--validate=strict', '-f', '-'], { input: widget({ size: 1, bogus: true }) });
    assert.match(refused.stderr, /unknown field "bogus" in com\.example\.v1\.Widget\.spec/, describeResult(['apply', 'widget'], refused));
    await kubectlOk(ts, ['apply', '--validate=strict', '-f', '-'], { input: widget({ size: 1 }) });
  });

  it('serves /openapi/v2 as protobuf only to those who ask, and 406 for what it cannot produce', async () => {
    const pb = await ts.request('GET', '/openapi/v2', { accept: 'application/com.github.proto-openapi.spec.v2@v1.0+protobuf' });
    assert.equal(pb.status, 200);
    assert.equal(pb.headers['content-type'], 'application/com.github.proto-openapi.spec.v2.v1.0+protobuf');
    const json = await ts.request('GET', '/openapi/v2', { accept: 'application/json' });
    assert.equal(JSON.parse(json.body).swagger, '2.0');
    assert.equal((await ts.request('GET', '/openapi/v2', { accept: 'text/html' })).status, 406);
  });

  it('publishes storageVersionHash for every stored resource, as kube-apiserver computes it', async () => {
    const core = JSON.parse((await kubectlOk(ts, ['get', '--raw', '/api/v1'])).stdout);
    const byName = new Map<string, Json>(core.resources.map((r: Json) => [r.name, r]));
    assert.equal(byName.get('pods').storageVersionHash, 'xPOwRZ+Yhw8=');
    assert.equal(byName.get('configmaps').storageVersionHash, 'qFsyl6wFWjQ=');
    assert.equal(byName.get('pods/status').storageVersionHash, undefined, 'subresources have none');
    const apps = JSON.parse((await kubectlOk(ts, ['get', '--raw', '/apis/apps/v1'])).stdout);
    assert.equal(apps.resources.find((r: Json) => r.name === 'deployments').storageVersionHash, '8aSe+NMegvE=');
    const events = JSON.parse((await kubectlOk(ts, ['get', '--raw', '/apis/events.k8s.io/v1'])).stdout);
    assert.equal(events.resources.find((r: Json) => r.name === 'events').storageVersionHash, 'r2yiGXH7wu8=', 'stored as core/v1 Events');
    const widgets = JSON.parse((await kubectlOk(ts, ['get', '--raw', '/apis/example.com/v1'])).stdout);
    assert.match(widgets.resources.find((r: Json) => r.name === 'widgets').storageVersionHash, /^[A-Za-z0-9+/]{11}=$/);
  });
});
