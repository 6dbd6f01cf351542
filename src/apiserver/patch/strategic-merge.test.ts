import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ApiError } from '../errors.ts';
import { applyStrategicMergePatch } from './strategic-merge.ts';
import { deploymentSchema, podSchema, resolve } from './test-schemas.ts';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const pod = (): Json => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'web', labels: { app: 'web', tier: 'fe' }, finalizers: ['a', 'b', 'c'] },
  spec: {
    containers: [
      {
        name: 'app',
        image: 'app:1',
        env: [{ name: 'A', value: '1' }, { name: 'B', value: '2' }],
        ports: [{ containerPort: 80, name: 'http' }, { containerPort: 443, name: 'https' }],
        volumeMounts: [{ name: 'data', mountPath: '/data' }],
        resources: { limits: { cpu: '1' }, requests: { cpu: '100m' } },
      },
      { name: 'sidecar', image: 'side:1' },
    ],
    volumes: [{ name: 'data', emptyDir: { medium: 'Memory' } }],
    tolerations: [{ key: 'a', operator: 'Exists' }, { key: 'b', operator: 'Exists' }],
    nodeSelector: { zone: 'a', disk: 'ssd' },
  },
  status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }, { type: 'Initialized', status: 'True' }] },
});

const smp = (original: Json, patch: unknown) => applyStrategicMergePatch(original, patch, podSchema, resolve) as Json;
const names = (list: Json[]) => list.map((c) => c.name ?? c.type ?? c.containerPort ?? c.mountPath);

function expectError(fn: () => unknown, code: number, pattern: RegExp): void {
  assert.throws(fn, (err: unknown) => {
    assert.ok(err instanceof ApiError, `expected an ApiError, got ${String(err)}`);
    assert.equal(err.code, code, err.message);
    assert.match(err.message, pattern);
    return true;
  });
}

describe('applyStrategicMergePatch: merging by schema', () => {
  const cases: Array<{ name: string; patch: Json; check: (out: Json) => void }> = [
    {
      name: 'maps merge and null deletes',
      patch: { metadata: { labels: { tier: null, team: 'x' }, annotations: null }, spec: { hostNetwork: true } },
      check: (out) => {
        assert.deepEqual(out.metadata.labels, { app: 'web', team: 'x' });
        assert.equal('annotations' in out.metadata, false);
        assert.equal(out.spec.hostNetwork, true);
      },
    },
    {
      name: 'containers merge by name; a new one goes first, as kube orders it without $setElementOrder',
      patch: { spec: { containers: [{ name: 'app', image: 'app:2' }, { name: 'new', image: 'new:1' }] } },
      check: (out) => {
        assert.deepEqual(names(out.spec.containers), ['app', 'new', 'sidecar']);
        assert.equal(out.spec.containers[0].image, 'app:2');
        assert.deepEqual(out.spec.containers[0].env, pod().spec.containers[0].env, 'fields not in the patch stay');
      },
    },
    {
      name: 'a lone new container is placed before the server’s items',
      patch: { spec: { containers: [{ name: 'new', image: 'new:1' }] } },
      check: (out) => assert.deepEqual(names(out.spec.containers), ['new', 'app', 'sidecar']),
    },
    {
      name: 'env merges by name inside a container',
      patch: { spec: { containers: [{ name: 'app', env: [{ name: 'B', value: '22' }, { name: 'C', value: '3' }] }] } },
      check: (out) => assert.deepEqual(out.spec.containers[0].env, [{ name: 'A', value: '1' }, { name: 'B', value: '22' }, { name: 'C', value: '3' }]),
    },
    {
      name: 'ports merge by containerPort',
      patch: { spec: { containers: [{ name: 'app', ports: [{ containerPort: 443, name: 'tls' }] }] } },
      check: (out) => assert.deepEqual(out.spec.containers[0].ports, [{ containerPort: 80, name: 'http' }, { containerPort: 443, name: 'tls' }]),
    },
    {
      name: 'volumeMounts merge by mountPath',
      patch: { spec: { containers: [{ name: 'app', volumeMounts: [{ mountPath: '/data', readOnly: true }, { name: 'logs', mountPath: '/logs' }] }] } },
      check: (out) => assert.deepEqual(out.spec.containers[0].volumeMounts, [{ name: 'data', mountPath: '/data', readOnly: true }, { name: 'logs', mountPath: '/logs' }]),
    },
    {
      name: 'tolerations have no merge strategy: the list is replaced',
      patch: { spec: { tolerations: [{ key: 'c', operator: 'Exists' }] } },
      check: (out) => assert.deepEqual(out.spec.tolerations, [{ key: 'c', operator: 'Exists' }]),
    },
    {
      name: 'status conditions merge by type (through an allOf reference)',
      patch: { status: { conditions: [{ type: 'Ready', status: 'False', reason: 'Crash' }] } },
      check: (out) => assert.deepEqual(out.status.conditions, [{ type: 'Ready', status: 'False', reason: 'Crash' }, { type: 'Initialized', status: 'True' }]),
    },
    {
      // b is shared, d is new; a preceded b on the server and stays in front of it, c follows.
      name: 'finalizers merge as a set, in server order with the patch’s values in patch order',
      patch: { metadata: { finalizers: ['b', 'd'] } },
      check: (out) => assert.deepEqual(out.metadata.finalizers, ['a', 'b', 'd', 'c']),
    },
    {
      name: 'a whole list may be set where there was none',
      patch: { spec: { initContainers: [{ name: 'init', image: 'busybox' }] } },
      check: (out) => assert.deepEqual(out.spec.initContainers, [{ name: 'init', image: 'busybox' }]),
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const original = pod();
      c.check(smp(original, c.patch));
      assert.deepEqual(original, pod(), 'the original is unchanged');
    });
  }

  it('does not share structure with the patch', () => {
    const patch = { spec: { containers: [{ name: 'new', env: [{ name: 'X', value: '1' }] }] } };
    const out = smp(pod(), patch);
    out.spec.containers[0].env[0].value = 'changed';
    assert.equal(patch.spec.containers[0]!.env[0]!.value, '1');
  });

  it('drops nulls and applies directives inside new subtrees', () => {
    const out = smp(pod(), { spec: { containers: [{ name: 'new', image: null, env: [{ name: 'X', value: '1' }, { name: 'Y', $patch: 'delete' }] }] } });
    assert.deepEqual(out.spec.containers[0], { name: 'new', env: [{ name: 'X', value: '1' }] });
  });
});

