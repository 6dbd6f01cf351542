/**
 * Acceptance suite: the defaults kube-apiserver applies to pods and to pod templates, seen the
 * way a user sees them: `kubectl describe pod` prints a fieldRef env var as `(v1:metadata.name)`
 * and a volume given no source as an EmptyDir, and a Deployment's template carries the PodSpec
 * defaults but none of those only a Pod gets.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestServer, type TestServer } from '../support/server.ts';
import { kubectlJson, kubectlOk } from './support.ts';

const podSpec = {
  containers: [
    {
      name: 'app',
      image: 'busybox:1.36',
      env: [{ name: 'MY_POD', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } }],
      readinessProbe: { httpGet: { port: 8080 } },
      volumeMounts: [{ name: 'scratch', mountPath: '/scratch' }],
    },
  ],
  volumes: [{ name: 'scratch' }],
};

describe('defaults of pods and pod templates', { timeout: 120_000 }, () => {
  let ts: TestServer;

  before(async () => {
    ts = await startTestServer();
  });
  after(() => ts?.stop());

  it('kubectl describe pod shows the defaulted fieldRef apiVersion and the emptyDir of a volume with no source', async () => {
    await kubectlOk(ts, ['apply', '-f', '-'], { input: JSON.stringify({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'described', namespace: 'default' }, spec: podSpec }) });
    const out = (await kubectlOk(ts, ['describe', 'pod', 'described'])).stdout;
    assert.match(out, /MY_POD:\s+described \(v1:metadata\.name\)/, out);
    assert.match(out, /scratch:\n\s+Type:\s+EmptyDir \(a temporary directory that shares a pod's lifetime\)/, out);
    assert.match(out, /Readiness:\s+http-get http:\/\/:8080\/ delay=0s timeout=1s period=10s #success=1 #failure=3/, out);
    const pod = await kubectlJson(ts, ['pod', 'described']);
    assert.equal(pod.spec.priority, 0);
    assert.equal(pod.spec.enableServiceLinks, true);
    assert.equal(pod.spec.serviceAccountName, 'default');
  });

  it('a Deployment\'s pod template gets the PodSpec defaults, and only those', async () => {
    await kubectlOk(ts, ['apply', '-f', '-'], {
      input: JSON.stringify({ apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web', namespace: 'default' }, spec: { selector: { matchLabels: { app: 'web' } }, template: { metadata: { labels: { app: 'web' } }, spec: podSpec } } }),
    });
    const spec = (await kubectlJson(ts, ['deployment', 'web'])).spec.template.spec;
    assert.equal(spec.containers[0].env[0].valueFrom.fieldRef.apiVersion, 'v1');
    assert.deepEqual(spec.volumes[0], { name: 'scratch', emptyDir: {} });
    assert.deepEqual(spec.containers[0].readinessProbe, { httpGet: { port: 8080, path: '/', scheme: 'HTTP' }, timeoutSeconds: 1, periodSeconds: 10, successThreshold: 1, failureThreshold: 3 });
    for (const podOnly of ['serviceAccountName', 'enableServiceLinks', 'priority', 'tolerations']) assert.equal(spec[podOnly], undefined, `${podOnly} is a Pod's default, not a template's`);
  });
});
