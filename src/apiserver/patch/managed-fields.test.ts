import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { KubeObject } from '../registry/resource.ts';
import {
  capUpdateManagers,
  decodeManagedFields,
  describeManager,
  encodeManagedFields,
  formatTime,
  updateManagedFields,
  type ManagedFieldsEntry,
} from './managed-fields.ts';
import { deploymentSchema, podSchema, resolve } from './test-schemas.ts';

const t0 = new Date('2024-01-01T00:00:00Z');
const t1 = new Date('2024-01-01T00:01:00.500Z');
const t2 = new Date('2024-01-01T00:02:00Z');

const deployment = (): KubeObject => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'web', namespace: 'default', uid: 'u1', resourceVersion: '7', generation: 1, creationTimestamp: '2024-01-01T00:00:00Z', labels: { app: 'web' } },
  spec: { replicas: 1, selector: { matchLabels: { app: 'web' } }, template: { spec: { containers: [{ name: 'c', image: 'c:1' }] } } },
});

function write(live: KubeObject | undefined, updated: KubeObject, manager: string, now: Date, extra: { subresource?: string; resetFields?: string[][] } = {}): KubeObject {
  const managedFields = updateManagedFields({ live, updated, manager, apiVersion: 'apps/v1', now, schema: deploymentSchema, resolve, ...extra });
  return { ...updated, metadata: { ...updated.metadata, managedFields } };
}

const byManager = (obj: KubeObject): Record<string, KubeObject> => Object.fromEntries((obj.metadata.managedFields as ManagedFieldsEntry[]).map((e) => [e.manager, e.fieldsV1]));

describe('updateManagedFields', () => {
  it('gives a creator every field it set, maps it created marked with "."', () => {
    const created = write(undefined, deployment(), 'kubectl-create', t0);
    assert.deepEqual(created.metadata.managedFields, [
      {
        manager: 'kubectl-create',
        operation: 'Update',
        apiVersion: 'apps/v1',
        time: '2024-01-01T00:00:00Z',
        fieldsType: 'FieldsV1',
        fieldsV1: {
          'f:metadata': { 'f:labels': { '.': {}, 'f:app': {} } },
          'f:spec': {
            '.': {},
            'f:replicas': {},
            'f:selector': {},
            'f:template': { '.': {}, 'f:spec': { '.': {}, 'f:containers': { '.': {}, 'k:{"name":"c"}': { '.': {}, 'f:image': {}, 'f:name': {} } } } },
          },
        },
      },
    ]);
  });

  it('moves a changed field to the writer, keeps the rest with its owner, and orders entries by time', () => {
    const created = write(undefined, deployment(), 'creator', t0);
    const scaled = structuredClone(created);
    scaled.spec.replicas = 3;
    const after = write(created, scaled, 'kubectl-scale', t1);
    assert.deepEqual(
      after.metadata.managedFields.map((e: ManagedFieldsEntry) => [e.manager, e.time]),
      [['creator', '2024-01-01T00:00:00Z'], ['kubectl-scale', '2024-01-01T00:01:00Z']],
    );
    assert.deepEqual(byManager(after)['kubectl-scale'], { 'f:spec': { 'f:replicas': {} } });
    assert.equal('f:replicas' in byManager(after).creator['f:spec'], false);
    assert.ok('f:selector' in byManager(after).creator['f:spec']);
  });

  it('drops an entry left owning nothing', () => {
    const unmanaged = { apiVersion: 'v1', kind: 'X', metadata: { name: 'a' }, spec: { replicas: 1 } };
    const first = write(unmanaged, { ...unmanaged, spec: { replicas: 2 } }, 'first', t0);
    assert.deepEqual(byManager(first), { first: { 'f:spec': { 'f:replicas': {} } } });
    const second = write(first, { ...structuredClone(first), spec: { replicas: 3 } }, 'second', t1);
    assert.deepEqual(Object.keys(byManager(second)), ['second']);
    assert.deepEqual(byManager(second).second, { 'f:spec': { 'f:replicas': {} } });
  });

  it('takes removed fields away from their owner without giving them to the writer', () => {
    const created = write(undefined, deployment(), 'creator', t0);
    const edited = structuredClone(created);
    delete edited.metadata.labels;
    const after = write(created, edited, 'editor', t1);
    assert.deepEqual(Object.keys(byManager(after)), ['creator']);
    assert.equal('f:metadata' in byManager(after).creator, false);
  });

  it('leaves everything as it was when nothing ownable changed', () => {
    const created = write(undefined, deployment(), 'creator', t0);
    const touched = structuredClone(created);
    touched.metadata.resourceVersion = '8';
    touched.metadata.generation = 2;
    assert.deepEqual(write(created, touched, 'other', t1).metadata.managedFields, created.metadata.managedFields);
  });

  it('grows the same manager’s entry and refreshes its time', () => {
    const created = write(undefined, deployment(), 'kubectl-edit', t0);
    const edited = structuredClone(created);
    edited.spec.paused = true;
    const after = write(created, edited, 'kubectl-edit', t1);
    assert.equal(after.metadata.managedFields.length, 1);
    assert.equal(after.metadata.managedFields[0].time, '2024-01-01T00:01:00Z');
    assert.ok('f:paused' in byManager(after)['kubectl-edit']['f:spec']);
    assert.ok('f:replicas' in byManager(after)['kubectl-edit']['f:spec']);
  });

  it('keeps Update entries of one manager at different apiVersions apart', () => {
    const created = write(undefined, deployment(), 'm', t0);
    const edited = structuredClone(created);
    edited.spec.paused = true;
    const managedFields = updateManagedFields({ live: created, updated: edited, manager: 'm', apiVersion: 'apps/v1beta2', now: t1, schema: deploymentSchema, resolve });
    assert.deepEqual(managedFields.map((e) => e.apiVersion), ['apps/v1', 'apps/v1beta2']);
  });

  it('records a subresource write in its own entry, ignoring managedFields the request carries', () => {
    const created = write(undefined, deployment(), 'creator', t0);
    const status = structuredClone(created);
    status.status = { replicas: 1 };
    status.metadata.managedFields = [];
    const after = write(created, status, 'controller', t1, { subresource: 'status' });
    const entry = after.metadata.managedFields.find((e: ManagedFieldsEntry) => e.manager === 'controller');
    assert.deepEqual(entry, {
      manager: 'controller',
      operation: 'Update',
      apiVersion: 'apps/v1',
      time: '2024-01-01T00:01:00Z',
      fieldsType: 'FieldsV1',
      fieldsV1: { 'f:status': { '.': {}, 'f:replicas': {} } },
      subresource: 'status',
    });
    assert.equal(after.metadata.managedFields.length, 2);
  });

  for (const reset of [[], [{}]]) {
    it(`resets managedFields when the request sets ${JSON.stringify(reset)}`, () => {
      const created = write(undefined, deployment(), 'creator', t0);
      const cleared = { ...structuredClone(created), metadata: { ...created.metadata, managedFields: reset } };
      assert.deepEqual(write(created, cleared, 'anyone', t1).metadata.managedFields, []);
    });
  }

  it('uses a valid list the request sets, and the stored one when the request’s is invalid', () => {
    const created = write(undefined, deployment(), 'creator', t0);
    const own: ManagedFieldsEntry[] = [{ manager: 'mine', operation: 'Update', apiVersion: 'apps/v1', fieldsType: 'FieldsV1', fieldsV1: { 'f:spec': { 'f:replicas': {} } } }];
    assert.deepEqual(write(created, { ...created, metadata: { ...created.metadata, managedFields: own } }, 'x', t1).metadata.managedFields, own);
    const invalid = [{ manager: 'broken', operation: 'Sideways' }];
    assert.deepEqual(write(created, { ...created, metadata: { ...created.metadata, managedFields: invalid } }, 'x', t1).metadata.managedFields, created.metadata.managedFields);
  });

  it('leaves reset fields to nobody', () => {
    const created = write(undefined, { ...deployment(), status: { replicas: 5 } }, 'creator', t0, { resetFields: [['status']] });
    assert.equal('f:status' in byManager(created).creator, false);
  });
});

