import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ApiError } from '../errors.ts';
import { applyJsonPatch, maxJsonPatchOperations } from './json-patch.ts';

const doc = () => ({ metadata: { name: 'web', labels: { app: 'web' } }, spec: { replicas: 1, containers: [{ name: 'a' }, { name: 'b' }] } });

function expectError(fn: () => unknown, code: number, pattern: RegExp): ApiError {
  try {
    fn();
  } catch (err) {
    assert.ok(err instanceof ApiError, `expected an ApiError, got ${String(err)}`);
    assert.equal(err.code, code, err.message);
    assert.match(err.message, pattern);
    return err;
  }
  assert.fail('expected an error');
}

describe('applyJsonPatch', () => {
  const cases: Array<{ name: string; ops: unknown[]; expect: (d: ReturnType<typeof doc>) => unknown }> = [
    { name: 'add a map key', ops: [{ op: 'add', path: '/metadata/labels/tier', value: 'fe' }], expect: (d) => ((d.metadata.labels as Record<string, string>).tier = 'fe') },
    { name: 'add to the end of a list', ops: [{ op: 'add', path: '/spec/containers/-', value: { name: 'c' } }], expect: (d) => d.spec.containers.push({ name: 'c' }) },
    { name: 'add inside a list', ops: [{ op: 'add', path: '/spec/containers/1', value: { name: 'x' } }], expect: (d) => d.spec.containers.splice(1, 0, { name: 'x' }) },
    { name: 'remove', ops: [{ op: 'remove', path: '/spec/containers/0' }], expect: (d) => d.spec.containers.shift() },
    { name: 'replace', ops: [{ op: 'replace', path: '/spec/replicas', value: 3 }], expect: (d) => (d.spec.replicas = 3) },
    {
      name: 'move',
      ops: [{ op: 'move', from: '/metadata/labels/app', path: '/metadata/labels/name' }],
      expect: (d) => (d.metadata.labels = { name: 'web' } as never),
    },
    { name: 'copy', ops: [{ op: 'copy', from: '/spec/containers/0', path: '/spec/containers/-' }], expect: (d) => d.spec.containers.push({ name: 'a' }) },
    {
      name: 'a passing test guards the next operation',
      ops: [{ op: 'test', path: '/spec/replicas', value: 1 }, { op: 'replace', path: '/spec/replicas', value: 5 }],
      expect: (d) => (d.spec.replicas = 5),
    },
    { name: 'escaped keys', ops: [{ op: 'add', path: '/metadata/labels/app.kubernetes.io~1name', value: 'x' }], expect: (d) => ((d.metadata.labels as Record<string, string>)['app.kubernetes.io/name'] = 'x') },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const original = doc();
      const expected = doc();
      c.expect(expected);
      assert.deepEqual(applyJsonPatch(original, c.ops), expected);
      assert.deepEqual(original, doc(), 'the original is unchanged');
    });
  }

  it('does not let later operations reach into the caller’s values', () => {
    const ops = [{ op: 'add', path: '/extra', value: { list: [] as number[] } }, { op: 'add', path: '/extra/list/-', value: 1 }];
    applyJsonPatch({}, ops);
    assert.deepEqual(ops[0]!.value, { list: [] });
  });

  it('turns a failed test into 422 Invalid naming the operation and path', () => {
    const err = expectError(() => applyJsonPatch(doc(), [{ op: 'add', path: '/a', value: 1 }, { op: 'test', path: '/spec/replicas', value: 2 }]), 422, /operation 1 \(test "\/spec\/replicas"\).*does not match/);
    assert.equal(err.reason, 'Invalid');
    assert.equal(err.details?.causes?.[0]?.field, '/spec/replicas');
  });

  const unappliable: Array<[string, unknown[], RegExp]> = [
    ['a missing path', [{ op: 'replace', path: '/spec/nope', value: 1 }], /operation 0 \(replace "\/spec\/nope"\).*does not exist/],
    ['a missing parent', [{ op: 'add', path: '/status/phase', value: 'Running' }], /parent of the path does not exist/],
    ['a missing "from"', [{ op: 'move', from: '/nope', path: '/x' }], /"from" path does not exist/],
    ['an index past the end', [{ op: 'add', path: '/spec/containers/9', value: {} }], /past the end/],
    ['a non-numeric index', [{ op: 'add', path: '/spec/containers/x', value: {} }], /unsigned integer/],
    ['a prototype path', [{ op: 'add', path: '/__proto__/polluted', value: true }], /operation 0 \(add "\/__proto__\/polluted"\)/],
  ];
  for (const [name, ops, pattern] of unappliable) {
    it(`answers 422 for ${name}`, () => {
      expectError(() => applyJsonPatch(doc(), ops), 422, pattern);
      assert.equal(({} as Record<string, unknown>).polluted, undefined);
    });
  }

  const malformed: Array<[string, unknown, RegExp]> = [
    ['a body that is not a list', { op: 'add' }, /must be a list of operations, got an object/],
    ['an operation that is not an object', ['add'], /operation 0: must be an object/],
    ['an unknown op', [{ op: 'frobnicate', path: '/a' }], /operation 0: unknown op "frobnicate"/],
    ['a missing op', [{ path: '/a' }], /missing "op"/],
    ['a path without a leading slash', [{ op: 'remove', path: 'spec' }], /"path" must be a JSON pointer/],
    ['add without a value', [{ op: 'add', path: '/a' }], /needs a "value"/],
    ['copy without from', [{ op: 'copy', path: '/a' }], /needs a "from"/],
  ];
  for (const [name, ops, pattern] of malformed) {
    it(`answers 400 for ${name}`, () => {
      assert.equal(expectError(() => applyJsonPatch(doc(), ops), 400, pattern).reason, 'BadRequest');
    });
  }

  it('caps the number of operations', () => {
    const ops = Array.from({ length: maxJsonPatchOperations + 1 }, () => ({ op: 'test', path: '', value: {} }));
    expectError(() => applyJsonPatch({}, ops), 413, /maximum operations in a JSON patch is 10000, got 10001/);
  });

  it('replaces the whole document at the root path', () => {
    assert.deepEqual(applyJsonPatch(doc(), [{ op: 'replace', path: '', value: { a: 1 } }]), { a: 1 });
  });
});
