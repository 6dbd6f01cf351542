/**
 * Service-account tokens end to end on a real API server with a real kubectl: TokenRequest
 * (`kubectl create token`), authenticating with the token, and the tokens that must be refused
 * (expired, for another audience, of a deleted or re-created ServiceAccount, bound to a deleted
 * pod); the pod admission default; the `kubernetes` Service the API server keeps; and the
 * serving certificate re-issued when a SAN is added.
 */
import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect } from 'node:tls';
import { after, before, describe, it } from 'node:test';
import { boundTokenClaims, SERVICE_ACCOUNT_ISSUER } from '../../src/apiserver/auth/service-account-claims.ts';
import { ensureServiceAccountKeys } from '../../src/apiserver/auth/service-account-keys.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { assertCauseField, assertFailureStatus, describeResult, kubectlOk, pollUntil, sendJson, type Json } from './support.ts';

const EXTRA_AUDIENCE = 'https://vault.shipyard.test';

function claimsOf(token: string): Json {
  return JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString('utf8'));
}

describe('service-account tokens (e2e)', () => {
  let ts: TestServer;
  const createSa = (name: string, ns = 'default') => sendJson(ts, 'POST', `/api/v1/namespaces/${ns}/serviceaccounts`, { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name } });
  const tokenRequest = (name: string, spec: Json = {}, ns = 'default') =>
    sendJson(ts, 'POST', `/api/v1/namespaces/${ns}/serviceaccounts/${name}/token`, { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec });
  const listNamespaces = (token: string) => ts.request('GET', '/api/v1/namespaces', { token, accept: 'application/json' });

  before(async () => {
    ts = await startTestServer({ apiAudiences: [EXTRA_AUDIENCE], kubernetesService: { intervalMs: 300 } });
    for (const name of ['default', 'builder', 'doomed', 'reborn', 'runner']) assert.equal((await createSa(name)).status, 201);
    // Authentication is what these tests are about: every account here may list namespaces, so
    // that a refusal is the token's (401), never the authorizer's (403).
    assert.equal((await sendJson(ts, 'POST', '/apis/rbac.authorization.k8s.io/v1/clusterroles', { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: 'namespace-lister' }, rules: [{ apiGroups: [''], resources: ['namespaces'], verbs: ['get', 'list'] }] })).status, 201);
    assert.equal(
      (await sendJson(ts, 'POST', '/apis/rbac.authorization.k8s.io/v1/clusterrolebindings', { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRoleBinding', metadata: { name: 'default-accounts-list-namespaces' }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'namespace-lister' }, subjects: [{ kind: 'Group', apiGroup: 'rbac.authorization.k8s.io', name: 'system:serviceaccounts:default' }] })).status,
      201,
    );
  });
  after(async () => {
    await ts.stop();
  });

  it('kubectl create token prints a token that kubectl can then list namespaces with', async () => {
    const created = await kubectlOk(ts, ['create', 'token', 'default', '-n', 'default']);
    const token = created.stdout.trim();
    assert.match(token, /^[\w-]+\.[\w-]+\.[\w-]+$/);
    const args = ['get', 'namespaces', '--token', token, '-o', 'name'];
    const listed = await ts.kubectl(args);
    assert.equal(listed.code, 0, describeResult(args, listed));
    assert.ok(listed.stdout.includes('namespace/kube-system'), listed.stdout);
    const wrongAudience = (await kubectlOk(ts, ['create', 'token', 'default', '--audience', 'https://elsewhere.example'])).stdout.trim();
    const refused = await ts.kubectl(['get', 'namespaces', '--token', wrongAudience]);
    assert.notEqual(refused.code, 0);
    assert.match(refused.stderr, /Unauthorized|provide credentials/);
  });

  it('TokenRequest returns a signed token with Kubernetes’ bound-token claims and its expiry', async () => {
    const before = Math.floor(Date.now() / 1000);
    const res = await tokenRequest('builder');
    assert.equal(res.status, 201, res.text);
    assert.equal(res.body.kind, 'TokenRequest');
    assert.equal(res.body.apiVersion, 'authentication.k8s.io/v1');
    assert.deepEqual(res.body.spec.audiences, [SERVICE_ACCOUNT_ISSUER, EXTRA_AUDIENCE], 'no audience asked: the server’s own');
    assert.equal(res.body.spec.expirationSeconds, 3600);
    const sa = (await sendJson(ts, 'GET', '/api/v1/namespaces/default/serviceaccounts/builder')).body;
    const claims = claimsOf(res.body.status.token);
    assert.equal(claims.iss, 'https://kubernetes.default.svc');
    assert.equal(claims.sub, 'system:serviceaccount:default:builder');
    assert.deepEqual(claims.aud, [SERVICE_ACCOUNT_ISSUER, EXTRA_AUDIENCE]);
    assert.ok(claims.iat >= before && claims.nbf === claims.iat && claims.exp === claims.iat + 3600, JSON.stringify(claims));
    assert.deepEqual(claims['kubernetes.io'], { namespace: 'default', serviceaccount: { name: 'builder', uid: sa.metadata.uid } });
    assert.equal(Date.parse(res.body.status.expirationTimestamp) / 1000, claims.exp);
    assert.equal((await listNamespaces(res.body.status.token)).status, 200);
  });

  it('accepts a token for any audience the server was given, and refuses one for another', async () => {
    const extra = await tokenRequest('builder', { audiences: [EXTRA_AUDIENCE], expirationSeconds: 600 });
    assert.equal(extra.status, 201, extra.text);
    assert.equal((await listNamespaces(extra.body.status.token)).status, 200);
    const other = await tokenRequest('builder', { audiences: ['https://elsewhere.example'] });
    assertFailureStatus(await listNamespaces(other.body.status.token), 401, 'Unauthorized', 'a token for another audience');
  });

  it('refuses an expired token, and one signed by another key', async (t) => {
    const sa = (await sendJson(ts, 'GET', '/api/v1/namespaces/default/serviceaccounts/builder')).body;
    const keys = ensureServiceAccountKeys(join(ts.dataDir, 'pki'));
    const claims = (issuedAtSeconds: number) =>
      boundTokenClaims({ namespace: 'default', serviceAccount: { name: 'builder', uid: sa.metadata.uid }, audiences: [SERVICE_ACCOUNT_ISSUER], issuedAtSeconds, expirationSeconds: 600, jti: 'test' }) as unknown as Record<string, unknown>;
    const now = Math.floor(Date.now() / 1000);
    assert.equal((await listNamespaces(keys.sign(claims(now)))).status, 200, 'the same key signing a current token is accepted');
    assertFailureStatus(await listNamespaces(keys.sign(claims(now - 601))), 401, 'Unauthorized', 'an expired token');
    const strangerDir = mkdtempSync(join(tmpdir(), 'shipyard-stranger-'));
    t.after(() => rmSync(strangerDir, { recursive: true, force: true }));
    const stranger = ensureServiceAccountKeys(strangerDir);
    assertFailureStatus(await listNamespaces(stranger.sign(claims(now))), 401, 'Unauthorized', 'a token signed by another key');
  });

  it('refuses the tokens of a deleted ServiceAccount, and of one deleted and created again', async () => {
    const doomed = (await tokenRequest('doomed')).body.status.token;
    assert.equal((await sendJson(ts, 'DELETE', '/api/v1/namespaces/default/serviceaccounts/doomed')).status, 200);
    assertFailureStatus(await listNamespaces(doomed), 401, 'Unauthorized', 'token of a deleted ServiceAccount');
    const old = (await tokenRequest('reborn')).body.status.token;
    await sendJson(ts, 'DELETE', '/api/v1/namespaces/default/serviceaccounts/reborn');
    assert.equal((await createSa('reborn')).status, 201);
    assertFailureStatus(await listNamespaces(old), 401, 'Unauthorized', 'token of the ServiceAccount’s former incarnation');
    assert.equal((await listNamespaces((await tokenRequest('reborn')).body.status.token)).status, 200, 'a new token works');
  });

  it('binds a token to a pod: the pod claim, and refusal once the pod is gone', async () => {
    const pod = await sendJson(ts, 'POST', '/api/v1/namespaces/default/pods', { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'bound' }, spec: { serviceAccountName: 'runner', containers: [{ name: 'c', image: 'example/app:1' }] } });
    assert.equal(pod.status, 201, pod.text);
    const res = await tokenRequest('runner', { boundObjectRef: { apiVersion: 'v1', kind: 'Pod', name: 'bound', uid: pod.body.metadata.uid } });
    assert.equal(res.status, 201, res.text);
    assert.deepEqual(claimsOf(res.body.status.token)['kubernetes.io'].pod, { name: 'bound', uid: pod.body.metadata.uid });
    const unused = (await tokenRequest('runner', { boundObjectRef: { kind: 'Pod', name: 'bound' } })).body.status.token;
    // The kubelet's duration on a pod-bound token is stretched to a year, as kube-apiserver does; the status says the hour.
    const kubelets = await tokenRequest('runner', { expirationSeconds: 3607, boundObjectRef: { kind: 'Pod', name: 'bound' } });
    const stretched = claimsOf(kubelets.body.status.token);
    assert.equal(stretched.exp - stretched.iat, 365 * 24 * 3600);
    assert.equal(stretched['kubernetes.io'].warnafter, stretched.iat + 3607);
    assert.equal(Date.parse(kubelets.body.status.expirationTimestamp) / 1000, stretched.iat + 3607);
    const unbound = claimsOf((await tokenRequest('runner', { expirationSeconds: 3607 })).body.status.token);
    assert.equal(unbound.exp - unbound.iat, 3607, 'not stretched without a pod binding');
    assert.equal((await listNamespaces(res.body.status.token)).status, 200);
    const wrongSa = await tokenRequest('builder', { boundObjectRef: { kind: 'Pod', name: 'bound' } });
    assertCauseField(assertFailureStatus({ status: wrongSa.status, body: wrongSa.text }, 400, 'BadRequest', 'a pod of another ServiceAccount'), 'spec.boundObjectRef.name', 'pod of another ServiceAccount');
    const staleUid = await tokenRequest('runner', { boundObjectRef: { kind: 'Pod', name: 'bound', uid: 'not-the-uid' } });
    assertFailureStatus({ status: staleUid.status, body: staleUid.text }, 409, 'Conflict', 'a stale pod uid');
    await sendJson(ts, 'DELETE', '/api/v1/namespaces/default/pods/bound');
    assertFailureStatus(await listNamespaces(unused), 401, 'Unauthorized', 'token bound to a deleted pod');
  });

  it('answers bad TokenRequests with a Status naming the object and the field', async () => {
    const missing = await tokenRequest('nobody');
    const notFound = assertFailureStatus({ status: missing.status, body: missing.text }, 404, 'NotFound', 'TokenRequest for a missing ServiceAccount');
    assert.equal(notFound.details?.name, 'nobody');
    assert.match(notFound.message ?? '', /serviceaccounts "nobody" not found/);
    const short = await tokenRequest('builder', { expirationSeconds: 60 });
    const invalid = assertFailureStatus({ status: short.status, body: short.text }, 422, 'Invalid', 'expirationSeconds below the minimum');
    assertCauseField(invalid, 'spec.expirationSeconds', 'expirationSeconds below the minimum');
    assert.match(invalid.message ?? '', /TokenRequest\.authentication\.k8s\.io "builder" is invalid: .*less than 10 minutes/);
    const secret = await tokenRequest('builder', { boundObjectRef: { kind: 'Secret', name: 's' } });
    assertCauseField(assertFailureStatus({ status: secret.status, body: secret.text }, 422, 'Invalid', 'a Secret bound object'), 'spec.boundObjectRef.kind', 'a Secret bound object');
    const noPod = await tokenRequest('builder', { boundObjectRef: { kind: 'Pod', name: 'absent' } });
    assertFailureStatus({ status: noPod.status, body: noPod.text }, 404, 'NotFound', 'a missing bound pod');
    const get = await ts.request('GET', '/api/v1/namespaces/default/serviceaccounts/builder/token');
    assertFailureStatus(get, 405, 'MethodNotAllowed', 'GET on serviceaccounts/token');
  });

  it('lists serviceaccounts/token in discovery as a TokenRequest create', async () => {
    const legacy = (await sendJson(ts, 'GET', '/api/v1')).body;
    assert.deepEqual(
      legacy.resources.find((r: Json) => r.name === 'serviceaccounts/token'),
      { name: 'serviceaccounts/token', singularName: '', namespaced: true, group: 'authentication.k8s.io', version: 'v1', kind: 'TokenRequest', verbs: ['create'] },
    );
  });

  it('defaults a pod’s service account to `default`, and admits pods whose account does not exist', async () => {
    const plain = await sendJson(ts, 'POST', '/api/v1/namespaces/default/pods', { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'plain' }, spec: { containers: [{ name: 'c', image: 'example/app:1' }] } });
    assert.equal(plain.status, 201, plain.text);
    assert.equal(plain.body.spec.serviceAccountName, 'default');
    assert.equal(plain.body.spec.serviceAccount, 'default');
    const ghost = await sendJson(ts, 'POST', '/api/v1/namespaces/default/pods', { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'ghost' }, spec: { serviceAccountName: 'not-created-yet', containers: [{ name: 'c', image: 'example/app:1' }] } });
    assert.equal(ghost.status, 201, ghost.text);
    assert.equal(ghost.body.spec.serviceAccount, 'not-created-yet');
  });
});

