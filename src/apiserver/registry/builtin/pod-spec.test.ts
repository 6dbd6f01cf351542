import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { KubeObject } from '../resource.ts';
import { podSpecUpdateErrors } from './pod-spec.ts';

const toleration = { key: 'k', operator: 'Equal', value: 'v', effect: 'NoExecute' };
const spec = (extra: KubeObject = {}): KubeObject => ({ containers: [{ name: 'c', image: 'a:1' }], restartPolicy: 'Always', terminationGracePeriodSeconds: 30, ...extra });
const messages = (next: KubeObject, old: KubeObject) => podSpecUpdateErrors(next, old).map((e) => `${e.field}: ${e.type}`);

describe('pod spec updates (kube\'s ValidatePodUpdate)', () => {
  it('allow a container or init container image to change', () => {
    assert.deepEqual(podSpecUpdateErrors(spec({ containers: [{ name: 'c', image: 'b:2' }] }), spec()), []);
    assert.deepEqual(podSpecUpdateErrors(spec({ initContainers: [{ name: 'i', image: 'b:2' }] }), spec({ initContainers: [{ name: 'i', image: 'a:1' }] })), []);
  });

  it('forbid anything else in the spec, with kube\'s wording', () => {
    const errs = podSpecUpdateErrors(spec({ containers: [{ name: 'c', image: 'a:1', args: ['x'] }] }), spec());
    assert.equal(errs.length, 1);
    assert.equal(errs[0]!.field, 'spec');
    assert.match(errs[0]!.message, /pod updates may not change fields other than `spec.containers\[\*\].image`,`spec.initContainers\[\*\].image`,`spec.activeDeadlineSeconds`/);
    assert.deepEqual(messages(spec({ terminationGracePeriodSeconds: 5 }), spec()), ['spec: FieldValueForbidden']);
    assert.deepEqual(podSpecUpdateErrors(spec({ terminationGracePeriodSeconds: 1 }), spec({ terminationGracePeriodSeconds: -1 })), [], 'a negative grace period may become 1');
    assert.deepEqual(messages(spec({ containers: [{ name: 'c', image: 'a:1' }, { name: 'd', image: 'a:1' }] }), spec()), ['spec.containers: FieldValueForbidden']);
  });

  it('let activeDeadlineSeconds be set or lowered, never raised or removed', () => {
    assert.deepEqual(podSpecUpdateErrors(spec({ activeDeadlineSeconds: 10 }), spec()), []);
    assert.deepEqual(podSpecUpdateErrors(spec({ activeDeadlineSeconds: 5 }), spec({ activeDeadlineSeconds: 10 })), []);
    assert.deepEqual(messages(spec({ activeDeadlineSeconds: 20 }), spec({ activeDeadlineSeconds: 10 })), ['spec.activeDeadlineSeconds: FieldValueInvalid']);
    assert.deepEqual(messages(spec(), spec({ activeDeadlineSeconds: 10 })), ['spec.activeDeadlineSeconds: FieldValueInvalid']);
  });

  it('let tolerations be added, and existing ones change only their tolerationSeconds', () => {
    assert.deepEqual(podSpecUpdateErrors(spec({ tolerations: [toleration, { key: 'x', operator: 'Exists' }] }), spec({ tolerations: [toleration] })), []);
    assert.deepEqual(podSpecUpdateErrors(spec({ tolerations: [{ ...toleration, tolerationSeconds: 9 }] }), spec({ tolerations: [toleration] })), []);
    const errs = podSpecUpdateErrors(spec({ tolerations: [{ ...toleration, value: 'w' }] }), spec({ tolerations: [toleration] }));
    assert.deepEqual(errs.map((e) => [e.field, e.message]), [['spec.tolerations', 'spec.tolerations: Forbidden: existing toleration can not be modified except its tolerationSeconds']]);
  });
});
