/**
 * The kubelet's automatic `kube-api-access` volume against a real API server: the token is a
 * TokenRequest bound to the pod (and the server accepts it), `ca.crt` comes from the
 * namespace's `kube-root-ca.crt` ConfigMap (the kubelet's own CA until there is one), and a
 * pod whose token cannot be had fails its volume setup with a message saying why: there is no
 * fallback to another credential.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { KubeConfig, type V1Pod } from '@kubernetes/client-node';
import { materializeVolumes, MountError, rootfsFor, type VolumeDeps } from '../../src/node/volumes.ts';
import { ApiClient } from '../../src/runtime/client.ts';
import { SERVICE_ACCOUNT_DIR } from '../../src/runtime/kubeconfig.ts';
import { resources } from '../../src/runtime/resources.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

describe('kubelet service-account volume (TokenRequest, no fallback)', () => {
  let ts: TestServer;
  let client: ApiClient;
  let base: string;
  let deps: VolumeDeps;
  const KUBELET_CA = '-----BEGIN CERTIFICATE-----\nthe kubelet’s copy\n-----END CERTIFICATE-----\n';

  const createPod = (name: string, serviceAccountName: string) =>
    client.create<V1Pod>(resources.pods, { apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'default' }, spec: { serviceAccountName, nodeName: 'n1', containers: [{ name: 'app', image: 'example/app:1' }] } });
  const files = (podDir: string) => {
    const dir = join(rootfsFor(podDir, 'app'), SERVICE_ACCOUNT_DIR);
    return { token: readFileSync(join(dir, 'token'), 'utf8'), ca: readFileSync(join(dir, 'ca.crt'), 'utf8'), namespace: readFileSync(join(dir, 'namespace'), 'utf8') };
  };

  before(async () => {
    ts = await startTestServer();
    const kubeConfig = new KubeConfig();
    kubeConfig.loadFromFile(ts.server.kubeconfigPath);
    client = new ApiClient(kubeConfig, { userAgent: 'kubelet-volume-test' });
    base = mkdtempSync(join(tmpdir(), 'shipyard-sa-volume-'));
    deps = { client, nodeRoot: join(base, 'root'), nodeName: 'n1', podIP: '127.130.0.5', hostIP: '127.1.0.5', caCert: KUBELET_CA };
    await client.create(resources.serviceAccounts, { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'runner', namespace: 'default' } });
  });
  after(async () => {
    client.close();
    await ts.stop();
    rmSync(base, { recursive: true, force: true });
  });

  it('writes a pod-bound token the API server accepts, the namespace, and the kubelet’s CA while no ConfigMap exists', async () => {
    const pod = await createPod('with-token', 'runner');
    const podDir = join(base, 'pods', pod.metadata!.uid!);
    await materializeVolumes(pod, podDir, deps);
    const f = files(podDir);
    const claims = JSON.parse(Buffer.from(f.token.split('.')[1]!, 'base64url').toString('utf8'));
    assert.equal(claims.sub, 'system:serviceaccount:default:runner');
    assert.deepEqual(claims['kubernetes.io'].pod, { name: 'with-token', uid: pod.metadata!.uid });
    // The kubelet's 3607 s: issued for a year (the pod binding still revokes it), warning after the hour.
    assert.equal(claims['kubernetes.io'].warnafter, claims.iat + 3607);
    assert.equal(claims.exp - claims.iat, 365 * 24 * 3600);
    // The server authenticates the token as the pod's account (what it may do is RBAC's business).
    const who = await ts.request('POST', '/apis/authentication.k8s.io/v1/selfsubjectreviews', { token: f.token, contentType: 'application/json', body: JSON.stringify({ apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' }) });
    assert.equal(who.status, 201, who.body);
    assert.equal(JSON.parse(who.body).status.userInfo.username, 'system:serviceaccount:default:runner');
    assert.equal(f.namespace, 'default');
    assert.equal(f.ca, KUBELET_CA);
  });

  it('takes ca.crt from the namespace’s kube-root-ca.crt ConfigMap once there is one', async () => {
    await client.create(resources.configMaps, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'kube-root-ca.crt', namespace: 'default' }, data: { 'ca.crt': ts.server.caCertPem } });
    const pod = await createPod('with-published-ca', 'runner');
    const podDir = join(base, 'pods', pod.metadata!.uid!);
    await materializeVolumes(pod, podDir, deps);
    assert.equal(files(podDir).ca, ts.server.caCertPem);
  });

  it('fails the volume setup, naming the service account and the cause, when no token can be had', async () => {
    const pod = await createPod('no-account', 'ghost');
    await assert.rejects(materializeVolumes(pod, join(base, 'pods', pod.metadata!.uid!), deps), (err: unknown) => {
      assert.ok(err instanceof MountError, String(err));
      assert.equal(err.volume, 'kube-api-access-shipyard');
      assert.match(err.message, /^MountVolume\.SetUp failed for volume "kube-api-access-shipyard" : failed to fetch token for service account default\/ghost: 404 NotFound: serviceaccounts "ghost" not found$/);
      return true;
    });
  });
});
