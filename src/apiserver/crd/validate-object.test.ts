import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { JSONSchemaProps } from '../../api/schema.ts';
import { validateCustomObject, validateValue } from './validate-object.ts';

function resource(spec: Record<string, unknown>, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w', namespace: 'default', labels: { a: 'b' }, creationTimestamp: '2024-01-01T00:00:00Z' }, spec, ...extra };
}

function rootWith(spec: JSONSchemaProps): JSONSchemaProps {
  return { type: 'object', properties: { spec } };
}

const specSchema: JSONSchemaProps = {
  type: 'object',
  required: ['image'],
  properties: {
    image: { type: 'string' },
    replicas: { type: 'integer', minimum: 0, maximum: 10 },
    ratio: { type: 'number', minimum: 0, exclusiveMinimum: true, maximum: 1, exclusiveMaximum: true },
    step: { type: 'integer', multipleOf: 5 },
    tenth: { type: 'number', multipleOf: 0.1 },
    size: { type: 'string', enum: ['S', 'M'] },
    level: { type: 'integer', enum: [1, 2] },
    name: { type: 'string', pattern: '^[a-z]+$', minLength: 2, maxLength: 5 },
    insensitive: { type: 'string', pattern: '(?i)^abc$' },
    tags: { type: 'array', minItems: 1, maxItems: 2, items: { type: 'string' } },
    labels: { type: 'object', minProperties: 1, maxProperties: 2, additionalProperties: { type: 'string', maxLength: 3 } },
    items: { type: 'array', items: { type: 'object', required: ['n'], properties: { n: { type: 'integer' } } } },
    flag: { type: 'boolean' },
    maybe: { type: 'string', nullable: true },
    port: { 'x-kubernetes-int-or-string': true },
    email: { type: 'string', format: 'email' },
    when: { type: 'string', format: 'date-time' },
    ignoredFormat: { type: 'string', format: 'not-a-kube-format' },
    empty: { type: 'object', additionalProperties: false },
  },
};
const schema = rootWith(specSchema);

