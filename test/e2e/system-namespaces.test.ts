/**
 * Acceptance suite: the system namespaces. `kubectl delete namespace --all` cannot remove
 * `default`, `kube-system` or `kube-public` (403, worded as kube-apiserver's NamespaceLifecycle
 * plugin words it), and a system namespace that goes missing anyway (kube-node-lease, which may
 * be deleted, or one removed behind the API's back) is created again, with the `kubernetes`
 * Service back in `default`.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestServer, type TestServer } from '../support/server.ts';
import { assertFailureStatus, getObject, kubectlFails, kubectlOk, pollUntil, tolerantRequest } from './support.ts';

describe('system namespaces', { timeout: 120_000 }, () => {
  let ts: TestServer;

  before(async () => {
    ts = await startTestServer({ kubernetesService: { intervalMs: 300 } });
    await pollUntil('the kubernetes Service', () => getObject(ts, '/api/v1/namespaces/default/services/kubernetes'));
  });
  after(() => ts?.stop());

  it('kubectl delete namespace --all refuses default, kube-system and kube-public with 403 and deletes the rest', async () => {
    await kubectlOk(ts, ['create', 'namespace', 'scratch']);
    const lease = await getObject(ts, '/api/v1/namespaces/kube-node-lease');
    const r = await kubectlFails(ts, ['delete', 'namespace', '--all', '--wait=false']);
    for (const ns of ['default', 'kube-system', 'kube-public']) {
      assert.ok(r.stderr.includes(`Error from server (Forbidden): namespaces "${ns}" is forbidden: this namespace may not be deleted`), `${ns}: ${r.stderr}`);
      const obj = await getObject(ts, `/api/v1/namespaces/${ns}`);
      assert.equal(obj.status.phase, 'Active', `${ns} is untouched`);
      assert.equal(obj.metadata.deletionTimestamp, undefined);
    }
    assert.match(r.stdout, /namespace "scratch" deleted/);
    // A dry run is refused the same way, and so is a DELETE with a body.
    const dry = await tolerantRequest(ts, 'DELETE', '/api/v1/namespaces/kube-system', JSON.stringify({ dryRun: ['All'] }), 'application/json');
    const s = assertFailureStatus(dry, 403, 'Forbidden', 'dry-run delete of kube-system');
    assert.equal(s.message, 'namespaces "kube-system" is forbidden: this namespace may not be deleted');
    assert.deepEqual({ name: s.details?.name, kind: s.details?.kind }, { name: 'kube-system', kind: 'namespaces' });
    // kube-node-lease may be deleted (kube lets it be), and is created again once it is gone.
    await pollUntil('kube-node-lease to come back as a new namespace', async () => {
      const now = await getObject(ts, '/api/v1/namespaces/kube-node-lease');
      return now && now.metadata.uid !== lease.metadata.uid && now.status.phase === 'Active';
    });
    assert.ok(await getObject(ts, '/api/v1/namespaces/default/services/kubernetes'), 'the kubernetes Service is still there');
  });

  it('a system namespace removed behind the API is created again, and the kubernetes Service with it', async () => {
    const before = await getObject(ts, '/api/v1/namespaces/default');
    // What `kubectl delete namespace --all` once did, done in the store itself: no API check can stop it.
    await ts.server.backend.delete('/registry/core/services/default/kubernetes');
    await ts.server.backend.delete('/registry/core/namespaces/default');
    const again = await pollUntil('default to be created again', async () => {
      const now = await getObject(ts, '/api/v1/namespaces/default');
      return now && now.metadata.uid !== before.metadata.uid ? now : undefined;
    });
    assert.equal(again.status.phase, 'Active');
    assert.equal(again.metadata.labels['kubernetes.io/metadata.name'], 'default');
    const svc = await pollUntil('the kubernetes Service to be created again', () => getObject(ts, '/api/v1/namespaces/default/services/kubernetes'));
    assert.equal(svc.spec.clusterIP, '127.64.0.1');
  });
});
