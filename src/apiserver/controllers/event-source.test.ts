import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CompactedError, type KeyValue, type WatchOptions } from '../../storage/types.ts';
import { setTimeout as delay } from 'node:timers/promises';
import type { ResourceRegistry } from '../registry/registry.ts';
import type { ObjectStore } from '../registry/store.ts';
import { StoreEventSource, storagePrefixOf } from './event-source.ts';

describe('storagePrefixOf', () => {
  it('names the group and resource of a stored key', () => {
    assert.equal(storagePrefixOf('/registry/apps/deployments/ns/web'), 'apps/deployments');
    assert.equal(storagePrefixOf('/registry/core/namespaces/default'), 'core/namespaces');
    assert.equal(storagePrefixOf('/registry/core/configmaps'), 'core/configmaps');
    assert.equal(storagePrefixOf('/registry/core/configmaps/'), 'core/configmaps');
  });

  it('reads a key with too few segments as splitting it would', () => {
    assert.equal(storagePrefixOf('/registry/core'), 'core/undefined');
    assert.equal(storagePrefixOf('/registry'), 'undefined/undefined');
  });
});

describe('StoreEventSource', () => {
  /**
   * A backend whose watches are scripted: each call takes the next step. 'close' subscribes and
   * then ends the watch as a compaction would; 'fail' and 'compacted' refuse to subscribe; 'live'
   * subscribes and stays, handing back its onEvents.
   */
  function scripted(steps: ('close' | 'fail' | 'compacted' | 'live')[]) {
    const calls: number[] = [];
    let live: WatchOptions | undefined;
    const backend = {
      async watch(_prefix: string, opts: WatchOptions): Promise<void> {
        calls.push(opts.afterRevision);
        const step = steps.shift() ?? 'live';
        if (step === 'fail') throw new Error('database is locked');
        if (step === 'compacted') throw new CompactedError(opts.afterRevision, 40);
        if (step === 'close') setImmediate(() => opts.onClose?.({ kind: 'compacted', compactRevision: 40, requested: opts.afterRevision }));
        else live = opts;
      },
      currentRevision: async () => 50,
    };
    const store = { backend, decode: (_def: unknown, kv: KeyValue) => JSON.parse(kv.value) } as unknown as ObjectStore;
    const registry = { byStoragePrefix: () => ({ resource: 'namespaces' }) } as unknown as ResourceRegistry;
    return { calls, store, registry, live: () => live };
  }

  it('keeps resubscribing whatever ended or refused its watch, from where it was or, once compacted, from now', async (t) => {
    const s = scripted(['close', 'fail', 'fail', 'compacted', 'live']);
    const errors: string[] = [];
    const seen: string[] = [];
    const source = new StoreEventSource(s.store, s.registry, (err) => errors.push((err as Error).message));
    source.subscribe('core/namespaces', (ev) => seen.push(ev.object.metadata.name as string));
    const lifetime = new AbortController();
    t.after(() => lifetime.abort());
    await source.start(7, lifetime.signal);
    // The resubscriptions back off 100, 200, 400 ms: looked at until one is live, for 30 s at most.
    for (const deadline = performance.now() + 30_000; !s.live() && performance.now() < deadline; ) await delay(20);
    const live = s.live();
    assert.ok(live, `a live watch again; watches asked from ${s.calls.join(', ')}`);
    assert.deepEqual(s.calls, [7, 7, 7, 7, 50], 'the same revision until the history is gone, then the current one');
    assert.deepEqual(errors, ['database is locked', 'database is locked', 'required revision 7 has been compacted (compacted to 40)']);
    live.onEvents([{ type: 'create', kv: { key: '/registry/core/namespaces/shared', value: JSON.stringify({ metadata: { name: 'shared' } }), createRevision: 51, modRevision: 51 } }]);
    assert.deepEqual(seen, ['shared']);
  });
});