const keywordCases: Array<{ name: string; spec: Record<string, unknown>; want: string[] }> = [
  { name: 'a valid object', spec: { image: 'nginx', replicas: 3, ratio: 0.5, step: 10, size: 'S', level: 2, name: 'abc', tags: ['a'], labels: { a: 'b' }, flag: true, maybe: null, port: 80, email: 'a@b.c', when: '2024-01-01T10:00:00Z', ignoredFormat: '!!' }, want: [] },
  { name: 'type', spec: { image: 'x', replicas: 'abc' }, want: ['spec.replicas: Invalid value: "string": spec.replicas in body must be of type integer: "string"'] },
  { name: 'type of a fraction for an integer', spec: { image: 'x', replicas: 1.5 }, want: ['spec.replicas: Invalid value: "number": spec.replicas in body must be of type integer: "number"'] },
  { name: 'type boolean', spec: { image: 'x', flag: 'yes' }, want: ['spec.flag: Invalid value: "string": spec.flag in body must be of type boolean: "string"'] },
  { name: 'null where not nullable', spec: { image: 'x', flag: null }, want: ['spec.flag: Invalid value: "null": spec.flag in body must be of type boolean: "null"'] },
  { name: 'enum of strings', spec: { image: 'x', size: 'XL' }, want: ['spec.size: Unsupported value: "XL": supported values: "S", "M"'] },
  { name: 'enum of integers', spec: { image: 'x', level: 3 }, want: ['spec.level: Unsupported value: 3: supported values: "1", "2"'] },
  { name: 'pattern', spec: { image: 'x', name: 'x1' }, want: ['spec.name: Invalid value: "x1": spec.name in body should match \'^[a-z]+$\''] },
  { name: 'RE2 flags in a pattern', spec: { image: 'x', insensitive: 'ABC' }, want: [] },
  { name: 'maximum', spec: { image: 'x', replicas: 20 }, want: ['spec.replicas: Invalid value: 20: spec.replicas in body should be less than or equal to 10'] },
  { name: 'minimum', spec: { image: 'x', replicas: -1 }, want: ['spec.replicas: Invalid value: -1: spec.replicas in body should be greater than or equal to 0'] },
  { name: 'exclusive maximum', spec: { image: 'x', ratio: 1 }, want: ['spec.ratio: Invalid value: 1: spec.ratio in body should be less than 1'] },
  { name: 'exclusive minimum', spec: { image: 'x', ratio: 0 }, want: ['spec.ratio: Invalid value: 0: spec.ratio in body should be greater than 0'] },
  { name: 'multipleOf', spec: { image: 'x', step: 7 }, want: ['spec.step: Invalid value: 7: spec.step in body should be a multiple of 5'] },
  { name: 'multipleOf a fraction tolerates rounding', spec: { image: 'x', tenth: 0.3 }, want: [] },
  { name: 'minLength', spec: { image: 'x', name: 'a' }, want: ['spec.name: Invalid value: "a": spec.name in body should be at least 2 chars long'] },
  { name: 'maxLength', spec: { image: 'x', name: 'abcdef' }, want: ['spec.name: Too long: may not be more than 5 bytes'] },
  { name: 'minItems', spec: { image: 'x', tags: [] }, want: ['spec.tags: Invalid value: 0: spec.tags in body should have at least 1 items'] },
  { name: 'maxItems', spec: { image: 'x', tags: ['a', 'b', 'c'] }, want: ['spec.tags: Too many: 3: must have at most 2 items'] },
  { name: 'minProperties', spec: { image: 'x', labels: {} }, want: ['spec.labels: Invalid value: 0: spec.labels in body should have at least 1 properties'] },
  { name: 'maxProperties', spec: { image: 'x', labels: { a: 'a', b: 'b', c: 'c' } }, want: ['spec.labels: Too many: 3: must have at most 2 items'] },
  { name: 'additionalProperties values', spec: { image: 'x', labels: { a: 'long' } }, want: ['spec.labels.a: Too long: may not be more than 3 bytes'] },
  { name: 'additionalProperties false', spec: { image: 'x', empty: { x: 1 } }, want: ['spec.empty: Invalid value: "x": spec.empty.x in body is a forbidden property'] },
  { name: 'required', spec: {}, want: ['spec.image: Required value'] },
  { name: 'required inside array items', spec: { image: 'x', items: [{ n: 1 }, {}] }, want: ['spec.items[1].n: Required value'] },
  { name: 'array item paths', spec: { image: 'x', items: [{ n: 'one' }] }, want: ['spec.items[0].n: Invalid value: "string": spec.items[0].n in body must be of type integer: "string"'] },
  { name: 'int-or-string takes an integer', spec: { image: 'x', port: 8080 }, want: [] },
  { name: 'int-or-string takes a string', spec: { image: 'x', port: 'http' }, want: [] },
  { name: 'int-or-string refuses a boolean', spec: { image: 'x', port: true }, want: ['spec.port: Invalid value: "boolean": spec.port in body must be of type integer,string: "boolean"'] },
  { name: 'nullable takes null', spec: { image: 'x', maybe: null }, want: [] },
  { name: 'format', spec: { image: 'x', email: 'nope' }, want: ['spec.email: Invalid value: "nope": spec.email in body must be of type email: "nope"'] },
  { name: 'format date-time', spec: { image: 'x', when: 'yesterday' }, want: ['spec.when: Invalid value: "yesterday": spec.when in body must be of type date-time: "yesterday"'] },
];

describe('validateCustomObject: OpenAPI keywords', () => {
  for (const c of keywordCases) {
    it(c.name, () => {
      assert.deepEqual(validateCustomObject(resource(c.spec), schema).map((e) => e.message), c.want);
    });
  }

  it('types each error as Kubernetes does', () => {
    const types = (spec: Record<string, unknown>) => validateCustomObject(resource(spec), schema).map((e) => e.type);
    assert.deepEqual(types({ image: 'x', replicas: 'a' }), ['FieldValueTypeInvalid']);
    assert.deepEqual(types({ image: 'x', size: 'XL' }), ['FieldValueNotSupported']);
    assert.deepEqual(types({}), ['FieldValueRequired']);
    assert.deepEqual(types({ image: 'x', name: 'abcdef' }), ['FieldValueTooLong']);
    assert.deepEqual(types({ image: 'x', tags: ['a', 'b', 'c'] }), ['FieldValueTooMany']);
    assert.deepEqual(types({ image: 'x', replicas: 11 }), ['FieldValueInvalid']);
    assert.deepEqual(validateCustomObject(resource({}), schema).map((e) => e.field), ['spec.image']);
  });
});

