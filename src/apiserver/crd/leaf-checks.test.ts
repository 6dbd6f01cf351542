import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { leafCheck, runLeafCheck } from './leaf-checks.ts';

describe('leafCheck', () => {
  it('shares one compiled check between nodes that say the same thing', () => {
    assert.equal(leafCheck({ type: 'string', maxLength: 3 }), leafCheck({ type: 'string', maxLength: 3 }));
    assert.notEqual(leafCheck({ type: 'string', maxLength: 3 }), leafCheck({ type: 'string', maxLength: 4 }));
  });
  it('ignores what is not a leaf keyword', () => {
    assert.equal(leafCheck({ type: 'object', properties: { a: { type: 'integer' } } }), leafCheck({ type: 'object', description: 'x' }));
  });
  it('ignores formats Kubernetes does not know, and string formats on numbers', () => {
    assert.deepEqual(runLeafCheck({ type: 'string', format: 'color' }, 'red', { field: 'f', rel: 'f' }), []);
    assert.deepEqual(runLeafCheck({ type: 'integer', format: 'email' }, 3, { field: 'f', rel: 'f' }), []);
  });
  it('reports paths relative to the validated value in messages', () => {
    assert.deepEqual(runLeafCheck({ type: 'integer' }, 'x', { field: 'a.default.n', rel: 'n' }).map((e) => e.message), ['a.default.n: Invalid value: "string": n in body must be of type integer: "string"']);
    assert.deepEqual(runLeafCheck({ type: 'integer' }, 'x', { field: 'a.default', rel: '' }).map((e) => e.message), ['a.default: Invalid value: "string": in body must be of type integer: "string"']);
  });
});
