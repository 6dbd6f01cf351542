import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ClusterVersion, configCRDs, FeatureGate, Image, Infrastructure } from '../../api/config/index.ts';
import type { JSONSchemaProps } from '../../api/schema.ts';
import { newBudget } from './cel/compile.ts';
import { validateCelRules } from './cel-validation.ts';
import { validateCustomResourceDefinition } from './crd-validation.ts';
import type { CustomResourceDefinition } from './types.ts';

type Obj = Record<string, unknown>;

function messages(obj: Obj, schema: JSONSchemaProps, old?: Obj): string[] {
  return validateCelRules(obj, schema, { old }).errors.map((e) => e.message);
}

function resource(spec: unknown, extra: Obj = {}): Obj {
  return { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w', labels: { a: 'b' } }, spec, ...extra };
}

const rootOf = (k: { crd: { spec: { versions: Array<{ schema: { openAPIV3Schema: JSONSchemaProps } }> } } }) => k.crd.spec.versions[0]!.schema.openAPIV3Schema;

describe('x-kubernetes-validations on custom resources', () => {
  const spec = (properties: Record<string, JSONSchemaProps>, rules?: JSONSchemaProps['x-kubernetes-validations'], extra: JSONSchemaProps = {}): JSONSchemaProps => ({
    type: 'object',
    properties: { spec: { type: 'object', properties, ...(rules ? { 'x-kubernetes-validations': rules } : {}), ...extra } },
  });

  it('binds self to the value at the rule, and reports the rule message at its path', () => {
    const schema = spec({ replicas: { type: 'integer', 'x-kubernetes-validations': [{ rule: 'self + 1 <= 10', message: 'at most 9 replicas' }] } });
    assert.deepEqual(messages(resource({ replicas: 3 }), schema), []);
    assert.deepEqual(messages(resource({ replicas: 10 }), schema), ['spec.replicas: Invalid value: "integer": at most 9 replicas']);
  });

  it('words a failure without message as failed rule, and honours messageExpression, reason and fieldPath', () => {
    const schema = spec(
      { min: { type: 'integer' }, max: { type: 'integer' }, names: { type: 'array', items: { type: 'string' } } },
      [
        { rule: 'self.min <= self.max' },
        { rule: 'self.min >= 0', messageExpression: "'min is ' + string(self.min) + ', not a count'", fieldPath: '.min' },
        { rule: 'self.names.size() < 3', message: 'too many names', reason: 'FieldValueForbidden', fieldPath: '.names' },
        { rule: "!('x' in self.names)", message: 'x is taken', reason: 'FieldValueDuplicate' },
        { rule: "has(self.max) && self.max != 0", message: 'max needed', reason: 'FieldValueRequired', fieldPath: '.max' },
      ],
    );
    assert.deepEqual(messages(resource({ min: -5, max: 0, names: ['a', 'b', 'x'] }), schema), [
      'spec.min: Invalid value: "object": min is -5, not a count',
      'spec.names: Forbidden: too many names',
      'spec: Duplicate value: "object"',
      'spec.max: Required value: max needed',
    ]);
    assert.deepEqual(messages(resource({ min: 5, max: 1, names: [] }), schema), ['spec: Invalid value: "object": failed rule: self.min <= self.max']);
    const types = validateCelRules(resource({ min: -5, max: 0, names: ['a', 'b', 'x'] }), schema).errors.map((e) => e.type);
    assert.deepEqual(types, ['FieldValueInvalid', 'FieldValueForbidden', 'FieldValueDuplicate', 'FieldValueRequired']);
  });

  it('falls back to the message when messageExpression yields nothing usable', () => {
    const schema = spec({ a: { type: 'string' } }, [{ rule: 'false', message: 'plain', messageExpression: "''" }]);
    assert.deepEqual(messages(resource({ a: 'x' }), schema), ['spec: Invalid value: "object": plain']);
  });

  it('reports root rules on <nil>, and sees only name and generateName of metadata', () => {
    const schema: JSONSchemaProps = {
      type: 'object',
      'x-kubernetes-validations': [{ rule: "self.metadata.name.startsWith('w') && !has(self.metadata.labels) && self.kind == 'Widget'", message: 'bad root' }, { rule: 'self.spec.on', message: 'spec.on must be true' }],
      properties: { spec: { type: 'object', properties: { on: { type: 'boolean' } } } },
    };
    assert.deepEqual(messages(resource({ on: true }), schema), []);
    assert.deepEqual(messages(resource({ on: false }), schema), ['<nil>: Invalid value: "object": spec.on must be true']);
  });

  it('reports evaluation errors (a missing field) with the rule', () => {
    const schema = spec({ a: { type: 'string' }, b: { type: 'string' } }, [{ rule: "self.a == 'x' ? self.b != '' : true", message: 'b needed' }]);
    assert.deepEqual(messages(resource({ a: 'x' }), schema), ['spec: Invalid value: "object": No such key: b evaluating rule: b needed']);
  });

  it('skips absent and null values: rules on a node see only what is there', () => {
    const schema = spec({ s: { type: 'string', nullable: true, 'x-kubernetes-validations': [{ rule: 'false', message: 'never' }] } });
    assert.deepEqual(messages(resource({}), schema), []);
    assert.deepEqual(messages(resource({ s: null }), schema), []);
    assert.deepEqual(messages(resource({ s: 'x' }), schema), ['spec.s: Invalid value: "string": never']);
  });

  it('types values by the schema: ints, doubles, timestamps, durations, bytes, int-or-string', () => {
    const schema = spec(
      { i: { type: 'integer' }, d: { type: 'number' }, t: { type: 'string', format: 'date-time' }, u: { type: 'string', format: 'date-time' }, dur: { type: 'string', format: 'duration' }, b: { type: 'string', format: 'byte' }, ios: { 'x-kubernetes-int-or-string': true } },
      [
        { rule: 'self.i + 1 == 3', message: 'int' },
        { rule: 'self.d + 0.5 == 2.0', message: 'double' },
        { rule: 'self.t < self.u', message: 'timestamps' },
        { rule: "self.dur == duration('1h30m')", message: 'duration' },
        { rule: "self.b == b'hi'", message: 'bytes' },
        { rule: 'self.ios == 80', message: 'int-or-string' },
      ],
    );
    assert.deepEqual(messages(resource({ i: 2, d: 1.5, t: '2024-01-01T00:00:00Z', u: '2024-06-01T10:00:00.5+02:00', dur: '1h30m', b: 'aGk=', ios: 80 }), schema), []);
  });

  it('reaches properties whose names are not CEL identifiers through Kubernetes escapes', () => {
    const schema = spec({ 'foo-bar': { type: 'string' }, namespace: { type: 'string' }, 'a.b': { type: 'string' }, labels: { type: 'object', additionalProperties: { type: 'string' } } }, [
      { rule: "self.foo__dash__bar == 'x' && self.__namespace__ == 'ns' && self.a__dot__b == 'y' && self.labels['k.io/x'] == 'z'", message: 'escapes' },
    ]);
    assert.deepEqual(messages(resource({ 'foo-bar': 'x', namespace: 'ns', 'a.b': 'y', labels: { 'k.io/x': 'z' } }), schema), []);
  });

  it('runs transition rules only on updates with an old value to compare', () => {
    const schema = spec({ mode: { type: 'string', 'x-kubernetes-validations': [{ rule: 'self == oldSelf', message: 'mode is immutable' }] } });
    assert.deepEqual(messages(resource({ mode: 'a' }), schema), [], 'create: no oldSelf');
    assert.deepEqual(messages(resource({ mode: 'a' }), schema, resource({})), [], 'the field is new');
    assert.deepEqual(messages(resource({ mode: 'b' }), schema, resource({ mode: 'a' })), ['spec.mode: Invalid value: "string": mode is immutable']);
  });

  it('runs optionalOldSelf rules on create too, with oldSelf an optional', () => {
    const schema = spec(
      { replicas: { type: 'integer' } },
      [{ rule: '!oldSelf.hasValue() ? self.replicas <= 5 : self.replicas >= oldSelf.value().replicas', message: 'start at most 5, then only grow', optionalOldSelf: true }],
    );
    assert.deepEqual(messages(resource({ replicas: 3 }), schema), [], 'create within the start limit');
    assert.deepEqual(messages(resource({ replicas: 7 }), schema), ['spec: Invalid value: "object": start at most 5, then only grow'], 'create: the rule ran with oldSelf none');
    assert.deepEqual(messages(resource({ replicas: 9 }), schema, resource({ replicas: 3 })), [], 'update that grows');
    assert.deepEqual(messages(resource({ replicas: 2 }), schema, resource({ replicas: 3 })), ['spec: Invalid value: "object": start at most 5, then only grow']);
    // Where the old object has no value here, the rule still runs, with oldSelf none.
    assert.deepEqual(messages(resource({ replicas: 9 }), schema, resource(undefined)), ['spec: Invalid value: "object": start at most 5, then only grow']);
  });

  it('follows old values through map-list keys but not through other lists', () => {
    const item = (listType: 'map' | 'atomic'): JSONSchemaProps => ({
      type: 'array',
      'x-kubernetes-list-type': listType,
      ...(listType === 'map' ? { 'x-kubernetes-list-map-keys': ['name'] } : {}),
      items: { type: 'object', properties: { name: { type: 'string' }, size: { type: 'integer' } }, 'x-kubernetes-validations': [{ rule: 'self.size >= oldSelf.size', message: 'cannot shrink' }] },
    });
    const schema = spec({ byName: item('map'), plain: item('atomic') });
    const old = resource({ byName: [{ name: 'a', size: 5 }, { name: 'b', size: 1 }], plain: [{ name: 'a', size: 5 }] });
    const now = resource({ byName: [{ name: 'b', size: 2 }, { name: 'a', size: 4 }], plain: [{ name: 'a', size: 1 }] });
    assert.deepEqual(messages(now, schema, old), ['spec.byName[1]: Invalid value: "object": cannot shrink']);
  });

  it('ratchets: a failing rule on a value the update did not change is a warning, not an error', () => {
    const schema = spec({ a: { type: 'string', 'x-kubernetes-validations': [{ rule: "self != 'bad'", message: 'bad a' }] }, b: { type: 'string' } });
    const old = resource({ a: 'bad', b: '1' });
    const result = validateCelRules(resource({ a: 'bad', b: '2' }), schema, { old });
    assert.deepEqual(result.errors, []);
    assert.deepEqual(result.warnings, ['spec.a: Invalid value: "string": bad a']);
    assert.deepEqual(messages(resource({ a: 'bad', b: '2' }), schema), ['spec.a: Invalid value: "string": bad a'], 'a create is never ratcheted');
  });

  it('stops at the cost limit with Kubernetes’ message, without hanging', () => {
    const schema = spec({ l: { type: 'array', items: { type: 'integer' } } }, [{ rule: 'self.l.all(x, self.l.all(y, self.l.all(z, x + y + z >= 0)))', message: 'cubic' }, { rule: 'false', message: 'never reached' }]);
    // 500^3 steps if the limit did not stop it: that would run into the test's deadline, not return.
    const errs = messages(resource({ l: Array.from({ length: 500 }, (_, i) => i) }), schema);
    assert.deepEqual(errs, ["spec: Invalid value: \"object\": 'operation cancelled: actual cost limit exceeded': no further validation rules will be run due to call cost exceeds limit for rule: cubic"]);
    const budget = newBudget();
    budget.remaining = 10;
    const small = validateCelRules(resource({ l: [1, 2, 3, 4, 5, 6, 7, 8] }), spec({ l: { type: 'array', items: { type: 'integer' } } }, [{ rule: 'self.l.all(x, x > 0)' }]), { budget });
    assert.deepEqual(small.errors.map((e) => e.message), ['spec: Invalid value: "object": validation failed due to running out of cost budget, no further validation rules will be run']);
  });

  it('reports a rule that no longer compiles instead of failing the request', () => {
    const schema = spec({ a: { type: 'string' } }, [{ rule: 'self.a ==' }]);
    assert.deepEqual(messages(resource({ a: 'x' }), schema), ['spec: Invalid value: "object": rule compile error: compilation failed: ERROR: <input>:1:10: Unexpected token: EOF']);
  });
});

describe('config.openshift.io CEL rules', () => {
  it('every config CRD compiles', () => {
    for (const crd of configCRDs()) assert.deepEqual(validateCustomResourceDefinition(crd as unknown as CustomResourceDefinition), [], crd.metadata.name);
  });

  const gate = (featureSet?: string): Obj => ({ apiVersion: FeatureGate.apiVersion, kind: 'FeatureGate', metadata: { name: 'cluster' }, spec: featureSet === undefined ? {} : { featureSet } });
  const gateSchema = rootOf(FeatureGate);
  const transitions: Array<[string | undefined, string | undefined, string[]]> = [
    [undefined, 'TechPreviewNoUpgrade', []],
    ['', 'TechPreviewNoUpgrade', []],
    ['TechPreviewNoUpgrade', 'TechPreviewNoUpgrade', []],
    ['TechPreviewNoUpgrade', '', ['spec.featureSet: Invalid value: "string": TechPreviewNoUpgrade may not be changed']],
    ['TechPreviewNoUpgrade', 'CustomNoUpgrade', ['spec.featureSet: Invalid value: "string": TechPreviewNoUpgrade may not be changed']],
    ['CustomNoUpgrade', 'DevPreviewNoUpgrade', ['spec.featureSet: Invalid value: "string": CustomNoUpgrade may not be changed']],
    ['DevPreviewNoUpgrade', '', ['spec.featureSet: Invalid value: "string": DevPreviewNoUpgrade may not be changed']],
    ['OKD', '', ['spec.featureSet: Invalid value: "string": OKD cannot transition to Default']],
    ['OKD', 'TechPreviewNoUpgrade', []],
    [undefined, undefined, []],
    ['', undefined, ['spec: Invalid value: "object": .spec.featureSet cannot be removed']],
    ['TechPreviewNoUpgrade', undefined, ['spec: Invalid value: "object": .spec.featureSet cannot be removed']],
  ];
  for (const [from, to, want] of transitions) {
    it(`FeatureGate featureSet ${JSON.stringify(from) ?? 'unset'} → ${JSON.stringify(to) ?? 'unset'}`, () => {
      assert.deepEqual(messages(gate(to), gateSchema, gate(from)), want);
    });
  }
  it('FeatureGate: any featureSet on create', () => {
    for (const set of ['TechPreviewNoUpgrade', 'CustomNoUpgrade', 'OKD', '']) assert.deepEqual(messages(gate(set), gateSchema), []);
  });

  const cv = (desiredUpdate: Obj): Obj => ({ apiVersion: ClusterVersion.apiVersion, kind: 'ClusterVersion', metadata: { name: 'version' }, spec: { clusterID: 'c', desiredUpdate } });
  const cvCases: Array<[Obj, string[]]> = [
    [{ image: 'quay.io/x:1' }, []],
    [{ version: '4.18.1' }, []],
    [{ architecture: '', image: 'quay.io/x:1' }, []],
    [{ architecture: 'Multi', version: '4.18.1' }, []],
    [{ architecture: 'Multi', version: '4.18.1', image: 'quay.io/x:1' }, ['spec.desiredUpdate: Invalid value: "object": cannot set both Architecture and Image']],
    [{ architecture: 'Multi', version: '' }, ['spec.desiredUpdate: Invalid value: "object": Version must be set if Architecture is set']],
    [{ architecture: 'Multi' }, ['spec.desiredUpdate: Invalid value: "object": No such key: version evaluating rule: Version must be set if Architecture is set']],
  ];
  for (const [update, want] of cvCases) {
    it(`ClusterVersion desiredUpdate ${JSON.stringify(update)}`, () => assert.deepEqual(messages(cv(update), rootOf(ClusterVersion)), want));
  }

  it('Image: blockedRegistries and allowedRegistries exclude each other', () => {
    const image = (registrySources: Obj): Obj => ({ apiVersion: Image.apiVersion, kind: 'Image', metadata: { name: 'cluster' }, spec: { registrySources } });
    assert.deepEqual(messages(image({ blockedRegistries: ['a'] }), rootOf(Image)), []);
    assert.deepEqual(messages(image({ allowedRegistries: ['a'] }), rootOf(Image)), []);
    assert.deepEqual(messages(image({ blockedRegistries: ['a'], allowedRegistries: ['b'] }), rootOf(Image)), ['spec.registrySources: Invalid value: "object": Only one of blockedRegistries or allowedRegistries may be set']);
  });

  it('Infrastructure: the external platform name is set once', () => {
    const infra = (platformName: string): Obj => ({ apiVersion: Infrastructure.apiVersion, kind: 'Infrastructure', metadata: { name: 'cluster' }, spec: { platformSpec: { type: 'External', external: { platformName } } } });
    const schema = rootOf(Infrastructure);
    assert.deepEqual(messages(infra('oci'), schema, infra('Unknown')), []);
    assert.deepEqual(messages(infra('oci'), schema, infra('oci')), []);
    assert.deepEqual(messages(infra('aws'), schema, infra('oci')), ['spec.platformSpec.external.platformName: Invalid value: "string": platform name cannot be changed once set']);
  });
});
