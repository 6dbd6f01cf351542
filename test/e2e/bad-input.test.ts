/**
 * Acceptance suite: malformed and refused requests. Each case sends one bad request and
 * checks the HTTP code, that the body is a `Status` failure with the right `reason`, and
 * that the message (or a cause's field) names the offending field or thing. At the end the
 * server must still serve normally.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { parse as parseYaml } from 'yaml';
import { startTestServer, type TestServer } from '../support/server.ts';
import { assertCauseField, assertFailureStatus, fixture, getObject, pollUntil, sendJson, statusText, tolerantRequest, type Json, type StatusBody } from './support.ts';

const CM = '/api/v1/namespaces/default/configmaps';
const DEPLOY = '/apis/apps/v1/namespaces/default/deployments';
const PODS = '/api/v1/namespaces/default/pods';
const W = '/apis/example.com/v1/namespaces/default/widgets';
const CRDS = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';

const deployment = (name: string, mutate: (d: Json) => void = () => undefined): Json => {
  const d: Json = {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name },
    spec: { replicas: 1, selector: { matchLabels: { app: name } }, template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'c', image: 'nginx:1.27' }] } } },
  };
  mutate(d);
  return d;
};
const pod = (name: string, mutate: (p: Json) => void = () => undefined): Json => {
  const p: Json = { apiVersion: 'v1', kind: 'Pod', metadata: { name }, spec: { containers: [{ name: 'c', image: 'nginx:1.27' }] } };
  mutate(p);
  return p;
};
const widget = (name: string, spec: Json): Json => ({ apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name }, spec });

describe('malformed requests get precise Status errors', { timeout: 100_000 }, () => {
  let ts: TestServer;

  /** Sends a request and asserts a failure Status with this code and reason; returns it. */
  const expectFailure = async (
    method: string,
    path: string,
    init: { body?: string | Buffer | object; contentType?: string; token?: string | null },
    code: number,
    reason: string | readonly string[],
  ): Promise<StatusBody> => {
    const body = init.body === undefined ? undefined : typeof init.body === 'string' || Buffer.isBuffer(init.body) ? init.body : JSON.stringify(init.body);
    const contentType = init.contentType ?? (body !== undefined ? 'application/json' : undefined);
    const res =
      method === 'DELETE' && body !== undefined
        ? await tolerantRequest(ts, method, path, body, contentType ?? 'application/json')
        : await ts.request(method, path, { body, contentType, accept: 'application/json', token: init.token });
    return assertFailureStatus(res, code, reason, `${method} ${path}`);
  };
  /** Asserts that the Status text (message and causes) mentions each of these. */
  const mentions = (s: StatusBody, ...things: (string | RegExp)[]) => {
    const text = statusText(s);
    for (const t of things) {
      if (typeof t === 'string') assert.ok(text.includes(t), `Status should mention ${JSON.stringify(t)}: ${JSON.stringify(s)}`);
      else assert.match(text, t, `Status should match ${t}: ${JSON.stringify(s)}`);
    }
  };

  before(async () => {
    ts = await startTestServer();
    const crd = parseYaml(readFileSync(fixture('widget-crd.yaml'), 'utf8'));
    const created = await sendJson(ts, 'POST', CRDS, crd);
    assert.equal(created.status, 201, created.text);
    await pollUntil('widgets CRD Established', async () => {
      const o = await getObject(ts, `${CRDS}/widgets.example.com`);
      return o?.status?.conditions?.some((c: Json) => c.type === 'Established' && c.status === 'True');
    });
    await pollUntil('widgets served', async () => (await ts.request('GET', W)).status === 200);
    const w = await sendJson(ts, 'POST', W, widget('w1', { size: 'S' }));
    assert.equal(w.status, 201, w.text);
    const cm = await sendJson(ts, 'POST', CM, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'exists' }, data: { a: '1' } });
    assert.equal(cm.status, 201, cm.text);
    const p = await sendJson(ts, 'POST', PODS, pod('p1'));
    assert.equal(p.status, 201, p.text);
  });
  after(async () => {
    await ts?.stop();
  });

  // --- authentication ---
  it('no token → 401 Unauthorized', async () => {
    const s = await expectFailure('GET', CM, { token: null }, 401, 'Unauthorized');
    mentions(s, /Unauthorized/);
  });
  it('wrong token → 401 Unauthorized', async () => {
    const s = await expectFailure('GET', CM, { token: 'not-the-admin-token' }, 401, 'Unauthorized');
    mentions(s, /Unauthorized/);
  });

  // --- decoding ---
  it('malformed JSON body → 400 BadRequest', async () => {
    const s = await expectFailure('POST', CM, { body: '{"apiVersion":"v1","kind":"ConfigMap",' }, 400, 'BadRequest');
    mentions(s, /json|unexpected end|parse/i);
  });
  it('malformed YAML body → 400 BadRequest', async () => {
    const s = await expectFailure('POST', CM, { body: 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: [oops\n', contentType: 'application/yaml' }, 400, 'BadRequest');
    mentions(s, /yaml/i);
  });
  it('a JSON array instead of an object → 400 BadRequest', async () => {
    const s = await expectFailure('POST', CM, { body: '[{"apiVersion":"v1","kind":"ConfigMap"}]' }, 400, 'BadRequest');
    mentions(s, /array|object/i);
  });
  it('a kind that does not match the URL → 400 BadRequest naming the kind', async () => {
    const s = await expectFailure('POST', CM, { body: { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'k' } } }, 400, 'BadRequest');
    mentions(s, 'Secret');
  });
  it('an apiVersion that does not match the URL → 400 BadRequest naming it', async () => {
    const s = await expectFailure('POST', CM, { body: { apiVersion: 'apps/v1', kind: 'ConfigMap', metadata: { name: 'k' } } }, 400, 'BadRequest');
    mentions(s, 'apps/v1');
  });
  it('a body over 3 MiB → 413 RequestEntityTooLarge', async () => {
    const big = JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'huge' }, data: { blob: 'x'.repeat(3 * 1024 * 1024 + 16) } });
    const res = await tolerantRequest(ts, 'POST', CM, big, 'application/json');
    const s = assertFailureStatus(res, 413, 'RequestEntityTooLarge', 'POST 3 MiB');
    mentions(s, /too large/i);
    assert.equal(await getObject(ts, `${CM}/huge`), undefined);
  });
  it('Content-Type text/plain on create → 415 UnsupportedMediaType', async () => {
    const s = await expectFailure('POST', CM, { body: JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'txt' } }), contentType: 'text/plain' }, 415, 'UnsupportedMediaType');
    mentions(s, /text\/plain|unknown format|media type/i);
  });

  // --- routing ---
  it('an unknown resource → 404 NotFound', async () => {
    const s = await expectFailure('GET', '/api/v1/namespaces/default/gizmos', {}, 404, 'NotFound');
    mentions(s, /gizmos|could not find the requested resource/);
  });
  it('an unknown group/version → 404 NotFound', async () => {
    const s = await expectFailure('GET', '/apis/nosuch.example.com/v1/things', {}, 404, 'NotFound');
    mentions(s, /nosuch\.example\.com|things|could not find the requested resource/);
  });
  it('an unknown version of a known group → 404 NotFound', async () => {
    await expectFailure('GET', '/apis/apps/v9/namespaces/default/deployments', {}, 404, 'NotFound');
  });
  it('PUT on a collection → 405 MethodNotAllowed', async () => {
    const s = await expectFailure('PUT', CM, { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x' } } }, 405, 'MethodNotAllowed');
    mentions(s, /method/i);
  });
  it('POST on a single object → 405 MethodNotAllowed', async () => {
    await expectFailure('POST', `${CM}/exists`, { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'exists' } } }, 405, 'MethodNotAllowed');
  });

  // --- metadata validation ---
  it('a name breaking DNS-1123 → 422 Invalid on metadata.name', async () => {
    const s = await expectFailure('POST', CM, { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'Bad_Name' } } }, 422, 'Invalid');
    assertCauseField(s, 'metadata.name', 'Bad_Name');
    mentions(s, 'Bad_Name');
    assert.equal(s.details?.name, 'Bad_Name');
    assert.equal(s.details?.kind, 'ConfigMap');
  });
  it('a missing name → 422 Invalid on metadata.name', async () => {
    const s = await expectFailure('POST', CM, { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: {} } }, 422, 'Invalid');
    assertCauseField(s, 'metadata.name', 'no name');
    mentions(s, /Required value/);
  });
  it('an invalid label value → 422 Invalid on metadata.labels', async () => {
    const s = await expectFailure('POST', CM, { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'lbl', labels: { app: 'bad value!' } } } }, 422, 'Invalid');
    assertCauseField(s, 'metadata.labels', 'bad label');
    mentions(s, 'bad value!');
  });
  it('a namespace in the body that differs from the URL → 400 BadRequest', async () => {
    const s = await expectFailure('POST', CM, { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'nsx', namespace: 'kube-system' } } }, 400, 'BadRequest');
    mentions(s, /namespace/);
  });
  it('a PUT whose body name differs from the URL → 400 BadRequest', async () => {
    const s = await expectFailure('PUT', `${CM}/exists`, { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'other' } } }, 400, 'BadRequest');
    mentions(s, 'other', 'exists');
  });

  // --- existence and concurrency ---
  it('an unknown fieldValidation value → 400 BadRequest naming fieldValidation', async () => {
    const s = await expectFailure('POST', `${CM}?fieldValidation=Loose`, { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'fv' } } }, 400, 'BadRequest');
    mentions(s, 'fieldValidation', 'Loose');
    assert.equal((await ts.request('GET', `${CM}/fv`)).status, 404, 'nothing was created');
  });

  it('an unknown dryRun value → 422 Invalid CreateOptions naming dryRun, as kube-apiserver answers', async () => {
    const s = await expectFailure('POST', `${CM}?dryRun=Some`, { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'dr' } } }, 422, 'Invalid');
    assert.equal(s.message, 'CreateOptions.meta.k8s.io "" is invalid: dryRun: Unsupported value: []string{"Some"}: supported values: "All"');
    assert.equal(s.details?.kind, 'CreateOptions');
    assert.deepEqual(s.details?.causes?.map((c) => c.field), ['dryRun']);
    assert.equal((await ts.request('GET', `${CM}/dr`)).status, 404, 'nothing was created');
  });

  it('a body nested thousands of levels deep → 400 BadRequest, and the server keeps serving', async () => {
    const deep = `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"deep"},"data":${'['.repeat(5000)}${']'.repeat(5000)}}`;
    const s = await expectFailure('POST', CM, { body: deep }, 400, 'BadRequest');
    mentions(s, 'nested');
    const patch = await ts.request('PATCH', `${CM}/nothing`, { body: `{"a":${'{"a":'.repeat(5000)}1${'}'.repeat(5001)}`, contentType: 'application/merge-patch+json' });
    assert.equal(patch.status, 400, patch.body);
  });

  it('create of an existing object → 409 AlreadyExists', async () => {
    const s = await expectFailure('POST', CM, { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'exists' } } }, 409, 'AlreadyExists');
    mentions(s, 'configmaps "exists" already exists');
    assert.equal(s.details?.name, 'exists');
  });
  it('get of a missing object → 404 NotFound naming it', async () => {
    const s = await expectFailure('GET', `${CM}/nope`, {}, 404, 'NotFound');
    mentions(s, 'configmaps "nope" not found');
    assert.equal(s.details?.name, 'nope');
    assert.equal(s.details?.kind, 'configmaps');
  });
  it('create in a missing namespace → 404 NotFound naming the namespace', async () => {
    const s = await expectFailure('POST', '/api/v1/namespaces/missing-ns/configmaps', { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x' } } }, 404, 'NotFound');
    mentions(s, 'namespaces "missing-ns" not found');
  });
  it('an update with a stale resourceVersion → 409 Conflict', async () => {
    const current = await getObject(ts, `${CM}/exists`);
    const stale = structuredClone(current);
    current.data = { a: '2' };
    const ok = await sendJson(ts, 'PUT', `${CM}/exists`, current);
    assert.equal(ok.status, 200, ok.text);
    stale.data = { a: '3' };
    const s = await expectFailure('PUT', `${CM}/exists`, { body: stale }, 409, 'Conflict');
    mentions(s, 'configmaps "exists"', /the object has been modified/);
    assert.deepEqual((await getObject(ts, `${CM}/exists`)).data, { a: '2' });
  });
  it('a PUT of a custom resource without resourceVersion → 422 on metadata.resourceVersion', async () => {
    const s = await expectFailure('PUT', `${W}/w1`, { body: widget('w1', { size: 'M' }) }, 422, 'Invalid');
    assertCauseField(s, 'metadata.resourceVersion', 'CR PUT without RV');
    assert.equal((await getObject(ts, `${W}/w1`)).spec.size, 'S');
  });

  // --- patches ---
  it('a strategic merge patch on a custom resource → 415 UnsupportedMediaType', async () => {
    const s = await expectFailure('PATCH', `${W}/w1`, { body: '{"spec":{"size":"M"}}', contentType: 'application/strategic-merge-patch+json' }, 415, 'UnsupportedMediaType');
    mentions(s, /strategic|media type|unknown format/i);
  });
  it('an unknown patch Content-Type → 415 UnsupportedMediaType', async () => {
    await expectFailure('PATCH', `${CM}/exists`, { body: '{"data":{"a":"9"}}', contentType: 'application/x-bogus-patch+json' }, 415, 'UnsupportedMediaType');
  });
  it('a JSON patch with an unknown op → 400/422 naming the op', async () => {
    const res = await ts.request('PATCH', `${CM}/exists`, { body: '[{"op":"frobnicate","path":"/data/a","value":"x"}]', contentType: 'application/json-patch+json', accept: 'application/json' });
    const s = res.status === 400 ? assertFailureStatus(res, 400, 'BadRequest', 'unknown op') : assertFailureStatus(res, 422, 'Invalid', 'unknown op');
    mentions(s, 'frobnicate');
  });
  it('a JSON patch that is not an array → 400 BadRequest', async () => {
    await expectFailure('PATCH', `${CM}/exists`, { body: '{"op":"add","path":"/data/b","value":"x"}', contentType: 'application/json-patch+json' }, 400, 'BadRequest');
  });
  it('a JSON patch whose test op fails → 422 Invalid', async () => {
    const s = await expectFailure('PATCH', `${CM}/exists`, { body: '[{"op":"test","path":"/data/a","value":"nope"},{"op":"replace","path":"/data/a","value":"x"}]', contentType: 'application/json-patch+json' }, 422, 'Invalid');
    mentions(s, /\/data\/a|test/);
    assert.equal((await getObject(ts, `${CM}/exists`)).data.a, '2');
  });
  it('force=true on a non-apply patch → 422 on force', async () => {
    const s = await expectFailure('PATCH', `${CM}/exists?force=true`, { body: '{"data":{"a":"9"}}', contentType: 'application/merge-patch+json' }, 422, 'Invalid');
    assertCauseField(s, 'force', 'force on merge patch');
  });
  it('an apply patch without fieldManager → 422 on fieldManager', async () => {
    const s = await expectFailure('PATCH', `${CM}/applied`, { body: JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'applied' } }), contentType: 'application/apply-patch+yaml' }, 422, 'Invalid');
    assertCauseField(s, 'fieldManager', 'apply without fieldManager');
    assert.equal(await getObject(ts, `${CM}/applied`), undefined);
  });

  // --- strict decoding and built-in validation ---
  it('an unknown field with fieldValidation=Strict → 400 BadRequest naming it', async () => {
    const s = await expectFailure('POST', `${DEPLOY}?fieldValidation=Strict`, { body: deployment('strict', (d) => (d.spec.foo = 1)) }, 400, 'BadRequest');
    mentions(s, 'spec.foo', /unknown field/);
    assert.equal(await getObject(ts, `${DEPLOY}/strict`), undefined);
  });
  it('a duplicate field with fieldValidation=Strict → 400 BadRequest naming it', async () => {
    const s = await expectFailure('POST', `${CM}?fieldValidation=Strict`, { body: '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"dup","name":"dup2"}}' }, 400, 'BadRequest');
    mentions(s, /duplicate field/, 'metadata.name');
    assert.equal(await getObject(ts, `${CM}/dup2`), undefined);
  });
  it('a Deployment with replicas -1 → 422 on spec.replicas', async () => {
    const s = await expectFailure('POST', DEPLOY, { body: deployment('neg', (d) => (d.spec.replicas = -1)) }, 422, 'Invalid');
    assertCauseField(s, 'spec.replicas', 'replicas -1');
    mentions(s, 'Deployment.apps "neg" is invalid');
  });
  it('a Deployment whose selector does not match the template labels → 422', async () => {
    const s = await expectFailure('POST', DEPLOY, { body: deployment('mismatch', (d) => (d.spec.template.metadata.labels = { app: 'other' })) }, 422, 'Invalid');
    assertCauseField(s, 'spec.template.metadata.labels', 'selector mismatch');
    mentions(s, /selector/);
  });
  it('a Pod with no containers → 422 on spec.containers', async () => {
    const s = await expectFailure('POST', PODS, { body: pod('empty', (p) => (p.spec.containers = [])) }, 422, 'Invalid');
    assertCauseField(s, 'spec.containers', 'no containers');
  });
  it('a Pod container without an image → 422 on spec.containers[0].image', async () => {
    const s = await expectFailure('POST', PODS, { body: pod('noimage', (p) => delete p.spec.containers[0].image) }, 422, 'Invalid');
    assertCauseField(s, 'spec.containers[0].image', 'no image');
  });

  // --- custom resource schema ---
  it('a CR violating the enum → 422 on spec.size', async () => {
    const s = await expectFailure('POST', W, { body: widget('enum', { size: 'XL' }) }, 422, 'Invalid');
    assertCauseField(s, 'spec.size', 'enum');
    mentions(s, 'XL');
  });
  it('a CR violating the pattern → 422 on spec.color', async () => {
    const s = await expectFailure('POST', W, { body: widget('pattern', { size: 'S', color: 'Red1' }) }, 422, 'Invalid');
    assertCauseField(s, 'spec.color', 'pattern');
  });
  it('a CR above the maximum → 422 on spec.replicas', async () => {
    const s = await expectFailure('POST', W, { body: widget('max', { size: 'S', replicas: 11 }) }, 422, 'Invalid');
    assertCauseField(s, 'spec.replicas', 'maximum');
    mentions(s, /10/);
  });
  it('a CR with a wrongly typed field → 422 on spec.replicas', async () => {
    const s = await expectFailure('POST', W, { body: widget('type', { size: 'S', replicas: 'three' }) }, 422, 'Invalid');
    assertCauseField(s, 'spec.replicas', 'wrong type');
    mentions(s, /integer/);
  });
  it('a CRD with an invalid schema → 422 naming the schema field', async () => {
    const crd = parseYaml(readFileSync(fixture('widget-crd.yaml'), 'utf8'));
    crd.metadata.name = 'gadgets.example.com';
    crd.spec.names = { plural: 'gadgets', singular: 'gadget', kind: 'Gadget', listKind: 'GadgetList' };
    crd.spec.versions[0].schema.openAPIV3Schema.properties.spec.properties.size.type = 'strang';
    const s = await expectFailure('POST', CRDS, { body: crd }, 422, 'Invalid');
    const fields = (s.details?.causes ?? []).map((c) => c.field ?? '');
    assert.ok(fields.some((f) => f.includes('openAPIV3Schema') && f.includes('size')), `causes should name the schema field: ${JSON.stringify(s)}`);
    mentions(s, 'strang');
    assert.equal(await getObject(ts, `${CRDS}/gadgets.example.com`), undefined);
  });
  it('a CRD whose name is not plural.group → 422 on metadata.name', async () => {
    const crd = parseYaml(readFileSync(fixture('widget-crd.yaml'), 'utf8'));
    crd.metadata.name = 'gizmos.example.com';
    crd.spec.names = { plural: 'gadgets', singular: 'gadget', kind: 'Gadget', listKind: 'GadgetList' };
    const s = await expectFailure('POST', CRDS, { body: crd }, 422, 'Invalid');
    assertCauseField(s, 'metadata.name', 'CRD name');
    mentions(s, /spec\.names\.plural/);
  });

  // --- list and watch parameters ---
  it('an invalid labelSelector → 400 BadRequest', async () => {
    const s = await expectFailure('GET', `${CM}?labelSelector=${encodeURIComponent('a in (b')}`, {}, 400, 'BadRequest');
    mentions(s, /selector|parse|requirement/i);
  });
  it('an unsupported fieldSelector field → 400 BadRequest naming it', async () => {
    const s = await expectFailure('GET', `${CM}?fieldSelector=${encodeURIComponent('spec.foo=bar')}`, {}, 400, 'BadRequest');
    mentions(s, 'spec.foo');
  });
  it('a fieldSelector with an unsupported operator → 400 BadRequest', async () => {
    const s = await expectFailure('GET', `${PODS}?fieldSelector=${encodeURIComponent('status.phase in (Running)')}`, {}, 400, 'BadRequest');
    mentions(s, /selector|status\.phase|parse/i);
  });
  it('a watch with a non-numeric resourceVersion → 400 BadRequest', async () => {
    // 400 BadRequest is the contract; kube-apiserver's storage layer reports the same as 422 Invalid on
    // field resourceVersion, so either is accepted as long as it names the value.
    const res = await ts.request('GET', `${CM}?watch=true&resourceVersion=abc`, { accept: 'application/json' });
    const s = res.status === 422 ? assertFailureStatus(res, 422, 'Invalid', 'watch rv=abc') : assertFailureStatus(res, 400, 'BadRequest', 'watch rv=abc');
    mentions(s, /abc/, /resource ?version/i);
  });
  it('a list with an invalid limit → 400 BadRequest', async () => {
    const s = await expectFailure('GET', `${CM}?limit=abc`, {}, 400, 'BadRequest');
    mentions(s, /limit|abc/);
  });
  it('a malformed continue token → 400 BadRequest', async () => {
    const s = await expectFailure('GET', `${CM}?limit=1&continue=not-a-token`, {}, 400, 'BadRequest');
    mentions(s, /continue/);
  });

  // --- deletion ---
  it('a finalizer added to a deleting object → 422 on metadata.finalizers', async () => {
    const created = await sendJson(ts, 'POST', CM, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'doomed', finalizers: ['example.com/a'] } });
    assert.equal(created.status, 201, created.text);
    const del = await sendJson(ts, 'DELETE', `${CM}/doomed`);
    assert.equal(del.status, 200, del.text);
    assert.ok((await getObject(ts, `${CM}/doomed`))?.metadata.deletionTimestamp, 'finalizer keeps the object, marked for deletion');
    const s = await expectFailure('PATCH', `${CM}/doomed`, { body: '{"metadata":{"finalizers":["example.com/a","example.com/b"]}}', contentType: 'application/merge-patch+json' }, 422, 'Invalid');
    assertCauseField(s, 'metadata.finalizers', 'new finalizer while deleting');
    mentions(s, /no new finalizers/);
    const cleared = await sendJson(ts, 'PATCH', `${CM}/doomed`, '{"metadata":{"finalizers":null}}', 'application/merge-patch+json');
    assert.equal(cleared.status, 200, cleared.text);
    await pollUntil('doomed removed once its finalizers are gone', async () => (await getObject(ts, `${CM}/doomed`)) === undefined);
  });
  it('DELETE with propagationPolicy=Bogus → 422 on propagationPolicy', async () => {
    const s = await expectFailure('DELETE', `${CM}/exists`, { body: { kind: 'DeleteOptions', apiVersion: 'v1', propagationPolicy: 'Bogus' } }, 422, 'Invalid');
    assertCauseField(s, 'propagationPolicy', 'bogus propagation');
    mentions(s, 'Bogus');
    assert.ok(await getObject(ts, `${CM}/exists`), 'the object was not deleted');
  });
  it('an eviction whose body names another pod → 400 BadRequest', async () => {
    const s = await expectFailure('POST', `${PODS}/p1/eviction`, { body: { apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name: 'p2', namespace: 'default' } } }, 400, 'BadRequest');
    mentions(s, /name/);
    const p1 = await getObject(ts, `${PODS}/p1`);
    assert.ok(p1 && !p1.metadata.deletionTimestamp, 'p1 untouched');
  });

  it('after all that, the server still serves', async () => {
    const health = await ts.request('GET', '/healthz');
    assert.equal(health.status, 200);
    assert.equal(health.body, 'ok');
    const created = await sendJson(ts, 'POST', CM, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'still-fine' }, data: { k: 'v' } });
    assert.equal(created.status, 201, created.text);
    const got = await getObject(ts, `${CM}/still-fine`);
    assert.deepEqual(got.data, { k: 'v' });
    assert.equal(got.metadata.uid, created.body.metadata.uid);
    const list = await getObject(ts, CM);
    assert.ok(list.items.some((i: Json) => i.metadata.name === 'still-fine'));
  });
});
