import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { StringInterner } from './intern.ts';

describe('StringInterner', () => {
  it('replaces short string values in place, at any depth, and leaves everything else', () => {
    const si = new StringInterner();
    const a = JSON.parse('{"metadata":{"uid":"u1","labels":{"app":"web"}},"spec":{"tolerations":[{"key":"node.kubernetes.io/not-ready","effect":"NoExecute"}],"n":3,"z":null}}');
    const b = JSON.parse('{"metadata":{"uid":"u1","labels":{"app":"web"}},"spec":{"tolerations":[{"key":"node.kubernetes.io/not-ready","effect":"NoExecute"}],"n":3,"z":null}}');
    assert.equal(si.internAll(a), a);
    si.internAll(b);
    assert.deepEqual(a, b);
    assert.equal(b.spec.n, 3);
    assert.equal(b.spec.z, null);
  });

  it('hands out the first copy it saw', () => {
    const si = new StringInterner();
    const first = ['ab', 'c'].join('');
    assert.equal(si.intern(first), first);
    assert.equal(si.intern(['a', 'bc'].join('')), 'abc');
  });

  it('does not keep long strings or more than its bound', () => {
    const si = new StringInterner({ maxEntries: 2, maxLength: 4 });
    const table = (): Map<string, string> => (si as unknown as { table: Map<string, string> }).table;
    si.intern('toolong');
    assert.equal(table().size, 0);
    si.intern('a');
    si.intern('b');
    assert.equal(table().size, 2);
    si.intern('c');
    assert.deepEqual([...table().keys()], ['c'], 'a full table starts over');
  });

  it('does not look up uids and resourceVersions, which never repeat', () => {
    const si = new StringInterner();
    si.internAll({ metadata: { uid: 'u', resourceVersion: '7', name: 'n' } });
    assert.deepEqual([...(si as unknown as { table: Map<string, string> }).table.keys()], ['n']);
  });
});
