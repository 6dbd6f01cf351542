/**
 * Acceptance suite: moving an object from client-side to server-side apply with kubectl.
 * `kubectl apply --server-side` over an object last applied with `kubectl apply` takes over the
 * fields the last-applied annotation recorded without conflicts, as kube-apiserver lets the
 * manager `kubectl` do, keeps the annotation current, and still conflicts over a field someone
 * else changed since.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestServer, type TestServer } from '../support/server.ts';
import { describeResult, kubectlFails, kubectlJson, kubectlOk, type Json } from './support.ts';

const annotation = 'kubectl.kubernetes.io/last-applied-configuration';

const deployment = (replicas: number, image: string, extra: Json = {}) =>
  JSON.stringify({
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'web', namespace: 'default', labels: { app: 'web' } },
    spec: { replicas, selector: { matchLabels: { app: 'web' } }, template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'c', image, ...extra }] } } },
  });

describe('client-side to server-side apply with kubectl', { timeout: 120_000 }, () => {
  let ts: TestServer;

  before(async () => {
    ts = await startTestServer();
  });
  after(() => ts?.stop());

  it('kubectl apply --server-side takes over a client-side applied Deployment and keeps its annotation current', async () => {
    await kubectlOk(ts, ['apply', '-f', '-'], { input: deployment(2, 'nginx:1.27') });
    const r = await kubectlOk(ts, ['apply', '--server-side', '-f', '-'], { input: deployment(3, 'nginx:1.28') });
    assert.equal(r.stdout.trim(), 'deployment.apps/web serverside-applied', describeResult(['apply', '--server-side'], r));
    const obj = await kubectlJson(ts, ['deployment', 'web', '--show-managed-fields']);
    assert.equal(obj.spec.replicas, 3);
    assert.equal(obj.spec.template.spec.containers[0].image, 'nginx:1.28');
    const recorded = JSON.parse(obj.metadata.annotations[annotation]);
    assert.equal(recorded.spec.replicas, 3, 'the annotation records the configuration applied server-side');
    assert.equal(recorded.spec.template.spec.containers[0].image, 'nginx:1.28');
    const apply = obj.metadata.managedFields.find((m: Json) => m.manager === 'kubectl' && m.operation === 'Apply');
    assert.ok(apply?.fieldsV1['f:spec']['f:replicas'], `kubectl owns spec.replicas: ${JSON.stringify(obj.metadata.managedFields)}`);
    // A client-side apply afterwards computes its merge from the current annotation, and works.
    await kubectlOk(ts, ['apply', '-f', '-'], { input: deployment(4, 'nginx:1.28') });
    assert.equal((await kubectlJson(ts, ['deployment', 'web'])).spec.replicas, 4);
  });

  it('a field changed by someone else since the client-side apply is still a conflict', async () => {
    await kubectlOk(ts, ['apply', '-f', '-'], { input: deployment(2, 'nginx:1.27').replace('"web"', '"other"').replaceAll('"app":"web"', '"app":"other"') });
    await kubectlOk(ts, ['scale', 'deployment', 'other', '--replicas=7']);
    const r = await kubectlFails(ts, ['apply', '--server-side', '-f', '-'], { input: deployment(3, 'nginx:1.27').replace('"web"', '"other"').replaceAll('"app":"web"', '"app":"other"') });
    // kubectl scale names no field manager: its change is kubectl's Update, which the apply may not take silently.
    assert.match(r.stderr, /Apply failed with 1 conflict: conflict with "kubectl"[^:]*: \.spec\.replicas/, describeResult(['apply', '--server-side'], r));
  });
});