describe('the kubernetes Service kept by the API server (e2e)', () => {
  let ts: TestServer;
  const port = () => Number(new URL(ts.server.url).port);
  const service = () => sendJson(ts, 'GET', '/api/v1/namespaces/default/services/kubernetes');
  const endpoints = () => sendJson(ts, 'GET', '/api/v1/namespaces/default/endpoints/kubernetes');
  const addresses = async (): Promise<string[]> => {
    const ep = await endpoints();
    return ep.status === 200 ? (ep.body.subsets ?? []).flatMap((s: Json) => (s.addresses ?? []).map((a: Json) => `${a.ip}:${s.ports[0].port}`)).sort() : [];
  };
  const replicaLease = (name: string, endpoint: string, renewedMsAgo: number) => ({
    apiVersion: 'coordination.k8s.io/v1',
    kind: 'Lease',
    metadata: { name, namespace: 'kube-system', labels: { 'apiserver.kubernetes.io/identity': 'kube-apiserver' }, annotations: { 'apiserver.shipyard.io/endpoint': endpoint } },
    spec: { holderIdentity: name, leaseDurationSeconds: 15, renewTime: new Date(Date.now() - renewedMsAgo).toISOString().replace('Z', '000Z') },
  });

  before(async () => {
    ts = await startTestServer({ advertiseAddress: '127.0.0.1', kubernetesService: { intervalMs: 300 } });
  });
  after(async () => {
    await ts.stop();
  });

  it('exists with ClusterIP 127.64.0.1, https 443 → the server’s port, and Endpoints naming this replica', async () => {
    const svc = await pollUntil('the kubernetes Service', async () => ((await service()).status === 200 ? (await service()).body : undefined));
    assert.equal(svc.spec.clusterIP, '127.64.0.1');
    assert.equal(svc.spec.type, 'ClusterIP');
    assert.deepEqual(svc.metadata.labels, { component: 'apiserver', provider: 'kubernetes' });
    assert.deepEqual(svc.spec.ports, [{ name: 'https', port: 443, protocol: 'TCP', targetPort: port() }]);
    assert.equal(svc.spec.selector, undefined);
    await pollUntil('Endpoints listing this replica', async () => (await addresses()).join() === `127.0.0.1:${port()}` || undefined);
    const leases = (await sendJson(ts, 'GET', '/apis/coordination.k8s.io/v1/namespaces/kube-system/leases?labelSelector=apiserver.kubernetes.io/identity%3Dkube-apiserver')).body.items;
    assert.equal(leases.length, 1);
    assert.match(leases[0].metadata.name, /^apiserver-[0-9a-f]+$/);
    assert.equal(leases[0].metadata.annotations['apiserver.shipyard.io/endpoint'], `127.0.0.1:${port()}`);
    const table = await kubectlOk(ts, ['get', 'service', 'kubernetes']);
    assert.match(table.stdout, /kubernetes\s+ClusterIP\s+127\.64\.0\.1\s+<none>\s+443\/TCP/);
  });

  it('is re-created after a delete and repaired after an edit', async () => {
    await kubectlOk(ts, ['delete', 'service', 'kubernetes']);
    const back = await pollUntil('the Service re-created', async () => {
      const s = await service();
      return s.status === 200 && s.body.spec.clusterIP === '127.64.0.1' ? s.body : undefined;
    });
    assert.equal(back.spec.ports[0].targetPort, port());
    await kubectlOk(ts, ['delete', 'endpoints', 'kubernetes']);
    await pollUntil('the Endpoints re-created', async () => (await addresses()).join() === `127.0.0.1:${port()}` || undefined);
    await kubectlOk(ts, ['patch', 'service', 'kubernetes', '--type=merge', '-p', JSON.stringify({ spec: { ports: [{ name: 'https', port: 8443, targetPort: 1234, protocol: 'TCP' }], selector: { app: 'hijack' } } })]);
    await pollUntil('the Service repaired', async () => {
      const s = (await service()).body;
      return s.spec.ports[0].port === 443 && s.spec.ports[0].targetPort === port() && !s.spec.selector ? true : undefined;
    });
    await kubectlOk(ts, ['patch', 'endpoints', 'kubernetes', '--type=merge', '-p', JSON.stringify({ subsets: [{ addresses: [{ ip: '127.9.9.9' }], ports: [{ name: 'https', port: 1, protocol: 'TCP' }] }] })]);
    await pollUntil('the Endpoints repaired', async () => (await addresses()).join() === `127.0.0.1:${port()}` || undefined);
  });

  it('lists every replica with a current lease, and drops one whose lease ran out', async () => {
    const created = await sendJson(ts, 'POST', '/apis/coordination.k8s.io/v1/namespaces/kube-system/leases', replicaLease('apiserver-peer', '127.1.0.77:6443', 0));
    assert.equal(created.status, 201, created.text);
    await sendJson(ts, 'POST', '/apis/coordination.k8s.io/v1/namespaces/kube-system/leases', replicaLease('apiserver-dead', '127.1.0.78:6443', 60_000));
    await pollUntil('the live peer listed, the dead one not', async () => (await addresses()).join() === [`127.0.0.1:${port()}`, '127.1.0.77:6443'].sort().join() || undefined);
    // The peer stops renewing: it drops out once its lease runs out (15 s here), without anyone deleting it.
    await sendJson(ts, 'PUT', '/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/apiserver-peer', { ...replicaLease('apiserver-peer', '127.1.0.77:6443', 14_000), metadata: { ...replicaLease('apiserver-peer', '127.1.0.77:6443', 0).metadata, resourceVersion: created.body.metadata.resourceVersion } });
    await pollUntil('the peer dropped out', async () => (await addresses()).join() === `127.0.0.1:${port()}` || undefined, { timeoutMs: 30_000 });
  });

  it('never gives 127.64.0.1 to another Service', async () => {
    const res = await sendJson(ts, 'POST', '/api/v1/namespaces/default/services', { apiVersion: 'v1', kind: 'Service', metadata: { name: 'squatter' }, spec: { clusterIP: '127.64.0.1', ports: [{ port: 80 }] } });
    const s = assertFailureStatus({ status: res.status, body: res.text }, 422, 'Invalid', 'a Service asking for 127.64.0.1');
    assertCauseField(s, 'spec.clusterIP', 'a Service asking for 127.64.0.1');
  });
});