describe('applyStrategicMergePatch: directives', () => {
  it('$patch: replace on a map replaces it with the rest of the patch map', () => {
    const out = smp(pod(), { spec: { containers: [{ name: 'app', resources: { $patch: 'replace', limits: { memory: '1Gi' } } }] } });
    assert.deepEqual(out.spec.containers[0].resources, { limits: { memory: '1Gi' } });
  });

  it('$patch: replace as a list element replaces the whole list', () => {
    const out = smp(pod(), { spec: { containers: [{ name: 'only', image: 'only:1' }, { $patch: 'replace' }] } });
    assert.deepEqual(out.spec.containers, [{ name: 'only', image: 'only:1' }]);
  });

  it('$patch: delete as a list element removes the item with that key', () => {
    const out = smp(pod(), { spec: { containers: [{ name: 'sidecar', $patch: 'delete' }, { name: 'app', env: [{ name: 'A', $patch: 'delete' }] }] } });
    assert.deepEqual(names(out.spec.containers), ['app']);
    assert.deepEqual(out.spec.containers[0].env, [{ name: 'B', value: '2' }]);
  });

  it('$patch: delete on a map removes it', () => {
    const out = smp(pod(), { spec: { containers: [{ name: 'app', resources: { $patch: 'delete' } }] } });
    assert.equal('resources' in out.spec.containers[0], false);
  });

  it('$patch: merge is the default and is accepted', () => {
    const out = smp(pod(), { metadata: { $patch: 'merge', labels: { extra: 'y' } }, spec: { containers: [{ name: 'app', image: 'app:3', $patch: 'merge' }] } });
    assert.equal(out.metadata.labels.extra, 'y');
    assert.equal(out.metadata.labels.app, 'web');
    assert.equal(out.spec.containers[0].image, 'app:3');
  });

  it('$patch: replace at the root replaces the object', () => {
    assert.deepEqual(smp(pod(), { $patch: 'replace', metadata: { name: 'x' } }), { metadata: { name: 'x' } });
  });

  for (const where of ['map', 'list element', 'scalar list element'] as const) {
    it(`an unknown $patch on a ${where} is 400 naming it`, () => {
      const patch =
        where === 'map'
          ? { spec: { nodeSelector: { $patch: 'explode' } } }
          : where === 'list element'
            ? { spec: { containers: [{ name: 'app', $patch: 'explode' }] } }
            : { metadata: { finalizers: [{ $patch: 'explode' }] } };
      expectError(() => smp(pod(), patch), 400, /unknown patch type: "explode"/);
    });
  }

  it('$retainKeys drops the keys it does not list (a volume switching source)', () => {
    const out = smp(pod(), { spec: { volumes: [{ name: 'data', $retainKeys: ['name', 'hostPath'], hostPath: { path: '/srv' } }] } });
    assert.deepEqual(out.spec.volumes, [{ name: 'data', hostPath: { path: '/srv' } }]);
  });

  it('$retainKeys that omits a key the patch sets is 422', () => {
    expectError(() => smp(pod(), { spec: { volumes: [{ name: 'data', $retainKeys: ['name'], hostPath: { path: '/srv' } }] } }), 422, /"hostPath".*not in its \$retainKeys list/);
  });

  it('$deleteFromPrimitiveList removes values from a scalar list', () => {
    assert.deepEqual(smp(pod(), { metadata: { '$deleteFromPrimitiveList/finalizers': ['b', 'c', 'zz'] } }).metadata.finalizers, ['a']);
  });

  it('$deleteFromPrimitiveList alongside additions', () => {
    assert.deepEqual(smp(pod(), { metadata: { finalizers: ['d'], '$deleteFromPrimitiveList/finalizers': ['a'] } }).metadata.finalizers, ['d', 'b', 'c']);
  });

  it('$setElementOrder orders a scalar list', () => {
    assert.deepEqual(smp(pod(), { metadata: { '$setElementOrder/finalizers': ['c', 'a', 'b'] } }).metadata.finalizers, ['c', 'a', 'b']);
  });

  it('$setElementOrder orders a merged list, as kubectl sends it with an added container', () => {
    const out = smp(pod(), {
      spec: {
        '$setElementOrder/containers': [{ name: 'app' }, { name: 'sidecar' }, { name: 'new' }],
        containers: [{ name: 'new', image: 'new:1' }],
      },
    });
    assert.deepEqual(names(out.spec.containers), ['app', 'sidecar', 'new']);
  });

  it('$setElementOrder reorders existing items and keeps server-only ones in place', () => {
    const original = pod();
    original.spec.containers.push({ name: 'third' });
    const out = smp(original, { spec: { '$setElementOrder/containers': [{ name: 'sidecar' }, { name: 'app' }] } });
    assert.deepEqual(names(out.spec.containers), ['sidecar', 'app', 'third']);
  });

  it('$setElementOrder that contradicts the patch list is 400', () => {
    expectError(
      () => smp(pod(), { spec: { '$setElementOrder/containers': [{ name: 'app' }, { name: 'sidecar' }], containers: [{ name: 'sidecar', image: 'x' }, { name: 'app', image: 'y' }] } }),
      400,
      /does not match its \$setElementOrder/,
    );
  });

  const malformed: Array<[string, Json, RegExp]> = [
    ['a patch that is not an object', [] as unknown as Json, /must be a JSON object, got an array/],
    ['$retainKeys that is not a list', { spec: { volumes: [{ name: 'data', $retainKeys: 'name' }] } }, /\$retainKeys.*must be a list of strings/],
    ['$deleteFromPrimitiveList that is not a list', { metadata: { '$deleteFromPrimitiveList/finalizers': 'a' } }, /must be a list/],
    ['$setElementOrder that is not a list', { metadata: { '$setElementOrder/finalizers': 'a' } }, /must be a list/],
    ['a merge-list item without its key', { spec: { containers: [{ image: 'x' }] } }, /does not contain declared merge key: name/],
    ['a delete directive without its key', { spec: { containers: [{ $patch: 'delete' }] } }, /does not contain declared merge key: name/],
    ['objects in a merged scalar list', { metadata: { finalizers: [{ a: 1 }] } }, /cannot merge lists without merge key/],
  ];
  for (const [name, patch, pattern] of malformed) {
    it(`answers 400 for ${name}`, () => expectError(() => smp(pod(), patch), 400, pattern));
  }
});

describe('applyStrategicMergePatch: opaque metadata', () => {
  it('uses ObjectMeta’s merge keys where the schema leaves metadata opaque', () => {
    const deployment = {
      metadata: { name: 'web', finalizers: ['x'], ownerReferences: [{ uid: '1', name: 'a' }] },
      spec: { replicas: 1, template: { spec: { containers: [{ name: 'c', image: 'c:1' }] } } },
    };
    const out = applyStrategicMergePatch(
      deployment,
      { metadata: { finalizers: ['y'], ownerReferences: [{ uid: '2', name: 'b' }] }, spec: { template: { spec: { containers: [{ name: 'c', image: 'c:2' }] } } } },
      deploymentSchema,
      resolve,
    ) as Json;
    assert.deepEqual(out.metadata.finalizers, ['y', 'x']);
    assert.deepEqual(out.metadata.ownerReferences, [{ uid: '2', name: 'b' }, { uid: '1', name: 'a' }]);
    assert.deepEqual(out.spec.template.spec.containers, [{ name: 'c', image: 'c:2' }]);
  });
});
