import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { findUntoleratedTaint, tolerates, toleratesTaint, type Taint } from './taints.ts';

const gpu: Taint = { key: 'dedicated', value: 'gpu', effect: 'NoSchedule' };
const unreachable: Taint = { key: 'node.kubernetes.io/unreachable', effect: 'NoExecute' };

describe('tolerates', () => {
  it('matches tolerations by key, value, operator and effect', () => {
    assert.equal(tolerates({ key: 'dedicated', value: 'gpu' }, gpu), true, 'Equal is the default operator');
    assert.equal(tolerates({ key: 'dedicated', operator: 'Equal', value: 'gpu', effect: 'NoSchedule' }, gpu), true);
    assert.equal(tolerates({ key: 'dedicated', value: 'cpu' }, gpu), false, 'value differs');
    assert.equal(tolerates({ key: 'dedicated', value: 'gpu', effect: 'NoExecute' }, gpu), false, 'effect differs');
    assert.equal(tolerates({ key: 'dedicated', operator: 'Exists' }, gpu), true, 'Exists ignores the value');
    assert.equal(tolerates({ key: 'other', operator: 'Exists' }, gpu), false, 'key differs');
    assert.equal(tolerates({ operator: 'Exists' }, gpu), true, 'empty key with Exists tolerates all');
    assert.equal(tolerates({ operator: 'Exists' }, unreachable), true);
    assert.equal(tolerates({ operator: 'Exists', effect: 'NoSchedule' }, gpu), true);
    assert.equal(tolerates({ operator: 'Exists', effect: 'NoSchedule' }, unreachable), false);
    assert.equal(tolerates({ key: 'x', operator: 'Equal', value: 'a', effect: 'NoExecute' }, { key: 'x', value: 'b', effect: 'NoExecute' }), false);
    assert.equal(tolerates({ key: 'node.kubernetes.io/unreachable', operator: 'Equal', effect: 'NoExecute' }, unreachable), true, 'no value equals no value');
    assert.equal(tolerates({ key: 'dedicated', operator: 'Gt', value: 'gpu' }, gpu), false, 'unknown operator');
  });

  it('tolerates a taint when any toleration does', () => {
    assert.equal(toleratesTaint(undefined, gpu), false);
    assert.equal(toleratesTaint([{ key: 'other', operator: 'Exists' }, { key: 'dedicated', operator: 'Exists' }], gpu), true);
  });

  it('finds the first untolerated taint among those selected', () => {
    const soft: Taint = { key: 'soft', effect: 'PreferNoSchedule' };
    const noExecute: Taint = { key: 'b', value: '2', effect: 'NoExecute' };
    const hard = (t: Taint): boolean => t.effect === 'NoSchedule' || t.effect === 'NoExecute';
    assert.equal(findUntoleratedTaint([soft, gpu, noExecute], [], hard), gpu);
    assert.equal(findUntoleratedTaint([soft, gpu, noExecute], [{ key: 'dedicated', value: 'gpu' }], hard), noExecute);
    assert.equal(findUntoleratedTaint([soft], [], hard), undefined);
    assert.equal(findUntoleratedTaint(undefined, [], hard), undefined);
  });
});
