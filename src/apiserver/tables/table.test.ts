import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ApiError } from '../errors.ts';
import { builtinTableConvertor, builtinTableConvertors, defaultTableConvertor, tableKey } from './registry.ts';
import { parseIncludeObject, toTable } from './table.ts';

const now = Date.parse('2025-01-01T12:00:00Z');
const pod = {
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'web', namespace: 'default', labels: { app: 'web' }, creationTimestamp: '2025-01-01T11:59:00Z', resourceVersion: '7' },
  spec: { containers: [{ name: 'app' }] },
  status: { phase: 'Succeeded' },
};

describe('toTable', () => {
  it('builds a Table whose rows carry PartialObjectMetadata by default', () => {
    const table = toTable(builtinTableConvertors['/pods']!, [pod], { now, listMeta: { resourceVersion: '42', continue: 'abc', remainingItemCount: 3, selfLink: 'x' } });
    assert.equal(table.kind, 'Table');
    assert.equal(table.apiVersion, 'meta.k8s.io/v1');
    assert.deepEqual(table.metadata, { resourceVersion: '42', continue: 'abc', remainingItemCount: 3 });
    assert.equal(table.columnDefinitions.length, 9);
    assert.deepEqual(table.columnDefinitions[0], { name: 'Name', type: 'string', format: 'name', description: table.columnDefinitions[0]!.description, priority: 0 });
    assert.equal(table.rows.length, 1);
    assert.deepEqual(table.rows[0]!.object, { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: pod.metadata });
    assert.deepEqual(table.rows[0]!.cells.slice(0, 5), ['web', '0/1', 'Succeeded', '0', '60s']);
    assert.deepEqual(table.rows[0]!.conditions, [{ type: 'Completed', status: 'True', reason: 'Succeeded', message: 'The pod has completed successfully.' }]);
  });

  const includeCases: Array<{ include: string | null | undefined; object: unknown }> = [
    { include: undefined, object: { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: pod.metadata } },
    { include: null, object: { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: pod.metadata } },
    { include: 'Metadata', object: { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: pod.metadata } },
    { include: 'Object', object: pod },
    { include: 'None', object: null },
  ];
  for (const c of includeCases) {
    it(`includeObject=${String(c.include)}`, () => {
      const table = toTable(defaultTableConvertor, [pod], { now, includeObject: c.include });
      assert.deepEqual(table.rows[0]!.object, c.object);
      assert.deepEqual(table.rows[0]!.cells, ['web', '60s']);
      assert.equal('conditions' in table.rows[0]!, false);
    });
  }

  it('refuses an unknown includeObject value', () => {
    assert.throws(
      () => parseIncludeObject('Everything'),
      (err: unknown) => err instanceof ApiError && err.code === 400 && err.message === 'unrecognized includeObject value: "Everything"',
    );
  });

  it('speaks v1beta1 and can leave out the headers', () => {
    const table = toTable(defaultTableConvertor, [pod], { now, version: 'v1beta1', noHeaders: true });
    assert.equal(table.apiVersion, 'meta.k8s.io/v1beta1');
    assert.deepEqual(table.columnDefinitions, []);
    assert.deepEqual(table.rows[0]!.object, { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1beta1', metadata: pod.metadata });
  });

  it('serializes the way kubectl expects', () => {
    const json = JSON.parse(JSON.stringify(toTable(defaultTableConvertor, [], { now, listMeta: { resourceVersion: '1' } })));
    assert.deepEqual(json, {
      kind: 'Table',
      apiVersion: 'meta.k8s.io/v1',
      metadata: { resourceVersion: '1' },
      columnDefinitions: [
        { name: 'Name', type: 'string', format: 'name', description: json.columnDefinitions[0].description, priority: 0 },
        { name: 'Age', type: 'string', format: '', description: json.columnDefinitions[1].description, priority: 0 },
      ],
      rows: [],
    });
  });
});

describe('builtinTableConvertors', () => {
  it('keys printers by <group>/<resource>', () => {
    assert.deepEqual(Object.keys(builtinTableConvertors).sort(), [
      '/configmaps',
      '/endpoints',
      '/events',
      '/namespaces',
      '/nodes',
      '/pods',
      '/secrets',
      '/serviceaccounts',
      '/services',
      'apiextensions.k8s.io/customresourcedefinitions',
      'apps/daemonsets',
      'apps/deployments',
      'apps/replicasets',
      'batch/cronjobs',
      'batch/jobs',
      'certificates.k8s.io/certificatesigningrequests',
      'coordination.k8s.io/leases',
      'events.k8s.io/events',
      'policy/poddisruptionbudgets',
      'rbac.authorization.k8s.io/clusterrolebindings',
      'rbac.authorization.k8s.io/clusterroles',
      'rbac.authorization.k8s.io/rolebindings',
      'rbac.authorization.k8s.io/roles',
    ]);
    assert.equal(tableKey('', 'pods'), '/pods');
    assert.equal(builtinTableConvertor('apps', 'deployments'), builtinTableConvertors['apps/deployments']);
    assert.equal(builtinTableConvertor('storage.k8s.io', 'storageclasses'), defaultTableConvertor);
  });

  for (const [key, convertor] of Object.entries(builtinTableConvertors)) {
    it(`${key} prints a bare object, one cell per column`, () => {
      for (const obj of [{ metadata: { name: 'x' } }, {}]) {
        const cells = convertor.cells(obj, now);
        assert.equal(cells.length, convertor.columns.length);
        for (const cell of cells) assert.ok(cell === null || ['string', 'number', 'boolean'].includes(typeof cell), `${key}: ${String(cell)}`);
      }
    });
  }
});