describe('serving certificate re-issue (e2e)', () => {
  it('a restart with a new SAN serves a certificate with it, from the same CA', async (t) => {
    const first = await startTestServer({ kubernetesService: { intervalMs: 60_000 } });
    const dataDir = first.dataDir;
    // Only the server of `first` is closed, so its directory stays for `second`: removed when the test ends, however it ends.
    t.after(() => rmSync(dataDir, { recursive: true, force: true }));
    const caBefore = first.server.caCertPem;
    await first.server.close();
    const second = await startTestServer({ dataDir, ipAddresses: ['127.1.0.200'], dnsNames: ['api.shipyard.test'] });
    try {
      assert.equal(second.server.caCertPem, caBefore, 'the CA is kept');
      const url = new URL(second.server.url);
      const served = await new Promise<X509Certificate>((resolve, reject) => {
        const socket = connect({ host: url.hostname, port: Number(url.port), ca: caBefore, servername: 'kubernetes.default.svc' }, () => {
          const cert = socket.getPeerX509Certificate();
          socket.end();
          if (cert) resolve(cert);
          else reject(new Error('no peer certificate'));
        });
        socket.on('error', reject);
      });
      const sans = (served.subjectAltName ?? '').split(/,\s*/);
      for (const want of ['IP Address:127.1.0.200', 'DNS:api.shipyard.test', 'IP Address:127.64.0.1', 'DNS:kubernetes.default.svc.cluster.local']) assert.ok(sans.includes(want), `${want} in ${sans.join(', ')}`);
      assert.ok(served.verify(new X509Certificate(caBefore).publicKey), 'the new certificate chains to the old CA');
      await kubectlOk(second, ['get', 'namespaces']);
    } finally {
      await second.stop();
    }
  });
});
