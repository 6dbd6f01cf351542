/**
 * Three API server replicas in this process on one data directory, as the masters of a cluster
 * share one store (issue 17): a watch on one sees a create made through another, and a read
 * right after the create sees it too; a compaction through one is a 410 for a watch from before
 * it on another; a CRD created through one is served by the others; a namespace deleted through
 * one empties and goes with every replica's namespace controller running; and the `kubernetes`
 * Endpoints list every replica, each by its own address and port, and drop one that stops.
 * Nothing here asserts a duration: each outcome is waited for as a condition.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startTestServer, type TestServer } from '../support/server.ts';
import { until } from '../support/until.ts';

interface Stream {
  readonly lines: string[];
  close(): void;
}

function watchStream(ts: TestServer, path: string): Promise<Stream> {
  return new Promise((resolve, reject) => {
    const req = request(ts.server.url + path, { headers: { authorization: `Bearer ${ts.server.adminToken}` }, ca: ts.server.caCertPem, agent: false }, (res) => {
      const lines: string[] = [];
      let buffered = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        buffered += chunk;
        const parts = buffered.split('\n');
        buffered = parts.pop()!;
        lines.push(...parts.filter(Boolean));
      });
      res.on('error', () => {});
      resolve({ lines, close: () => req.destroy() });
    });
    req.on('error', reject);
    req.end();
  });
}

const json = (r: { status: number; body: string }, what: string) => {
  assert.ok(r.status >= 200 && r.status < 300, `${what}: ${r.status} ${r.body}`);
  return JSON.parse(r.body) as { metadata: { resourceVersion: string; name: string } } & Record<string, unknown>;
};

describe('API server replicas on one store', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'shipyard-replicas-'));
  const replicas: TestServer[] = [];
  let a: TestServer;
  let b: TestServer;
  let c: TestServer;

  before(async () => {
    // One after the other: the first creates the PKI and the store that the others then share.
    const options = { dataDir, kubernetesService: { intervalMs: 200, leaseDurationSeconds: 5 } };
    for (let i = 0; i < 3; i++) replicas.push(await startTestServer(options));
    [a, b, c] = replicas as [TestServer, TestServer, TestServer];
  });
  after(async () => {
    await Promise.all(replicas.map((r) => r.stop()));
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('a create through one replica reaches a watch on another, and a read on a third right after', async () => {
    const start = json(await b.request('GET', '/api/v1/namespaces/default/configmaps'), 'list on B');
    const stream = await watchStream(b, `/api/v1/namespaces/default/configmaps?watch=true&resourceVersion=${start.metadata.resourceVersion}`);
    try {
      const created = json(
        await a.request('POST', '/api/v1/namespaces/default/configmaps', { body: JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'from-a' }, data: { k: 'v' } }), contentType: 'application/json' }),
        'create on A',
      );
      // C started after A, so A's acknowledgement is already in what C reads: no waiting.
      const read = json(await c.request('GET', '/api/v1/namespaces/default/configmaps/from-a'), 'read on C');
      assert.equal(read.metadata.resourceVersion, created.metadata.resourceVersion);
      const event = await until('the ADDED event on B', () => stream.lines.map((l) => JSON.parse(l) as { type: string; object: { metadata: { name: string; resourceVersion: string } } }).find((e) => e.object.metadata.name === 'from-a'));
      assert.equal(event.type, 'ADDED');
      assert.equal(event.object.metadata.resourceVersion, created.metadata.resourceVersion);
    } finally {
      stream.close();
    }
  });

  it('a compaction through one replica is a 410 for a watch from before it on another', async () => {
    const first = json(
      await a.request('POST', '/api/v1/namespaces/default/configmaps', { body: JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'compacted' }, data: { n: '0' } }), contentType: 'application/json' }),
      'create',
    );
    let rv = first.metadata.resourceVersion;
    for (let n = 1; n <= 3; n++) {
      const body = JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'compacted', resourceVersion: rv }, data: { n: String(n) } });
      rv = json(await a.request('PUT', '/api/v1/namespaces/default/configmaps/compacted', { body, contentType: 'application/json' }), 'update').metadata.resourceVersion;
    }
    await a.server.backend.compact(Number(rv));
    const stream = await watchStream(b, `/api/v1/namespaces/default/configmaps?watch=true&resourceVersion=${first.metadata.resourceVersion}`);
    try {
      const error = await until('the watch error on B', () => stream.lines.map((l) => JSON.parse(l) as { type: string; object: { code?: number; reason?: string } }).find((e) => e.type === 'ERROR'));
      assert.equal(error.object.code, 410);
      assert.equal(error.object.reason, 'Expired');
    } finally {
      stream.close();
    }
    const list = await c.request('GET', `/api/v1/namespaces/default/configmaps?resourceVersion=${first.metadata.resourceVersion}&resourceVersionMatch=Exact`);
    assert.equal(list.status, 410, list.body);
  });

  it('a CRD created through one replica is served by the others, and a namespace deleted through one empties and goes', async () => {
    const crd = {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'widgets.replicas.example.com' },
      spec: {
        group: 'replicas.example.com',
        scope: 'Namespaced',
        names: { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList' },
        versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: { size: { type: 'integer' } } } } } } }],
      },
    };
    json(await a.request('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', { body: JSON.stringify(crd), contentType: 'application/json' }), 'CRD on A');
    json(await b.request('POST', '/api/v1/namespaces', { body: JSON.stringify({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'shared' } }), contentType: 'application/json' }), 'namespace on B');
    const widget = JSON.stringify({ apiVersion: 'replicas.example.com/v1', kind: 'Widget', metadata: { name: 'w' }, spec: { size: 3 } });
    // Until C serves the CRD it answers 404. A 409 means an earlier try was created though its
    // answer was lost (a slow machine): C serves it either way, which is what is asked here.
    let last = '';
    await until('a Widget created through C', async () => {
      const r = await c.request('POST', '/apis/replicas.example.com/v1/namespaces/shared/widgets', { body: widget, contentType: 'application/json' }).catch((err: Error) => ({ status: 0, body: err.message }));
      last = `${r.status} ${r.body.slice(0, 300)}`;
      return r.status === 201 || r.status === 409;
    }).catch((err: Error) => assert.fail(`${err.message}; C last answered: ${last}`));
    const made = JSON.parse((await c.request('GET', '/apis/replicas.example.com/v1/namespaces/shared/widgets/w')).body) as { spec?: { size?: number } };
    assert.equal(made.spec?.size, 3, 'the Widget, read back through C');
    const established = await until('Established on every replica’s view', async () => {
      const r = await b.request('GET', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions/widgets.replicas.example.com');
      const conditions = (JSON.parse(r.body) as { status?: { conditions?: Array<{ type: string; status: string }> } }).status?.conditions ?? [];
      return conditions.find((x) => x.type === 'Established' && x.status === 'True');
    });
    assert.ok(established);

    const del = await a.request('DELETE', '/api/v1/namespaces/shared');
    assert.equal(del.status, 200, del.body);
    await until('the namespace gone', async () => (await c.request('GET', '/api/v1/namespaces/shared')).status === 404, 60_000);
    assert.equal((await b.request('GET', '/apis/replicas.example.com/v1/namespaces/shared/widgets/w')).status, 404);
  });

  it('the kubernetes Endpoints list every replica by its own address, and drop one that stops', async () => {
    const subsetsOn = async (ts: TestServer) => {
      const ep = JSON.parse((await ts.request('GET', '/api/v1/namespaces/default/endpoints/kubernetes')).body) as { subsets?: Array<{ addresses: Array<{ ip: string }>; ports: Array<{ port: number }> }> };
      return (ep.subsets ?? []).flatMap((s) => s.addresses.map((x) => `${x.ip}:${s.ports[0]!.port}`)).sort();
    };
    const all = replicas.map((r) => `127.0.0.1:${r.server.port}`).sort();
    await until('every replica in the Endpoints', async () => JSON.stringify(await subsetsOn(a)) === JSON.stringify(all));
    // One Service, whichever replica wrote it last, pointing at a replica that is there.
    const svc = JSON.parse((await b.request('GET', '/api/v1/namespaces/default/services/kubernetes')).body) as { spec: { clusterIP: string; ports: Array<{ targetPort: number }> } };
    assert.equal(svc.spec.clusterIP, '127.64.0.1');
    assert.ok(replicas.some((r) => r.server.port === svc.spec.ports[0]!.targetPort));

    await c.stop();
    const left = [a, b].map((r) => `127.0.0.1:${r.server.port}`).sort();
    await until('the stopped replica out of the Endpoints', async () => JSON.stringify(await subsetsOn(b)) === JSON.stringify(left));
    await until('the Service pointing at a replica still there', async () => {
      const s = JSON.parse((await a.request('GET', '/api/v1/namespaces/default/services/kubernetes')).body) as { spec: { ports: Array<{ targetPort: number }> } };
      return [a, b].some((r) => r.server.port === s.spec.ports[0]!.targetPort);
    });
  });
});
