/**
 * Acceptance suite: CRD validation rules (`x-kubernetes-validations`) and the status
 * subresource's schema checks, driven with a real kubectl. A valid object is accepted; an
 * invalid spec, an invalid status written through `/status` (kubectl replace
 * --subresource=status and a raw merge patch) and a refused transition (oldSelf) each get a
 * 422 naming the field and the rule's message; a rule that does not compile keeps its CRD out;
 * a runaway rule is cut off by the cost limit and the server goes on serving; a default added to
 * the CRD later shows up on objects stored before it.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestServer, type TestServer } from '../support/server.ts';
import { assertCauseField, assertFailureStatus, getObject, kubectlFails, kubectlJson, kubectlOk, openStream, pollUntil, sendJson, type Json } from './support.ts';

const CRDS = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';
const GADGETS = '/apis/rules.example.com/v1/namespaces/default/gadgets';

function gadgetCrd(extraSpecProperties: Json = {}): Json {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: 'gadgets.rules.example.com' },
    spec: {
      group: 'rules.example.com',
      scope: 'Namespaced',
      names: { plural: 'gadgets', singular: 'gadget', kind: 'Gadget', listKind: 'GadgetList' },
      versions: [
        {
          name: 'v1',
          served: true,
          storage: true,
          subresources: { status: {} },
          schema: {
            openAPIV3Schema: {
              type: 'object',
              properties: {
                spec: {
                  type: 'object',
                  required: ['replicas', 'maxReplicas'],
                  properties: {
                    replicas: { type: 'integer', minimum: 0 },
                    maxReplicas: { type: 'integer' },
                    mode: { type: 'string', 'x-kubernetes-validations': [{ rule: 'self == oldSelf', message: 'mode is immutable once set' }] },
                    name: { type: 'string', 'x-kubernetes-validations': [{ rule: "self.matches('^[a-z]+$')", messageExpression: "'name ' + self + ' must be lowercase letters'" }] },
                    items: { type: 'array', maxItems: 1000, items: { type: 'integer' } },
                    ...extraSpecProperties,
                  },
                  'x-kubernetes-validations': [
                    { rule: 'self.replicas <= self.maxReplicas', message: 'replicas may not exceed maxReplicas', fieldPath: '.replicas' },
                    // Within the static estimate (about 7·10^6 for 1000 items), far over the run-time limit of 10^6.
                    { rule: '!has(self.items) || self.items.all(x, self.items.all(y, x + y >= 0))', message: 'items must not sum below zero' },
                  ],
                },
                status: {
                  type: 'object',
                  required: ['phase'],
                  properties: {
                    phase: { type: 'string', enum: ['Pending', 'Running'] },
                    observedGeneration: { type: 'integer', format: 'int64' },
                    ready: { type: 'integer', default: 0 },
                    startedAt: { type: 'string', format: 'date-time' },
                  },
                  'x-kubernetes-validations': [{ rule: 'self.ready <= 100', message: 'ready must be at most 100', fieldPath: '.ready' }],
                },
              },
            },
          },
        },
      ],
    },
  };
}

const gadget = (name: string, spec: Json): Json => ({ apiVersion: 'rules.example.com/v1', kind: 'Gadget', metadata: { name, namespace: 'default' }, spec });

describe('CRD validation rules and /status schema checks through kubectl', { timeout: 120_000 }, () => {
  let ts: TestServer;
  const apply = (obj: Json) => ts.kubectl(['apply', '-f', '-'], { input: JSON.stringify(obj) });

  before(async () => {
    ts = await startTestServer();
    await kubectlOk(ts, ['apply', '-f', '-'], { input: JSON.stringify(gadgetCrd()) });
    await pollUntil('gadgets served', async () => (await ts.request('GET', GADGETS)).status === 200);
  });
  after(async () => {
    await ts?.stop();
  });

  it('accepts an object every rule holds for', async () => {
    await kubectlOk(ts, ['apply', '-f', '-'], { input: JSON.stringify(gadget('g1', { replicas: 2, maxReplicas: 3, mode: 'fast', name: 'alpha', items: [1, 2, 3] })) });
    const g = await kubectlJson(ts, ['gadget', 'g1']);
    assert.equal(g.spec.replicas, 2);
  });

  it('refuses an invalid spec with 422 naming the field and the rule message', async () => {
    const r = await kubectlFails(ts, ['apply', '-f', '-'], { input: JSON.stringify(gadget('g2', { replicas: 5, maxReplicas: 3, name: 'Beta' })) });
    assert.match(r.stderr, /The Gadget "g2" is invalid/);
    assert.match(r.stderr, /spec\.replicas: Invalid value: "object": replicas may not exceed maxReplicas/);
    assert.match(r.stderr, /spec\.name: Invalid value: "string": name Beta must be lowercase letters/);
    const raw = await sendJson(ts, 'POST', GADGETS, gadget('g2', { replicas: 5, maxReplicas: 3 }));
    const status = assertFailureStatus({ status: raw.status, body: raw.text }, 422, 'Invalid', 'POST g2');
    assertCauseField(status, 'spec.replicas', 'POST g2');
    assert.equal(await getObject(ts, `${GADGETS}/g2`), undefined, 'nothing was stored');
  });

  it('refuses a transition a rule with oldSelf forbids, and allows the same value', async () => {
    const r = await kubectlFails(ts, ['patch', 'gadget', 'g1', '--type=merge', '-p', '{"spec":{"mode":"slow"}}']);
    assert.match(r.stderr, /spec\.mode: Invalid value: "string": mode is immutable once set/);
    await kubectlOk(ts, ['patch', 'gadget', 'g1', '--type=merge', '-p', '{"spec":{"replicas":3}}']);
    assert.equal((await kubectlJson(ts, ['gadget', 'g1'])).spec.mode, 'fast');
  });

  it('checks a status written with kubectl replace --subresource=status against the schema', async () => {
    const g = await kubectlJson(ts, ['gadget', 'g1']);
    const bad = await kubectlFails(ts, ['replace', '--subresource=status', '-f', '-'], { input: JSON.stringify({ ...g, status: { observedGeneration: 'abc', startedAt: 'yesterday' } }) });
    assert.match(bad.stderr, /status\.observedGeneration: Invalid value: "string": status\.observedGeneration in body must be of type integer: "string"/);
    assert.match(bad.stderr, /status\.phase: Required value/);
    assert.match(bad.stderr, /status\.startedAt: Invalid value: "yesterday"/);
    const unknown = await kubectlFails(ts, ['replace', '--subresource=status', '-f', '-'], { input: JSON.stringify({ ...g, status: { phase: 'Running', colour: 'red' } }) });
    assert.match(unknown.stderr, /unknown field "status\.colour"/);

    await kubectlOk(ts, ['replace', '--subresource=status', '-f', '-'], { input: JSON.stringify({ ...g, status: { phase: 'Running', observedGeneration: g.metadata.generation } }) });
    const stored = await kubectlJson(ts, ['gadget', 'g1']);
    assert.deepEqual(stored.status, { phase: 'Running', observedGeneration: g.metadata.generation, ready: 0 }, 'status defaults apply');
  });

  it('runs the status rules on a raw merge patch to /status, and keeps the stored status', async () => {
    const raw = await sendJson(ts, 'PATCH', `${GADGETS}/g1/status`, { status: { ready: 500 } }, 'application/merge-patch+json');
    const status = assertFailureStatus({ status: raw.status, body: raw.text }, 422, 'Invalid', 'PATCH g1/status');
    assertCauseField(status, 'status.ready', 'PATCH g1/status');
    assert.match(status.message ?? '', /status\.ready: Invalid value: "object": ready must be at most 100/);
    const g = await kubectlJson(ts, ['gadget', 'g1']);
    assert.equal(g.status.ready, 0, 'the refused write changed nothing');
    const ok = await sendJson(ts, 'PATCH', `${GADGETS}/g1/status`, { status: { ready: 7 } }, 'application/merge-patch+json');
    assert.equal(ok.status, 200, ok.text);
  });

  it('cuts off a runaway rule at the cost limit and keeps serving', async () => {
    // 1000^2 steps if the limit did not cut it off.
    const raw = await sendJson(ts, 'POST', GADGETS, gadget('g3', { replicas: 1, maxReplicas: 1, items: Array.from({ length: 1000 }, (_, i) => i) }));
    const status = assertFailureStatus({ status: raw.status, body: raw.text }, 422, 'Invalid', 'POST g3');
    assert.match(status.message ?? '', /call cost exceeds limit for rule: items must not sum below zero/);
    await kubectlOk(ts, ['get', 'gadgets']);
  });

  it('refuses a CRD whose rule does not compile, naming the rule', async () => {
    const crd = gadgetCrd();
    crd.metadata.name = 'brokens.rules.example.com';
    crd.spec.names = { plural: 'brokens', singular: 'broken', kind: 'Broken', listKind: 'BrokenList' };
    crd.spec.versions[0].schema.openAPIV3Schema.properties.spec['x-kubernetes-validations'] = [{ rule: 'self.replicas <=', message: 'broken' }];
    const r = await apply(crd);
    assert.notEqual(r.code, 0);
    assert.match(r.stderr, /spec\.versions\[0\]\.schema\.openAPIV3Schema\.properties\[spec\]\.x-kubernetes-validations\[0\]\.rule: Invalid value: .*compilation failed: ERROR: <input>:1:17: Unexpected token: EOF/);
    assert.equal(await getObject(ts, `${CRDS}/brokens.rules.example.com`), undefined);
  });

  it('defaults objects stored before the default was added, on get, list and watch', async () => {
    await kubectlOk(ts, ['apply', '-f', '-'], { input: JSON.stringify(gadgetCrd({ colour: { type: 'string', default: 'blue' } })) });
    await pollUntil('the new default served', async () => (await getObject(ts, `${GADGETS}/g1`))?.spec?.colour === 'blue');
    const list = await kubectlJson(ts, ['gadgets']);
    assert.equal(list.items.find((i: Json) => i.metadata.name === 'g1')?.spec.colour, 'blue');
    // A watch from the start replays rows written before the default existed: they are defaulted too.
    const watch = openStream(ts, `${GADGETS}?watch=true&resourceVersion=1`);
    try {
      assert.equal((await watch.response).status, 200);
      await pollUntil('replayed g1 events', async () => watch.lines.length >= 3);
      const events = watch.lines.map((l) => JSON.parse(l) as Json).filter((e) => e.object?.metadata?.name === 'g1');
      assert.ok(events.length >= 3, `${events.length} events`);
      for (const e of events) assert.equal(e.object.spec.colour, 'blue', `${e.type} at ${e.object.metadata.resourceVersion}`);
    } finally {
      watch.close();
    }
  });
});