describe('validateCustomObject: resource root', () => {
  const cases: Array<{ name: string; schema: JSONSchemaProps; obj: Record<string, unknown>; want: string[] }> = [
    {
      name: 'metadata contents are left to the ObjectMeta validation',
      schema: { type: 'object', properties: { metadata: { type: 'object' } } },
      obj: { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w', labels: { 'bad key!': 'x' }, generation: 3 } },
      want: [],
    },
    {
      name: 'metadata.name restrictions apply',
      schema: { type: 'object', properties: { metadata: { type: 'object', properties: { name: { type: 'string', maxLength: 3 } } } } },
      obj: { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'long-name' } },
      want: ['metadata.name: Too long: may not be more than 3 bytes'],
    },
    {
      name: 'apiVersion and kind need no schema',
      schema: { type: 'object', properties: { spec: { type: 'object' } }, required: ['spec'] },
      obj: { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w' }, spec: {} },
      want: [],
    },
    {
      name: 'root required',
      schema: { type: 'object', properties: { spec: { type: 'object' } }, required: ['spec'] },
      obj: { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w' } },
      want: ['spec: Required value'],
    },
  ];
  for (const c of cases) {
    it(c.name, () => assert.deepEqual(validateCustomObject(c.obj, c.schema).map((e) => e.message), c.want));
  }
});

describe('validateCustomObject: composite keywords', () => {
  const composite: JSONSchemaProps = rootWith({
    type: 'object',
    properties: {
      either: { type: 'object', properties: { a: { type: 'string' }, b: { type: 'string' } }, oneOf: [{ required: ['a'] }, { required: ['b'] }] },
      any: { type: 'string', anyOf: [{ minLength: 3 }, { pattern: '^x' }] },
      all: { type: 'integer', allOf: [{ minimum: 1 }, { maximum: 5 }] },
      not: { type: 'string', not: { enum: ['forbidden'] } },
      port: { 'x-kubernetes-int-or-string': true, anyOf: [{ type: 'integer' }, { type: 'string' }] },
    },
  });
  const cases: Array<{ name: string; spec: Record<string, unknown>; want: string[] }> = [
    { name: 'oneOf, none valid', spec: { either: {} }, want: ['<nil>: Invalid value: "": "spec.either" must validate one and only one schema (oneOf). Found none valid', 'spec.either.a: Required value'] },
    { name: 'oneOf, two valid', spec: { either: { a: 'x', b: 'y' } }, want: ['<nil>: Invalid value: "": "spec.either" must validate one and only one schema (oneOf). Found 2 valid alternatives'] },
    { name: 'oneOf, one valid', spec: { either: { b: 'y' } }, want: [] },
    { name: 'anyOf keeps the closest branch', spec: { any: 'ab' }, want: ['<nil>: Invalid value: "": "spec.any" must validate at least one schema (anyOf)', 'spec.any: Invalid value: "ab": spec.any in body should be at least 3 chars long'] },
    { name: 'anyOf satisfied', spec: { any: 'xy' }, want: [] },
    { name: 'allOf', spec: { all: 9 }, want: ['spec.all: Invalid value: 9: spec.all in body should be less than or equal to 5', '<nil>: Invalid value: "": "spec.all" must validate all the schemas (allOf)'] },
    { name: 'not', spec: { not: 'forbidden' }, want: ['<nil>: Invalid value: "": "spec.not" must not validate the schema (not)'] },
    { name: 'int-or-string pattern', spec: { port: 'http' }, want: [] },
    {
      name: 'int-or-string pattern refusing a boolean',
      spec: { port: false },
      want: [
        'spec.port: Invalid value: "boolean": spec.port in body must be of type integer,string: "boolean"',
        '<nil>: Invalid value: "": "spec.port" must validate at least one schema (anyOf)',
        'spec.port: Invalid value: "boolean": spec.port in body must be of type integer: "boolean"',
      ],
    },
  ];
  for (const c of cases) {
    it(c.name, () => assert.deepEqual(validateCustomObject(resource(c.spec), composite).map((e) => e.message), c.want));
  }
});

describe('validateCustomObject: list types', () => {
  const lists = rootWith({
    type: 'object',
    properties: {
      tags: { type: 'array', 'x-kubernetes-list-type': 'set', items: { type: 'string' } },
      objs: { type: 'array', 'x-kubernetes-list-type': 'set', items: { type: 'object', 'x-kubernetes-map-type': 'atomic', properties: { a: { type: 'integer' }, b: { type: 'integer' } } } },
      ports: { type: 'array', 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['name'], items: { type: 'object', properties: { name: { type: 'string' }, port: { type: 'integer' } } } },
      routes: { type: 'array', 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['host', 'path'], items: { type: 'object', properties: { host: { type: 'string' }, path: { type: 'string' } } } },
      atomic: { type: 'array', items: { type: 'string' } },
      byName: { type: 'object', additionalProperties: { type: 'array', 'x-kubernetes-list-type': 'set', items: { type: 'integer' } } },
    },
  });
  const cases: Array<{ name: string; spec: Record<string, unknown>; want: string[] }> = [
    { name: 'set of scalars', spec: { tags: ['a', 'b', 'a', 'a', 'b'] }, want: ['spec.tags[2]: Duplicate value: "a"', 'spec.tags[4]: Duplicate value: "b"'] },
    { name: 'set of objects compares by value', spec: { objs: [{ a: 1, b: 2 }, { b: 2, a: 1 }] }, want: ['spec.objs[1]: Duplicate value: {"b":2,"a":1}'] },
    { name: 'map with one key', spec: { ports: [{ name: 'http', port: 80 }, { name: 'http', port: 8080 }] }, want: ['spec.ports[1]: Duplicate value: {"name":"http"}'] },
    { name: 'map with unset keys', spec: { ports: [{ port: 80 }, { port: 81 }] }, want: ['spec.ports[1]: Duplicate value: {}'] },
    { name: 'map with two keys', spec: { routes: [{ host: 'a', path: '/' }, { host: 'a', path: '/x' }, { host: 'a', path: '/' }] }, want: ['spec.routes[2]: Duplicate value: {"host":"a","path":"/"}'] },
    { name: 'distinct values', spec: { tags: ['a', 'b'], ports: [{ name: 'a' }, { name: 'b' }] }, want: [] },
    { name: 'atomic lists may repeat', spec: { atomic: ['a', 'a'] }, want: [] },
    { name: 'sets under additionalProperties', spec: { byName: { x: [1, 1] } }, want: ['spec.byName[x][1]: Duplicate value: 1'] },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const errs = validateCustomObject(resource(c.spec), lists);
      assert.deepEqual(errs.map((e) => e.message), c.want);
      assert.ok(errs.every((e) => e.type === 'FieldValueDuplicate'));
    });
  }
});

