import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { runSyncPass, type Health, type PlannedManifest, type SyncMode } from './sync-worker.ts';

const m = (file: string, extra: Partial<PlannedManifest> = {}): PlannedManifest => ({ file, index: 0, apiVersion: 'v1', kind: 'ConfigMap', namespace: 'ns', name: file, ...extra });
const fast = { initialMs: 1, factor: 2, capMs: 5, steps: 3 };

function harness(opts: { failApply?: Set<string>; healthFor?: (file: string, attempt: number) => Health } = {}) {
  const applied: string[] = [];
  const removed: string[] = [];
  const attempts = new Map<string, number>();
  return {
    applied,
    removed,
    attempts,
    run: (mode: SyncMode, plan: PlannedManifest[][][], signal = new AbortController().signal) =>
      runSyncPass({
        mode,
        plan,
        parallelism: 4,
        backoff: fast,
        signal,
        apply: async (x) => {
          attempts.set(x.file, (attempts.get(x.file) ?? 0) + 1);
          if (opts.failApply?.has(x.file)) throw new Error(`refused ${x.file}`);
          applied.push(x.file);
        },
        health: async (x) => opts.healthFor?.(x.file, attempts.get(x.file) ?? 0) ?? { ok: true },
        remove: async (x) => {
          removed.push(x.file);
        },
      }),
  };
}

describe('runSyncPass', () => {
  it('applies every manifest, a node in order, and counts them', async () => {
    const h = harness();
    const r = await h.run('install', [[[m('a1'), m('a2')], [m('b1')]]]);
    assert.deepEqual({ total: r.total, done: r.done, failures: r.failures.length, aborted: r.aborted }, { total: 3, done: 3, failures: 0, aborted: false });
    assert.ok(h.applied.indexOf('a1') < h.applied.indexOf('a2'));
  });

  it('retries a refused manifest, then reports it; in install mode the rest still applies', async () => {
    const h = harness({ failApply: new Set(['bad']) });
    const r = await h.run('install', [[[m('bad'), m('after-bad')], [m('other')]], [[m('next-level')]]]);
    assert.equal(h.attempts.get('bad'), 3, 'three attempts');
    assert.equal(r.failures.length, 1);
    assert.equal(r.failures[0]!.manifest.file, 'bad');
    assert.match(r.failures[0]!.message, /refused bad/);
    assert.ok(!h.applied.includes('after-bad'), 'the rest of a failed node is abandoned');
    assert.ok(h.applied.includes('other') && h.applied.includes('next-level'));
    assert.equal(r.done, 2);
  });

  it('in update mode a failure stops the later run levels', async () => {
    const h = harness({ failApply: new Set(['bad']) });
    const r = await h.run('update', [[[m('bad')], [m('sibling')]], [[m('later')]]]);
    assert.ok(h.applied.includes('sibling'), 'the same level still runs');
    assert.ok(!h.applied.includes('later'));
    assert.equal(r.failures.length, 1);
  });

  it('waits on health until it is ok, and reports a manifest still converging as waiting', async () => {
    const converging = harness({ healthFor: (file, n) => (file === 'slow' && n < 2 ? { ok: false, reason: 'ClusterOperatorNotAvailable', message: 'Cluster operator x is not available', retryable: true } : { ok: true }) });
    const r1 = await converging.run('reconcile', [[[m('slow')]]]);
    assert.equal(r1.failures.length, 0);
    assert.equal(converging.attempts.get('slow'), 2);
    const never = harness({ healthFor: () => ({ ok: false, reason: 'ClusterOperatorUpdating', message: 'Cluster operator x is updating versions', retryable: true }) });
    const r2 = await never.run('update', [[[m('x')]]]);
    assert.equal(r2.failures[0]!.waiting, true);
    assert.equal(r2.failures[0]!.reason, 'ClusterOperatorUpdating');
  });

  it('deletes manifests marked for deletion only when updating', async () => {
    const h = harness();
    await h.run('reconcile', [[[m('gone', { delete: true })]]]);
    assert.deepEqual(h.removed, []);
    await h.run('update', [[[m('gone', { delete: true })]]]);
    assert.deepEqual(h.removed, ['gone']);
    assert.ok(!h.applied.includes('gone'));
  });

  it('stops when aborted', async () => {
    const h = harness();
    const abort = new AbortController();
    abort.abort();
    const r = await h.run('install', [[[m('a')]]], abort.signal);
    assert.equal(r.aborted, true);
    assert.deepEqual(h.applied, []);
  });
});
