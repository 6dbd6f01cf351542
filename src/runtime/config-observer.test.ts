/**
 * The observer runner's pure core with fake listers: answers merged without override, the
 * determinism check that catches two observers claiming one path, errors sorted, an observer
 * that keeps its previous sub-tree, one that throws, and the order observers run in.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { mergeNoOverride, nonDeterministicError, observeConfig, shuffled, type ConfigObserverFunc, type ObserverRecorder } from './config-observer.ts';
import { getPath, pickPaths, type SparseConfig } from './sparse-config.ts';

interface Listers {
  readonly values: Map<string, string>;
}

const recorder: ObserverRecorder = { event: () => {} };
const inOrder = <T>(items: readonly T[]): T[] => [...items];
const reversed = <T>(items: readonly T[]): T[] => [...items].reverse();

/** Owns `path`; reads its value from the fake lister, keeping the previous one when it is missing. */
const observer =
  (name: string, path: string[]): ConfigObserverFunc<Listers> =>
  (listers, _recorder, existing) => {
    const v = listers.values.get(name);
    if (v === undefined) return { config: pickPaths(existing, [path]), errors: [`${name}: not found`] };
    const config: SparseConfig = {};
    let node = config;
    for (const seg of path.slice(0, -1)) node = node[seg] = {} as SparseConfig;
    node[path[path.length - 1]!] = v;
    return { config, errors: [] };
  };

describe('runtime/config-observer: observeConfig', () => {
  it("merges the observers' answers, each path from its owner", () => {
    const r = observeConfig({
      observers: [observer('a', ['x', 'a']), observer('b', ['x', 'b']), observer('c', ['c'])],
      listers: { values: new Map([['a', '1'], ['b', '2'], ['c', '3']]) },
      recorder,
      existing: {},
      shuffle: reversed,
    });
    assert.deepEqual(r, { config: { x: { a: '1', b: '2' }, c: '3' }, errors: [] });
  });

  it('a failing observer keeps its previous sub-tree and reports; errors come sorted', () => {
    const r = observeConfig({
      observers: [observer('zeta', ['z']), observer('alpha', ['a']), observer('mid', ['m'])],
      listers: { values: new Map([['mid', 'new']]) },
      recorder,
      existing: { z: 'old-z', a: 'old-a', m: 'old-m', gone: 'nobody owns this' },
      shuffle: inOrder,
    });
    assert.deepEqual(r.config, { z: 'old-z', a: 'old-a', m: 'new' }, 'a path no observer returns disappears');
    assert.deepEqual(r.errors, ['alpha: not found', 'zeta: not found']);
  });

  it('two observers claiming one path with different values: the non-determinism error', () => {
    const r = observeConfig({
      observers: [observer('a', ['p']), observer('b', ['p'])],
      listers: { values: new Map([['a', '1'], ['b', '2']]) },
      recorder,
      existing: {},
      shuffle: inOrder,
    });
    assert.deepEqual(r.errors, [nonDeterministicError]);
    assert.deepEqual(r.config, { p: '1' }, 'the first answer wins, as without override');
  });

  it('an observer that throws is an error naming it, and nothing may be written', () => {
    const broken: ConfigObserverFunc<Listers> = function brokenObserver() {
      throw new Error('boom');
    };
    const r = observeConfig({ observers: [observer('a', ['a']), broken], listers: { values: new Map([['a', '1']]) }, recorder, existing: { a: '0' }, shuffle: inOrder });
    assert.equal(r.config, undefined);
    assert.deepEqual(r.errors, ['config observer brokenObserver failed: boom']);
  });

  it('runs observers in random order by default, each once', () => {
    const seen = new Set<string>();
    for (let i = 0; i < 200 && seen.size < 2; i++) {
      const order: string[] = [];
      const track =
        (n: string): ConfigObserverFunc<Listers> =>
        () => {
          order.push(n);
          return { config: {}, errors: [] };
        };
      observeConfig({ observers: [track('a'), track('b'), track('c')], listers: { values: new Map() }, recorder, existing: {} });
      assert.deepEqual([...order].sort(), ['a', 'b', 'c']);
      seen.add(order.join(''));
    }
    assert.ok(seen.size >= 2, 'more than one order in 200 runs');
    assert.deepEqual(shuffled([1, 2, 3]).sort(), [1, 2, 3]);
  });

  it('mergeNoOverride keeps what is there, fills what is absent or null, merges objects', () => {
    const dst: SparseConfig = { a: 1, b: { c: 1 }, n: null, l: ['x'] };
    mergeNoOverride(dst, { a: 2, b: { c: 2, d: 2 }, n: 'filled', l: ['y'], e: { f: 1 } });
    assert.deepEqual(dst, { a: 1, b: { c: 1, d: 2 }, n: 'filled', l: ['x'], e: { f: 1 } });
    assert.equal(getPath(dst, ['e', 'f']), 1);
  });
});
