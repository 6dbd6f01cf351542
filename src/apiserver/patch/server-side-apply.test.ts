import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ApiError } from '../errors.ts';
import type { KubeObject } from '../registry/resource.ts';
import { updateManagedFields, type ManagedFieldsEntry } from './managed-fields.ts';
import { applyServerSide } from './server-side-apply.ts';
import { deploymentSchema, resolve } from './test-schemas.ts';

const t0 = new Date('2024-01-01T00:00:00Z');
const t1 = new Date('2024-01-01T00:01:00Z');
const t2 = new Date('2024-01-01T00:02:00Z');

function config(spec: KubeObject = {}, metadata: KubeObject = {}): KubeObject {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'web', namespace: 'default', labels: { app: 'web' }, ...metadata },
    spec: {
      replicas: 2,
      selector: { matchLabels: { app: 'web' } },
      template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'nginx', image: 'nginx:1', ports: [{ containerPort: 80 }] }] } },
      ...spec,
    },
  };
}

/** Only what a second manager cares about. */
function partial(spec: KubeObject | undefined, metadata: KubeObject = {}): KubeObject {
  return { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web', namespace: 'default', ...metadata }, ...(spec ? { spec } : {}) };
}

/** What the registry adds on create. */
function stored(obj: KubeObject): KubeObject {
  return { ...obj, metadata: { ...obj.metadata, uid: 'u1', resourceVersion: '1', generation: 1, creationTimestamp: '2024-01-01T00:00:00Z' } };
}

function apply(live: KubeObject | undefined, applied: KubeObject, manager: string, opts: { force?: boolean; now?: Date; subresource?: string } = {}): KubeObject {
  const { object } = applyServerSide({ live, applied, manager, force: opts.force ?? false, apiVersion: 'apps/v1', schema: deploymentSchema, resolve, now: opts.now ?? t0, subresource: opts.subresource });
  return live ? object : stored(object);
}

function update(live: KubeObject | undefined, updated: KubeObject, manager: string, now = t1): KubeObject {
  const managedFields = updateManagedFields({ live, updated, manager, apiVersion: 'apps/v1', now, schema: deploymentSchema, resolve });
  return { ...updated, metadata: { ...updated.metadata, managedFields } };
}

const entries = (obj: KubeObject) => obj.metadata.managedFields as ManagedFieldsEntry[];
const fieldsOf = (obj: KubeObject, manager: string) => entries(obj).find((e) => e.manager === manager)?.fieldsV1;
const ownsReplicas = (obj: KubeObject, manager: string) => !!fieldsOf(obj, manager)?.['f:spec'] && 'f:replicas' in (fieldsOf(obj, manager)!['f:spec'] as object);

function conflict(fn: () => unknown): ApiError {
  try {
    fn();
  } catch (err) {
    assert.ok(err instanceof ApiError, String(err));
    assert.equal(err.code, 409);
    assert.equal(err.reason, 'Conflict');
    return err;
  }
  assert.fail('expected a conflict');
}

describe('applyServerSide', () => {
  it('creates the object and records what the applier owns', () => {
    const { object, managedFields } = applyServerSide({ live: undefined, applied: config(), manager: 'kubectl', force: false, apiVersion: 'apps/v1', schema: deploymentSchema, resolve, now: t0 });
    assert.deepEqual(managedFields, [
      {
        manager: 'kubectl',
        operation: 'Apply',
        apiVersion: 'apps/v1',
        time: '2024-01-01T00:00:00Z',
        fieldsType: 'FieldsV1',
        fieldsV1: {
          'f:metadata': { 'f:labels': { 'f:app': {} } },
          'f:spec': {
            'f:replicas': {},
            'f:selector': {},
            'f:template': {
              'f:metadata': { 'f:labels': { 'f:app': {} } },
              'f:spec': {
                'f:containers': {
                  'k:{"name":"nginx"}': { '.': {}, 'f:image': {}, 'f:name': {}, 'f:ports': { 'k:{"containerPort":80,"protocol":"TCP"}': { '.': {}, 'f:containerPort': {} } } },
                },
              },
            },
          },
        },
      },
    ]);
    const { managedFields: _m, ...meta } = object.metadata;
    assert.deepEqual({ ...object, metadata: meta }, config());
    assert.deepEqual(object.metadata.managedFields, managedFields);
  });

  it('is idempotent: re-applying the same configuration changes nothing, time included', () => {
    const created = apply(undefined, config(), 'kubectl', { now: t0 });
    const again = apply(created, config(), 'kubectl', { now: t1 });
    assert.deepEqual(again, created);
  });

  it('refreshes the time when the object changes', () => {
    const created = apply(undefined, config(), 'kubectl', { now: t0 });
    const changed = apply(created, config({ replicas: 4 }), 'kubectl', { now: t1 });
    assert.equal(changed.spec.replicas, 4);
    assert.equal(entries(changed)[0]!.time, '2024-01-01T00:01:00Z');
  });

  it('does not modify its inputs', () => {
    const live = apply(undefined, config(), 'a');
    const applied = partial({ replicas: 9 });
    const snapshot = structuredClone({ live, applied });
    applyServerSide({ live, applied, manager: 'b', force: true, apiVersion: 'apps/v1', schema: deploymentSchema, resolve, now: t1 });
    assert.deepEqual({ live, applied }, snapshot);
  });

  it('does not own identity and bookkeeping metadata, nor the managedFields it is sent', () => {
    const created = apply(undefined, config({}, { uid: 'x', resourceVersion: '5', generation: 3, creationTimestamp: 'now', managedFields: [{ manager: 'forged' }] }), 'kubectl');
    const meta = fieldsOf(created, 'kubectl')!['f:metadata'];
    assert.deepEqual(meta, { 'f:labels': { 'f:app': {} } });
    assert.deepEqual(entries(created).map((e) => e.manager), ['kubectl']);
  });

  describe('conflicts', () => {
    it('refuses to change a field another applier owns, in kube’s words', () => {
      const live = apply(undefined, config(), 'a');
      const err = conflict(() => apply(live, partial({ replicas: 5 }), 'b', { now: t1 }));
      assert.equal(err.message, 'Apply failed with 1 conflict: conflict with "a": .spec.replicas');
      assert.deepEqual(err.details, { causes: [{ reason: 'FieldManagerConflict', message: 'conflict with "a"', field: '.spec.replicas' }] });
    });

    it('lists several conflicts one per line, grouped by manager', () => {
      let live = apply(undefined, config(), 'a');
      live = apply(live, partial({ paused: true }), 'c', { now: t1 });
      const change = partial({ replicas: 5, paused: false, template: { spec: { containers: [{ name: 'nginx', image: 'nginx:2' }] } } });
      const err = conflict(() => apply(live, change, 'b', { now: t2 }));
      assert.equal(
        err.message,
        'Apply failed with 3 conflicts: conflicts with "a":\n- .spec.replicas\n- .spec.template.spec.containers[name="nginx"].image\nconflicts with "c":\n- .spec.paused',
      );
      assert.deepEqual(err.details?.causes?.map((c) => [c.message, c.field]), [
        ['conflict with "a"', '.spec.replicas'],
        ['conflict with "a"', '.spec.template.spec.containers[name="nginx"].image'],
        ['conflict with "c"', '.spec.paused'],
      ]);
    });

    it('shares a field two appliers set to the same value', () => {
      const live = apply(undefined, config(), 'a');
      const shared = apply(live, partial({ replicas: 2 }), 'b', { now: t1 });
      assert.ok(ownsReplicas(shared, 'a'));
      assert.ok(ownsReplicas(shared, 'b'));
      assert.equal(entries(shared).find((e) => e.manager === 'b')!.time, '2024-01-01T00:01:00Z');
    });

    it('with force, takes the field over from its owner', () => {
      const live = apply(undefined, config(), 'a');
      const forced = apply(live, partial({ replicas: 5 }), 'b', { force: true, now: t1 });
      assert.equal(forced.spec.replicas, 5);
      assert.ok(ownsReplicas(forced, 'b'));
      assert.ok(!ownsReplicas(forced, 'a'));
      assert.ok(fieldsOf(forced, 'a')!['f:spec'], 'a keeps its other fields');
    });
  });

  describe('fields the applier stops applying', () => {
    it('are removed when nobody else owns them', () => {
      const first = config({ template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'nginx', image: 'nginx:1' }, { name: 'sidecar', image: 'side:1' }] } } }, { labels: { app: 'web', tier: 'fe' } });
      const live = apply(undefined, first, 'kubectl');
      const after = apply(live, config(), 'kubectl', { now: t1 });
      assert.deepEqual(after.metadata.labels, { app: 'web' });
      assert.deepEqual(after.spec.template.spec.containers.map((c: KubeObject) => c.name), ['nginx']);
      assert.deepEqual(after.spec.template.spec.containers[0].ports, [{ containerPort: 80 }]);
    });

    it('stay when another manager owns them too', () => {
      const live = apply(undefined, config({}, { labels: { app: 'web', tier: 'fe' } }), 'a');
      const shared = apply(live, partial(undefined, { labels: { tier: 'fe' } }), 'b', { now: t1 });
      const after = apply(shared, config(), 'a', { now: t2 });
      assert.deepEqual(after.metadata.labels, { app: 'web', tier: 'fe' });
      assert.deepEqual(fieldsOf(after, 'b'), { 'f:metadata': { 'f:labels': { 'f:tier': {} } } });
    });

    it('leave fields nobody applied alone', () => {
      const live = apply(undefined, config(), 'kubectl');
      const withStatus = { ...live, status: { replicas: 2 } };
      const after = apply(withStatus, config({ replicas: 3 }), 'kubectl', { now: t1 });
      assert.deepEqual(after.status, { replicas: 2 });
    });
  });

  describe('after non-apply writes', () => {
    it('conflicts with kubectl-client-side-apply over a changed replica count', () => {
      const created = update(undefined, stored({ ...config(), spec: { ...config().spec, replicas: 1 } }), 'kubectl-client-side-apply', t0);
      const err = conflict(() => apply(created, config({ replicas: 3 }), 'kubectl', { now: t1 }));
      assert.equal(err.message, 'Apply failed with 1 conflict: conflict with "kubectl-client-side-apply" using apps/v1: .spec.replicas');
      assert.deepEqual(err.details?.causes, [{ reason: 'FieldManagerConflict', message: 'conflict with "kubectl-client-side-apply" using apps/v1', field: '.spec.replicas' }]);
      // Applying the values already there conflicts with nobody: the fields become shared.
      const same = apply(created, config({ replicas: 1 }), 'kubectl', { now: t1 });
      assert.ok(ownsReplicas(same, 'kubectl') && ownsReplicas(same, 'kubectl-client-side-apply'));
    });

    it('kubectl scale takes replicas from the applier, and the next apply conflicts with it', () => {
      const applied = apply(undefined, config(), 'kubectl', { now: t0 });
      const scaled = update(applied, { ...structuredClone(applied), spec: { ...applied.spec, replicas: 5 } }, 'kubectl-scale', t1);
      assert.ok(!ownsReplicas(scaled, 'kubectl'));
      assert.deepEqual(fieldsOf(scaled, 'kubectl-scale'), { 'f:spec': { 'f:replicas': {} } });
      assert.deepEqual(entries(scaled).map((e) => `${e.manager}/${e.operation}`), ['kubectl/Apply', 'kubectl-scale/Update']);

      const err = conflict(() => apply(scaled, config(), 'kubectl', { now: t2 }));
      assert.equal(err.message, 'Apply failed with 1 conflict: conflict with "kubectl-scale" using apps/v1: .spec.replicas');

      // Omitting replicas leaves the scaled value, owned by the scaler.
      const { replicas: _r, ...specWithoutReplicas } = config().spec;
      const omitted = apply(scaled, { ...config(), spec: specWithoutReplicas }, 'kubectl', { now: t2 });
      assert.equal(omitted.spec.replicas, 5);
      assert.ok(ownsReplicas(omitted, 'kubectl-scale'));

      const forced = apply(scaled, config(), 'kubectl', { force: true, now: t2 });
      assert.equal(forced.spec.replicas, 2);
      assert.deepEqual(entries(forced).map((e) => e.manager), ['kubectl']);
    });

    it('an update removing an applied field takes it from the applier', () => {
      const live = apply(undefined, config({}, { labels: { app: 'web', tier: 'fe' } }), 'kubectl');
      const edited = structuredClone(live);
      delete edited.metadata.labels.tier;
      const after = update(live, edited, 'kubectl-edit');
      assert.deepEqual(fieldsOf(after, 'kubectl')!['f:metadata'], { 'f:labels': { 'f:app': {} } });
      assert.equal(fieldsOf(after, 'kubectl-edit'), undefined);
    });

    it('the first apply to an unmanaged object conflicts with what was there', () => {
      const unmanaged = stored(config({ replicas: 1 }));
      const err = conflict(() => apply(unmanaged, config({ replicas: 3 }), 'kubectl', { now: t1 }));
      assert.equal(err.message, 'Apply failed with 1 conflict: conflict with "before-first-apply" using apps/v1: .spec.replicas');
      const taken = apply(unmanaged, config({ replicas: 3 }), 'kubectl', { force: true, now: t1 });
      assert.deepEqual(entries(taken).map((e) => e.manager), ['kubectl', 'before-first-apply']);
    });
  });

  describe('list and map types', () => {
    it('merges set-lists by value and removes only the applier’s values', () => {
      const live = apply(undefined, config({}, { finalizers: ['example.com/a'] }), 'a');
      const both = apply(live, partial(undefined, { finalizers: ['example.com/b'] }), 'b', { now: t1 });
      assert.deepEqual(both.metadata.finalizers, ['example.com/a', 'example.com/b']);
      assert.deepEqual(fieldsOf(both, 'b'), { 'f:metadata': { 'f:finalizers': { 'v:"example.com/b"': {} } } });
      const withoutA = apply(both, config(), 'a', { now: t2 });
      assert.deepEqual(withoutA.metadata.finalizers, ['example.com/b']);
    });

    it('merges map-list items by key and keeps other managers’ items', () => {
      const live = apply(undefined, config(), 'a');
      const added = apply(live, partial({ template: { spec: { containers: [{ name: 'sidecar', image: 'side:1' }] } } }), 'b', { now: t1 });
      assert.deepEqual(added.spec.template.spec.containers.map((c: KubeObject) => c.name), ['nginx', 'sidecar']);
      const reapplied = apply(added, config({ replicas: 3 }), 'a', { now: t2 });
      assert.deepEqual(reapplied.spec.template.spec.containers.map((c: KubeObject) => c.name), ['nginx', 'sidecar']);
    });

    it('replaces atomic maps and atomic lists whole', () => {
      const live = apply(undefined, config({ selector: { matchLabels: { app: 'web', extra: 'x' } } }), 'a');
      const after = apply(live, config({ selector: { matchLabels: { app: 'web' } }, template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'nginx', image: 'nginx:1', command: ['b'] }], tolerations: [{ key: 'k' }] } } }), 'a', { now: t1 });
      assert.deepEqual(after.spec.selector, { matchLabels: { app: 'web' } });
      assert.deepEqual(after.spec.template.spec.tolerations, [{ key: 'k' }]);
      assert.deepEqual(fieldsOf(after, 'a')!['f:spec'] && (fieldsOf(after, 'a')!['f:spec'] as KubeObject)['f:selector'], {});
    });

    it('removes a field the configuration sets to null, and owns it', () => {
      const live = apply(undefined, config({ paused: true }), 'a');
      const after = apply(live, config({ paused: null }), 'a', { now: t1 });
      assert.equal('paused' in after.spec, false);
      assert.ok('f:paused' in (fieldsOf(after, 'a')!['f:spec'] as KubeObject));
    });

    it('keeps a subresource apply in its own entry', () => {
      const live = apply(undefined, config(), 'a');
      const after = apply(live, partial({ replicas: 2 }), 'a', { subresource: 'scale', now: t1 });
      assert.deepEqual(entries(after).map((e) => [e.manager, e.subresource]), [['a', undefined], ['a', 'scale']]);
    });
  });

  describe('malformed configurations', () => {
    const bad: Array<[string, unknown, RegExp]> = [
      ['not an object', [], /must be an object, got an array/],
      [
        'a map-list item without its key',
        config({ template: { spec: { containers: [{ image: 'x' }] } } }),
        /failed to create typed patch object \(apps\/v1, Kind=Deployment\): \.spec\.template\.spec\.containers: element 0: associative list with keys has an element that omits key field "name"/,
      ],
      ['duplicate map-list keys', config({ template: { spec: { containers: [{ name: 'a' }, { name: 'a' }] } } }), /\.spec\.template\.spec\.containers: duplicate entries for key \{"name":"a"\}/],
      ['duplicate set values', config({}, { finalizers: ['x', 'x'] }), /\.metadata\.finalizers: duplicate entries for key "x"/],
    ];
    for (const [name, applied, pattern] of bad) {
      it(`answers 400 for ${name}`, () => {
        assert.throws(
          () => applyServerSide({ live: undefined, applied, manager: 'a', force: false, apiVersion: 'apps/v1', schema: deploymentSchema, resolve, now: t0 }),
          (err: unknown) => err instanceof ApiError && err.code === 400 && pattern.test(err.message),
        );
      });
    }
  });
});