describe('managedFields entries', () => {
  const entry = (manager: string, operation: 'Apply' | 'Update', time: string, apiVersion = 'v1'): ManagedFieldsEntry => ({
    manager,
    operation,
    apiVersion,
    time,
    fieldsType: 'FieldsV1',
    fieldsV1: { [`f:${manager}`]: {} },
  });

  it('sort Apply before Update, then by time and manager', () => {
    const entries = [entry('b', 'Update', '2024-01-01T00:00:05Z'), entry('z', 'Apply', '2024-01-01T00:00:09Z'), entry('a', 'Update', '2024-01-01T00:00:05Z'), entry('c', 'Update', '2024-01-01T00:00:01Z')];
    assert.deepEqual(encodeManagedFields(decodeManagedFields(entries)!).map((e) => e.manager), ['z', 'c', 'a', 'b']);
  });

  it('fold the oldest of more than ten Update entries into ancient-changes', () => {
    const entries = Array.from({ length: 12 }, (_, i) => entry(`m${String(i).padStart(2, '0')}`, 'Update', `2024-01-01T00:00:${String(i).padStart(2, '0')}Z`));
    const capped = encodeManagedFields(capUpdateManagers(decodeManagedFields(entries)!));
    assert.equal(capped.length, 10);
    const ancient = capped.find((e) => e.manager === 'ancient-changes')!;
    assert.deepEqual(ancient.fieldsV1, { 'f:m00': {}, 'f:m01': {}, 'f:m02': {} });
    assert.equal(ancient.time, '2024-01-01T00:00:02Z');
  });

  it('name managers as conflict messages do', () => {
    assert.equal(describeManager({ manager: 'kubectl', operation: 'Apply', apiVersion: 'apps/v1' }), '"kubectl"');
    assert.equal(describeManager({ manager: 'kubectl-client-side-apply', operation: 'Update', apiVersion: 'apps/v1' }), '"kubectl-client-side-apply" using apps/v1');
    assert.equal(describeManager({ manager: 'kubelet', operation: 'Update', apiVersion: 'v1', subresource: 'status' }), '"kubelet" with subresource "status" using v1');
  });

  it('format times in whole seconds', () => {
    assert.equal(formatTime(t2), '2024-01-01T00:02:00Z');
    assert.equal(formatTime(t1), '2024-01-01T00:01:00Z');
  });
});

