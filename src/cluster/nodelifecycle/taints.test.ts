import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { NOT_READY, UNREACHABLE, tolerationSeconds } from './taints.ts';

const unreachable = { key: UNREACHABLE, effect: 'NoExecute' };

describe('NoExecute toleration arithmetic', () => {
  it('a pod without a toleration for unreachable gets the default 300 s', () => {
    assert.equal(tolerationSeconds([], [unreachable], 300), 300);
  });
  it('a toleration without tolerationSeconds tolerates forever; with it, that long', () => {
    assert.equal(tolerationSeconds([{ key: UNREACHABLE, operator: 'Exists', effect: 'NoExecute' }], [unreachable], 300), Infinity);
    assert.equal(tolerationSeconds([{ key: UNREACHABLE, operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 5 }], [unreachable], 300), 5);
  });
  it('an untolerated foreign NoExecute taint evicts at once; NoSchedule taints do not count', () => {
    assert.equal(tolerationSeconds([], [{ key: 'dedicated', value: 'db', effect: 'NoExecute' }], 300), 0);
    assert.equal(tolerationSeconds([], [{ key: NOT_READY, effect: 'NoSchedule' }], 300), Infinity);
  });
});