describe('server-side apply over client-side apply (kubectl apply --server-side after kubectl apply)', () => {
  const annotation = 'kubectl.kubernetes.io/last-applied-configuration';
  /** What `kubectl apply` (client-side) leaves: the annotation, and its fields owned by kubectl-client-side-apply. */
  function clientSideApplied(cfg: KubeObject): KubeObject {
    const lastApplied = `${JSON.stringify(cfg)}\n`;
    const obj = structuredClone(cfg);
    obj.metadata.annotations = { ...(obj.metadata.annotations ?? {}), [annotation]: lastApplied };
    return stored(update(undefined, obj, 'kubectl-client-side-apply', t0));
  }
  const ssa = (live: KubeObject, applied: KubeObject, manager = 'kubectl') =>
    applyServerSide({ live, applied, manager, force: false, apiVersion: 'apps/v1', schema: deploymentSchema, resolve, now: t1 }).object;

  it('lets kubectl take over the fields the annotation recorded, and rewrites the annotation to what it applied', () => {
    const live = clientSideApplied(config());
    const next = config({ replicas: 5, template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'nginx', image: 'nginx:2', ports: [{ containerPort: 80 }] }] } } });
    const out = ssa(live, next);
    assert.equal(out.spec.replicas, 5);
    assert.equal(out.spec.template.spec.containers[0].image, 'nginx:2');
    assert.ok(ownsReplicas(out, 'kubectl'), 'kubectl owns what it took over');
    assert.ok(!ownsReplicas(out, 'kubectl-client-side-apply'));
    const recorded = JSON.parse(out.metadata.annotations[annotation]);
    assert.deepEqual(recorded, next, 'the annotation is the configuration just applied');
    assert.ok(out.metadata.annotations[annotation].endsWith('}\n'));
    assert.ok(out.metadata.annotations[annotation].startsWith('{"apiVersion":"apps/v1","kind":"Deployment","metadata":'), 'keys in Go\'s order');
  });

  it('still conflicts over a field changed since the last client-side apply, naming only that one', () => {
    const live = clientSideApplied(config());
    // Someone scaled it by hand since: replicas no longer holds what the annotation recorded.
    live.spec.replicas = 3;
    const err = conflict(() => ssa(live, config({ replicas: 5, template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'nginx', image: 'nginx:2', ports: [{ containerPort: 80 }] }] } } })));
    assert.deepEqual(err.details?.causes?.map((c) => c.field), ['.spec.replicas']);
  });

  it('is only for the manager kubectl: another manager conflicts and leaves the annotation alone', () => {
    const live = clientSideApplied(config());
    const before = live.metadata.annotations[annotation];
    conflict(() => ssa(live, config({ replicas: 5 }), 'my-tool'));
    const same = ssa(live, partial(undefined, { labels: { extra: 'x' } }), 'my-tool');
    assert.equal(same.metadata.annotations[annotation], before);
  });

  it('without the annotation, kubectl conflicts as any manager does', () => {
    const live = stored(update(undefined, config(), 'kubectl-client-side-apply', t0));
    conflict(() => ssa(live, config({ replicas: 5 })));
  });
});