describe('validateCustomObject: embedded resources', () => {
  const embedded = rootWith({
    type: 'object',
    properties: {
      template: { type: 'object', 'x-kubernetes-embedded-resource': true, 'x-kubernetes-preserve-unknown-fields': true },
      raws: { type: 'array', items: { type: 'object', 'x-kubernetes-embedded-resource': true, 'x-kubernetes-preserve-unknown-fields': true } },
    },
  });
  const cases: Array<{ name: string; spec: Record<string, unknown>; want: string[] }> = [
    { name: 'complete', spec: { template: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', labels: { app: 'x' } }, spec: {} } }, want: [] },
    { name: 'apiVersion and kind required', spec: { template: {} }, want: ['spec.template.apiVersion: Required value', 'spec.template.kind: Required value'] },
    { name: 'kind format', spec: { template: { apiVersion: 'v1', kind: 'My Kind' } }, want: ['spec.template.kind: Invalid value: "My Kind": may have mixed case, but should otherwise match: a DNS-1035 label must consist of lower case alphanumeric characters or \'-\', start with an alphabetic character, and end with an alphanumeric character (e.g. \'my-name\',  or \'abc-123\', regex used for validation is \'[a-z]([-a-z0-9]*[a-z0-9])?\')'] },
    { name: 'apiVersion format', spec: { template: { apiVersion: 'a/b/c', kind: 'Pod' } }, want: ['spec.template.apiVersion: Invalid value: "a/b/c": unexpected GroupVersion string: a/b/c'] },
    { name: 'metadata name', spec: { template: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'a/b' } } }, want: ['spec.template.metadata.name: Invalid value: "a/b": may not contain \'/\''] },
    { name: 'metadata labels', spec: { template: { apiVersion: 'v1', kind: 'Pod', metadata: { labels: { app: 'not ok' } } } }, want: ['spec.template.metadata.labels[app]: Invalid value: "not ok": a valid label must be an empty string or consist of alphanumeric characters, \'-\', \'_\' or \'.\', and must start and end with an alphanumeric character (e.g. \'MyValue\',  or \'my_value\',  or \'12345\', regex used for validation is \'(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?\')'] },
    { name: 'inside arrays', spec: { raws: [{ apiVersion: 'v1', kind: 'ConfigMap' }, { kind: 'Secret' }] }, want: ['spec.raws[1].apiVersion: Required value'] },
  ];
  for (const c of cases) {
    it(c.name, () => assert.deepEqual(validateCustomObject(resource(c.spec), embedded).map((e) => e.message), c.want));
  }
});

