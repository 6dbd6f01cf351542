import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { nodeName } from './node-name.ts';

describe('NodeName', () => {
  const n1 = { metadata: { name: 'n1' } };
  it('passes any node when the pod names none, and the named node', () => {
    assert.equal(nodeName({ spec: { containers: [] } }, n1), undefined);
    assert.equal(nodeName({ spec: { containers: [], nodeName: 'n1' } }, n1), undefined);
  });
  it('refuses every other node', () => {
    assert.deepEqual(nodeName({ spec: { containers: [], nodeName: 'n2' } }, n1), { code: 'UnschedulableAndUnresolvable', reasons: ["node(s) didn't match the requested node name"] });
  });
});
