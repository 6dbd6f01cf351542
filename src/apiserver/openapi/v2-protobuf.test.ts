import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { negotiateOpenApiV2 } from '../openapi-service.ts';
import { WireReader, WireType } from '../protobuf/wire.ts';
import { encodeOpenApiV2 } from './v2-protobuf.ts';

/** A decoded message: each field number's values, in order (bytes for length-delimited ones). */
type Fields = Map<number, (bigint | Uint8Array | Buffer)[]>;

function decode(bytes: Uint8Array): Fields {
  const r = new WireReader(bytes);
  const out: Fields = new Map();
  while (!r.done) {
    const { field, wire } = r.tag();
    let v: bigint | Uint8Array | Buffer;
    if (wire === WireType.varint) v = r.varint();
    else if (wire === WireType.lengthDelimited) v = r.bytes();
    else if (wire === WireType.fixed64) {
      r.skip(wire);
      v = Buffer.alloc(0); // checked on the raw bytes instead
    } else throw new Error(`unexpected wire type ${wire}`);
    out.set(field, [...(out.get(field) ?? []), v]);
  }
  return out;
}

const msg = (f: Fields, field: number, i = 0): Fields => decode(f.get(field)![i] as Uint8Array);
const str = (f: Fields, field: number, i = 0): string | undefined => (f.get(field)?.[i] === undefined ? undefined : Buffer.from(f.get(field)![i] as Uint8Array).toString('utf8'));
const strs = (f: Fields, field: number): string[] => (f.get(field) ?? []).map((b) => Buffer.from(b as Uint8Array).toString('utf8'));
/** The value of the `Named…` entry called `name` among the repeated field `field`. */
function namedValue(f: Fields, field: number, name: string): Fields {
  for (const raw of f.get(field) ?? []) {
    const entry = decode(raw as Uint8Array);
    if (str(entry, 1) === name) return msg(entry, 2);
  }
  assert.fail(`no entry ${name} in field ${field}`);
}

const doc = {
  swagger: '2.0',
  info: { title: 'Kubernetes', version: 'unversioned' },
  paths: {
    '/api/v1/namespaces/{namespace}/configmaps': {
      parameters: [{ name: 'namespace', in: 'path', required: true, type: 'string', uniqueItems: true }, { name: 'pretty', in: 'query', type: 'string', uniqueItems: true }],
      patch: {
        operationId: 'patchCoreV1NamespacedConfigMap',
        parameters: [{ name: 'body', in: 'body', required: true, schema: { $ref: '#/definitions/io.k8s.api.core.v1.ConfigMap' } }, { name: 'fieldValidation', in: 'query', type: 'string', uniqueItems: true }],
        responses: { '200': { description: 'OK', schema: { $ref: '#/definitions/io.k8s.api.core.v1.ConfigMap' } }, '401': { description: 'Unauthorized' } },
        'x-kubernetes-group-version-kind': { group: '', version: 'v1', kind: 'ConfigMap' },
      },
    },
  },
  definitions: {
    'io.k8s.api.core.v1.ConfigMap': {
      type: 'object',
      required: ['data'],
      properties: {
        data: { type: 'object', additionalProperties: { type: 'string' } },
        closed: { type: 'object', additionalProperties: false },
        size: { type: 'integer', format: 'int32', minimum: 1.5, maxLength: 7, default: 3, enum: [3, 'x'] },
        'x-property-named-like-an-extension': { type: 'string' },
      },
      'x-kubernetes-group-version-kind': [{ group: '', kind: 'ConfigMap', version: 'v1' }],
    },
  },
};

