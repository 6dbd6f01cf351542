import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fieldElement as f, FieldSet, formatPath, keyElement as k, valueElement as v } from './field-set.ts';

describe('FieldSet', () => {
  const fieldsV1 = {
    'f:metadata': { 'f:labels': { '.': {}, 'f:app': {} }, 'f:finalizers': { 'v:"a"': {} } },
    'f:spec': {
      'f:replicas': {},
      'f:template': { 'f:spec': { 'f:containers': { 'k:{"name":"c"}': { '.': {}, 'f:image': {}, 'f:name': {} } } } },
    },
  };

  it('reads FieldsV1 into paths, "." marking a node that is itself a member', () => {
    const set = FieldSet.fromFieldsV1(fieldsV1)!;
    assert.ok(set.has([f('metadata'), f('labels')]));
    assert.ok(set.has([f('metadata'), f('labels'), f('app')]));
    assert.ok(!set.has([f('metadata')]));
    assert.ok(set.has([f('spec'), f('template'), f('spec'), f('containers'), k({ name: 'c' })]));
    assert.ok(set.has([f('metadata'), f('finalizers'), v('a')]));
  });

  it('removeInPlace is withoutSubtree then withoutMembers, on the set itself', () => {
    const subtree = [f('spec'), f('template')];
    const members = [[f('metadata'), f('labels')], [f('metadata'), f('labels'), f('app')], [f('spec'), f('replicas')]];
    const copied = FieldSet.fromFieldsV1(fieldsV1)!.withoutSubtree(subtree).withoutMembers(members);
    const set = FieldSet.fromFieldsV1(fieldsV1)!;
    assert.equal(set.removeInPlace([subtree], members), set);
    assert.deepEqual(set.toFieldsV1(), copied.toFieldsV1());
    assert.deepEqual(set.toFieldsV1(), { 'f:metadata': { 'f:finalizers': { 'v:"a"': {} } } });
  });

  it('writes FieldsV1 back unchanged', () => {
    assert.deepEqual(FieldSet.fromFieldsV1(fieldsV1)!.toFieldsV1(), fieldsV1);
  });

  it('canonicalises keys so that equal items match whatever their spelling', () => {
    const set = FieldSet.fromFieldsV1({ 'f:ports': { 'k:{"protocol":"TCP", "containerPort":80}': {} } })!;
    assert.ok(set.has([f('ports'), k({ containerPort: 80, protocol: 'TCP' })]));
  });

  for (const bad of [[], 'x', { 'x:y': {} }, { 'f:a': 1 }, { 'k:[1]': {} }, { 'k:{nope': {} }, { 'i:x': {} }]) {
    it(`rejects ${JSON.stringify(bad)}`, () => assert.equal(FieldSet.fromFieldsV1(bad), undefined));
  }

  it('unites, subtracts and intersects members', () => {
    const a = FieldSet.of([[f('a')], [f('b'), f('c')], [f('b'), f('d')]]);
    const b = FieldSet.of([[f('b'), f('c')], [f('e')]]);
    assert.deepEqual(a.union(b).paths(), [[f('a')], [f('e')], [f('b'), f('c')], [f('b'), f('d')]]);
    assert.deepEqual(a.difference(b).paths(), [[f('a')], [f('b'), f('d')]]);
    assert.deepEqual(a.intersection(b).paths(), [[f('b'), f('c')]]);
    assert.ok(a.difference(a).isEmpty());
    assert.deepEqual(a.difference(b).toFieldsV1(), { 'f:a': {}, 'f:b': { 'f:d': {} } });
  });

  it('drops a subtree or single members', () => {
    const set = FieldSet.of([[f('m')], [f('m'), f('x')], [f('s'), f('y')]]);
    assert.deepEqual(set.withoutSubtree([f('m')]).paths(), [[f('s'), f('y')]]);
    assert.deepEqual(set.withoutMembers([[f('m')]]).paths(), [[f('m'), f('x')], [f('s'), f('y')]]);
  });

  const printed: Array<[string[], string]> = [
    [[f('spec'), f('replicas')], '.spec.replicas'],
    [[f('spec'), f('containers'), k({ name: 'c' }), f('image')], '.spec.containers[name="c"].image'],
    [[f('ports'), k({ protocol: 'TCP', containerPort: 80 })], '.ports[containerPort=80,protocol="TCP"]'],
    [[f('metadata'), f('finalizers'), v('example.com/x')], '.metadata.finalizers[="example.com/x"]'],
    [[f('args'), 'i:2'], '.args[2]'],
  ];
  for (const [path, text] of printed) {
    it(`prints ${text}`, () => assert.equal(formatPath(path), text));
  }
});