describe('a create’s managedFields, computed straight from the object', () => {
  const pod = (extra: Record<string, unknown> = {}): KubeObject => ({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'p', namespace: 'default', uid: 'u', creationTimestamp: '2024-01-01T00:00:00Z', generation: 1, labels: { b: '2', a: '1', 'app.kubernetes.io/name': 'x' }, annotations: {}, finalizers: ['z', 'a', 'z'] },
    spec: {
      nodeSelector: { disk: 'ssd' },
      tolerations: [{ key: 'k' }],
      containers: [
        { name: 'b', image: 'b:1', command: ['sh', '-c'], ports: [{ containerPort: 80, protocol: 'TCP' }, { containerPort: 80, protocol: 'UDP' }, { containerPort: 53 }], env: [] },
        { name: 'a', image: 'a:1', ports: [{ containerPort: 8080, protocol: 'TCP', name: 'http' }, { containerPort: 8080, protocol: 'TCP', name: 'dup' }] },
        { image: 'no-name:1' },
        { name: 'a', image: 'duplicate-key' },
      ],
      volumes: null,
      unknown: { deep: [{ x: 1 }, 2, null], empty: {}, 'Ü': 1, Z: 2, '10': 3, '9': 4 },
    },
    status: { phase: 'Pending', conditions: [{ type: 'Ready', status: 'False' }] },
    ...extra,
  });
  const cases: Array<[string, KubeObject, { schema?: typeof podSchema }?]> = [
    ['a pod with map-lists (one and two keys), sets, atomic lists and maps, duplicates, unknown fields', pod()],
    ['the same pod without a schema', pod(), { schema: undefined }],
    ['a deployment', deployment()],
    ['a ConfigMap', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm', namespace: 'n', labels: { app: 'bench' } }, data: { payload: 'x', i: '1' } }],
    ['only identity metadata', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm', uid: 'u', resourceVersion: '3' } }],
    ['empty metadata and spec', { apiVersion: 'v1', kind: 'Pod', metadata: {}, spec: {} }],
    ['nothing at all', { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' } }],
    ['metadata an empty list', { apiVersion: 'v1', kind: 'Pod', metadata: [] as never }],
    ['metadata a non-empty list', { apiVersion: 'v1', kind: 'Pod', metadata: ['x'] as never }],
    ['an identity field holding a map', { apiVersion: 'v1', kind: 'Pod', metadata: { name: { odd: true }, labels: { a: 'b' } } as never }],
    ['an identity field holding an empty map', { apiVersion: 'v1', kind: 'Pod', metadata: { uid: {}, labels: { a: 'b' } } as never }],
    ['kind holding a map', { apiVersion: 'v1', kind: { odd: 1 } as never, metadata: { name: 'p' }, spec: { x: 1 } }],
    ['undefined members', { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', labels: undefined }, spec: { nodeName: undefined, containers: [{ name: 'c', image: undefined }] }, status: undefined }],
  ];
  for (const [name, obj, opts] of cases) {
    it(`is byte-identical to the general path: ${name}`, () => {
      const schema = opts && 'schema' in opts ? opts.schema : name.includes('deployment') ? deploymentSchema : podSchema;
      const args = { live: undefined, updated: obj, manager: 'kubectl-create', apiVersion: 'v1', now: t1, schema, resolve };
      const fast = updateManagedFields(args);
      const general = updateManagedFields({ ...args, slowCreate: true });
      assert.equal(JSON.stringify(fast), JSON.stringify(general));
      assert.equal(JSON.stringify(updateManagedFields({ ...args, subresource: 'status' })), JSON.stringify(updateManagedFields({ ...args, subresource: 'status', slowCreate: true })));
    });
  }

  it('names map-list items by their keys and set items by value', () => {
    const [entry] = updateManagedFields({ live: undefined, updated: pod(), manager: 'm', apiVersion: 'v1', now: t1, schema: podSchema, resolve });
    const spec = entry!.fieldsV1['f:spec'] as Record<string, Record<string, unknown>>;
    assert.ok(spec['f:containers']!['k:{"name":"a"}']);
    const b = spec['f:containers']!['k:{"name":"b"}'] as Record<string, Record<string, unknown>>;
    assert.deepEqual(Object.keys(b['f:ports']!), ['.', 'k:{"containerPort":53,"protocol":"TCP"}', 'k:{"containerPort":80,"protocol":"TCP"}', 'k:{"containerPort":80,"protocol":"UDP"}']);
    assert.ok((entry!.fieldsV1['f:metadata'] as Record<string, Record<string, unknown>>)['f:finalizers']!['v:"z"']);
  });
});