describe('validateValue', () => {
  it('puts fields under the base path and names paths in messages relative to the value', () => {
    const errs = validateValue({ n: 'x' }, { type: 'object', properties: { n: { type: 'integer' } } }, { basePath: 'spec.versions[0].schema.openAPIV3Schema.default' });
    assert.deepEqual(errs.map((e) => e.message), ['spec.versions[0].schema.openAPIV3Schema.default.n: Invalid value: "string": n in body must be of type integer: "string"']);
  });
});

describe('compiled validators', () => {
  /**
   * `node` with reads of its `maxLength` counted in `reads`, under `key`. A leaf check reads a
   * node's keywords only to compile it, so the reads show which nodes were compiled, and when.
   */
  function watched(node: JSONSchemaProps, reads: Map<string, number>, key: string): JSONSchemaProps {
    const { maxLength, ...rest } = node;
    return Object.defineProperty(rest, 'maxLength', {
      enumerable: true,
      get: () => {
        reads.set(key, (reads.get(key) ?? 0) + 1);
        return maxLength;
      },
    });
  }

  it('compile once per schema object: later validations only run the compiled checks', () => {
    const reads = new Map<string, number>();
    const s = rootWith({ type: 'object', properties: { name: watched({ type: 'string', maxLength: 5 }, reads, 'name') } });
    assert.deepEqual(validateCustomObject(resource({ name: 'a' }), s), []);
    const compiled = reads.get('name');
    assert.ok(compiled, 'compiled on first use');
    for (let i = 0; i < 100; i++) assert.deepEqual(validateCustomObject(resource({ name: `n${i % 10}` }), s), []);
    assert.deepEqual(validateCustomObject(resource({ name: 'toolong' }), s).map((e) => e.field), ['spec.name']);
    assert.equal(reads.get('name'), compiled, 'not compiled again');
  });

  it('reports a schema that cannot be compiled instead of throwing', () => {
    const errs = validateCustomObject(resource({ p: 'x' }), rootWith({ type: 'object', properties: { p: { type: 'string', pattern: '(?=x)' } } }));
    assert.equal(errs.length, 1);
    assert.equal(errs[0]!.field, 'spec.p');
    assert.match(errs[0]!.message, /error building validator/);
  });

  it('compile only the nodes an object reaches, so a large schema costs nothing up front', () => {
    const reads = new Map<string, number>();
    const wide: JSONSchemaProps = { type: 'object', properties: {} };
    for (let i = 0; i < 3000; i++) wide.properties![`f${i}`] = watched({ type: 'string', pattern: `^${i}$`, maxLength: i + 1 }, reads, `f${i}`);
    assert.deepEqual(validateCustomObject(resource({ f7: '7' }), rootWith(wide)), []);
    assert.deepEqual([...reads.keys()], ['f7'], 'first validation against a 3000-field schema compiles the one field it reaches');
  });
});