describe('OpenAPI v2 as gnostic protobuf', () => {
  const d = decode(encodeOpenApiV2(doc));

  it('writes the document fields at gnostic OpenAPIv2.proto numbers', () => {
    assert.equal(str(d, 1), '2.0');
    assert.equal(str(msg(d, 2), 1), 'Kubernetes');
    assert.equal(str(msg(d, 2), 2), 'unversioned');
  });

  it('writes a definition as a Schema: type, required, properties, additionalProperties, numbers, values as YAML, extensions', () => {
    const cm = namedValue(msg(d, 9), 1, 'io.k8s.api.core.v1.ConfigMap');
    assert.deepEqual(strs(msg(cm, 22), 1), ['object'], 'type is a TypeItem');
    assert.deepEqual(strs(cm, 19), ['data']);
    const props = msg(cm, 25);
    const data = namedValue(props, 1, 'data');
    assert.deepEqual(strs(msg(msg(msg(data, 21), 1), 22), 1), ['string'], 'additionalProperties holds a Schema (oneof field 1)');
    const closed = msg(namedValue(props, 1, 'closed'), 21);
    assert.deepEqual(closed.get(2), [0n], 'additionalProperties: false is written, as a oneof');
    const size = namedValue(props, 1, 'size');
    const minimum = Buffer.alloc(9);
    minimum[0] = (9 << 3) | 1; // field 9, fixed64
    minimum.writeDoubleLE(1.5, 1);
    assert.ok(Buffer.from(encodeOpenApiV2(doc)).includes(minimum), 'minimum is a double, field 9');
    assert.equal(str(size, 2), 'int32');
    assert.equal(size.get(11)![0], 7n, 'maxLength is an int64 varint');
    assert.equal(str(msg(size, 5), 2), '3\n', 'default is an Any holding YAML');
    assert.deepEqual((size.get(20) ?? []).map((b) => str(decode(b as Uint8Array), 2)), ['3\n', '"x"\n']);
    namedValue(props, 1, 'x-property-named-like-an-extension');
    const ext = decode(cm.get(31)![0] as Uint8Array);
    assert.equal(str(ext, 1), 'x-kubernetes-group-version-kind');
    assert.deepEqual(JSON.parse(str(msg(ext, 2), 2)!), [{ group: '', kind: 'ConfigMap', version: 'v1' }]);
  });

  it('writes paths with their parameters split by `in`, $refs and responses', () => {
    const item = namedValue(msg(d, 8), 2, '/api/v1/namespaces/{namespace}/configmaps');
    const [pathParam, queryParam] = (item.get(9) ?? []).map((b) => msg(decode(b as Uint8Array), 1));
    assert.equal(str(msg(msg(pathParam!, 2), 4), 4), 'namespace', 'a path parameter is NonBodyParameter.path_parameter_sub_schema');
    assert.equal(str(msg(msg(queryParam!, 2), 3), 4), 'pretty', 'a query parameter is NonBodyParameter.query_parameter_sub_schema');
    const patch = msg(item, 8);
    assert.equal(str(patch, 5), 'patchCoreV1NamespacedConfigMap');
    const body = msg(msg(decode(patch.get(8)![0] as Uint8Array), 1), 1);
    assert.equal(str(msg(body, 5), 1), '#/definitions/io.k8s.api.core.v1.ConfigMap', 'the body schema is a $ref (_ref, field 1)');
    const ok = msg(namedValue(msg(patch, 9), 1, '200'), 1);
    assert.equal(str(ok, 1), 'OK');
    assert.equal(str(msg(msg(ok, 2), 1), 1), '#/definitions/io.k8s.api.core.v1.ConfigMap');
    assert.equal(str(decode(patch.get(13)![0] as Uint8Array), 1), 'x-kubernetes-group-version-kind');
  });

  it('serves JSON or protobuf as kube-openapi negotiates, answering the @ form with the . form', () => {
    const pb = 'application/com.github.proto-openapi.spec.v2.v1.0+protobuf';
    assert.equal(negotiateOpenApiV2('application/com.github.proto-openapi.spec.v2@v1.0+protobuf'), pb);
    assert.equal(negotiateOpenApiV2(pb), pb);
    assert.equal(negotiateOpenApiV2(undefined), 'application/json');
    assert.equal(negotiateOpenApiV2('*/*'), 'application/json');
    assert.equal(negotiateOpenApiV2(`application/json;q=0.5, ${pb}`), pb);
    assert.equal(negotiateOpenApiV2('text/html'), undefined);
  });
});
