import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { applyMergePatch } from './merge-patch.ts';

describe('applyMergePatch', () => {
  // RFC 7386, Appendix A.
  const cases: Array<[unknown, unknown, unknown]> = [
    [{ a: 'b' }, { a: 'c' }, { a: 'c' }],
    [{ a: 'b' }, { b: 'c' }, { a: 'b', b: 'c' }],
    [{ a: 'b' }, { a: null }, {}],
    [{ a: 'b', b: 'c' }, { a: null }, { b: 'c' }],
    [{ a: ['b'] }, { a: 'c' }, { a: 'c' }],
    [{ a: 'c' }, { a: ['b'] }, { a: ['b'] }],
    [{ a: { b: 'c' } }, { a: { b: 'd', c: null } }, { a: { b: 'd' } }],
    [{ a: [{ b: 'c' }] }, { a: [1] }, { a: [1] }],
    [['a', 'b'], ['c', 'd'], ['c', 'd']],
    [{ a: 'b' }, ['c'], ['c']],
    [{ a: 'foo' }, null, null],
    [{ a: 'foo' }, 'bar', 'bar'],
    [{ e: null }, { a: 1 }, { e: null, a: 1 }],
    [[1, 2], { a: 'b', c: null }, { a: 'b' }],
    [{}, { a: { bb: { ccc: null } } }, { a: { bb: {} } }],
  ];
  for (const [original, patch, expected] of cases) {
    it(`${JSON.stringify(original)} + ${JSON.stringify(patch)}`, () => {
      assert.deepEqual(applyMergePatch(original, patch), expected);
    });
  }

  it('merges a Kubernetes object and replaces its lists whole', () => {
    const deployment = { metadata: { name: 'web', labels: { app: 'web', tier: 'fe' } }, spec: { replicas: 1, template: { spec: { containers: [{ name: 'a' }, { name: 'b' }] } } } };
    const out = applyMergePatch(deployment, { metadata: { labels: { tier: null } }, spec: { replicas: 3, template: { spec: { containers: [{ name: 'c' }] } } } });
    assert.deepEqual(out, { metadata: { name: 'web', labels: { app: 'web' } }, spec: { replicas: 3, template: { spec: { containers: [{ name: 'c' }] } } } });
  });

  it('modifies neither input, and shares nothing with them', () => {
    const original = { a: { b: 1 }, keep: { deep: [1] } };
    const patch = { a: { c: { d: 2 } } };
    const snapshot = structuredClone({ original, patch });
    const out = applyMergePatch(original, patch) as { a: { c: { d: number } }; keep: { deep: number[] } };
    out.a.c.d = 99;
    out.keep.deep.push(2);
    assert.deepEqual({ original, patch }, snapshot);
  });

  it('treats "__proto__" as an ordinary key', () => {
    const out = applyMergePatch({}, JSON.parse('{"__proto__": {"polluted": true}}')) as Record<string, unknown>;
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
    assert.deepEqual(Object.getOwnPropertyDescriptor(out, '__proto__')?.value, { polluted: true });
  });
});
