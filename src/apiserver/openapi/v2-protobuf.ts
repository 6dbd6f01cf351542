/**
 * The OpenAPI v2 document in protobuf, as gnostic's `openapi_v2.Document` message: what
 * kube-apiserver serves for `Accept: application/com.github.proto-openapi.spec.v2@v1.0+protobuf`
 * and the only form kubectl's client-side validation reads (a `kind: List` is validated that way,
 * so `kubectl apply -f list.yaml` needs it). The JSON document is mapped field by field as gnostic
 * parses it: `$ref` → `_ref`, `x-…` keys → vendor extensions, `type` and `items` → their one-or-many
 * wrappers, parameters split by `in`, and values of `default`, `enum`, `example` and extensions
 * carried as YAML text (JSON, which YAML reads). Field numbers are those of gnostic's OpenAPIv2.proto.
 */

import { varintBytes } from '../protobuf/wire-writer.ts';

type Json = unknown;
type JsonObject = Record<string, unknown>;

const isObject = (v: Json): v is JsonObject => typeof v === 'object' && v !== null && !Array.isArray(v);

/** An encoded message: its chunks, in order, and their total length (so nesting copies nothing). */
interface Encoded {
  readonly parts: Buffer[];
  len: number;
}

const varint = (value: number | bigint): Buffer => Buffer.from(varintBytes(value));

class Message implements Encoded {
  readonly parts: Buffer[] = [];
  len = 0;

  private push(b: Buffer): void {
    this.parts.push(b);
    this.len += b.length;
  }

  private key(field: number, wire: number): void {
    this.push(varint(field * 8 + wire));
  }

  string(field: number, v: Json): void {
    if (typeof v !== 'string' || v === '') return;
    this.bytes(field, Buffer.from(v, 'utf8'));
  }

  /** A string that is part of a repeated field or a oneof: written even when empty. */
  stringAlways(field: number, v: string): void {
    this.bytes(field, Buffer.from(v, 'utf8'));
  }

  bytes(field: number, b: Buffer): void {
    this.key(field, 2);
    this.push(varint(b.length));
    this.push(b);
  }

  bool(field: number, v: Json, always = false): void {
    if (typeof v !== 'boolean' || (!v && !always)) return;
    this.key(field, 0);
    this.push(Buffer.from([v ? 1 : 0]));
  }

  int64(field: number, v: Json): void {
    if (typeof v !== 'number' || !Number.isFinite(v) || v === 0) return;
    this.key(field, 0);
    this.push(varint(Math.trunc(v)));
  }

  double(field: number, v: Json): void {
    if (typeof v !== 'number' || v === 0) return;
    this.key(field, 1);
    const b = Buffer.alloc(8);
    b.writeDoubleLE(v);
    this.push(b);
  }

  strings(field: number, v: Json): void {
    if (Array.isArray(v)) for (const s of v) if (typeof s === 'string') this.stringAlways(field, s);
  }

  message(field: number, m: Encoded): void {
    this.key(field, 2);
    this.push(varint(m.len));
    for (const p of m.parts) this.parts.push(p);
    this.len += m.len;
  }

  toBuffer(): Buffer {
    return Buffer.concat(this.parts, this.len);
  }
}

/** gnostic's `Any`: the value as YAML text (field 2). */
function any(value: Json): Message {
  const m = new Message();
  m.stringAlways(2, `${JSON.stringify(value)}\n`);
  return m;
}

function anyField(m: Message, field: number, value: Json): void {
  if (value !== undefined) m.message(field, any(value));
}

function anys(m: Message, field: number, values: Json): void {
  if (Array.isArray(values)) for (const v of values) m.message(field, any(v));
}

/** `x-…` keys as repeated `NamedAny` (name 1, value 2). */
function vendorExtensions(m: Message, field: number, obj: JsonObject): void {
  for (const [k, v] of Object.entries(obj)) {
    if (!k.startsWith('x-')) continue;
    const named = new Message();
    named.stringAlways(1, k);
    named.message(2, any(v));
    m.message(field, named);
  }
}

/**
 * A map of names to messages as repeated `Named…` entries (name 1, value 2) in field `field`.
 * With `extensions`, the map also holds `x-…` extensions (Paths, Responses), which are not entries;
 * elsewhere (properties, definitions) every key is a name.
 */
function named(m: Message, field: number, map: Json, encode: (v: Json) => Message | undefined, extensions = false): void {
  if (!isObject(map)) return;
  for (const [name, v] of Object.entries(map)) {
    if (extensions && name.startsWith('x-')) continue;
    const value = encode(v);
    if (!value) continue;
    const entry = new Message();
    entry.stringAlways(1, name);
    entry.message(2, value);
    m.message(field, entry);
  }
}

/** A message wrapping only a repeated `Named…` field 1: Definitions, Properties, ParameterDefinitions... */
function namedMap(map: Json, encode: (v: Json) => Message | undefined): Message {
  const m = new Message();
  named(m, 1, map, encode);
  return m;
}

function externalDocs(v: Json): Message | undefined {
  if (!isObject(v)) return undefined;
  const m = new Message();
  m.string(1, v.description);
  m.string(2, v.url);
  vendorExtensions(m, 3, v);
  return m;
}

function xml(v: Json): Message | undefined {
  if (!isObject(v)) return undefined;
  const m = new Message();
  m.string(1, v.name);
  m.string(2, v.namespace);
  m.string(3, v.prefix);
  m.bool(4, v.attribute);
  m.bool(5, v.wrapped);
  vendorExtensions(m, 6, v);
  return m;
}

function optional(m: Message, field: number, sub: Message | undefined): void {
  if (sub) m.message(field, sub);
}

function schema(v: Json): Message | undefined {
  if (!isObject(v)) return undefined;
  const m = new Message();
  m.string(1, v.$ref);
  m.string(2, v.format);
  m.string(3, v.title);
  m.string(4, v.description);
  anyField(m, 5, v.default);
  m.double(6, v.multipleOf);
  m.double(7, v.maximum);
  m.bool(8, v.exclusiveMaximum);
  m.double(9, v.minimum);
  m.bool(10, v.exclusiveMinimum);
  m.int64(11, v.maxLength);
  m.int64(12, v.minLength);
  m.string(13, v.pattern);
  m.int64(14, v.maxItems);
  m.int64(15, v.minItems);
  m.bool(16, v.uniqueItems);
  m.int64(17, v.maxProperties);
  m.int64(18, v.minProperties);
  m.strings(19, v.required);
  anys(m, 20, v.enum);
  const ap = v.additionalProperties;
  if (typeof ap === 'boolean' || isObject(ap)) {
    // A oneof: `false` is written too, its presence is the point.
    const item = new Message();
    if (typeof ap === 'boolean') item.bool(2, ap, true);
    else item.message(1, schema(ap)!);
    m.message(21, item);
  }
  if (typeof v.type === 'string' || Array.isArray(v.type)) {
    const type = new Message();
    type.strings(1, typeof v.type === 'string' ? [v.type] : v.type);
    m.message(22, type);
  }
  if (isObject(v.items) || Array.isArray(v.items)) {
    const items = new Message();
    for (const s of Array.isArray(v.items) ? v.items : [v.items]) optional(items, 1, schema(s));
    m.message(23, items);
  }
  if (Array.isArray(v.allOf)) for (const s of v.allOf) optional(m, 24, schema(s));
  if (isObject(v.properties)) m.message(25, namedMap(v.properties, schema));
  m.string(26, v.discriminator);
  m.bool(27, v.readOnly);
  optional(m, 28, xml(v.xml));
  optional(m, 29, externalDocs(v.externalDocs));
  anyField(m, 30, v.example);
  vendorExtensions(m, 31, v);
  return m;
}

/**
 * The validation keywords shared by PrimitivesItems, Header and the non-body parameters, which
 * number them alike from `first` (type or, for parameters, after their own leading fields).
 */
function primitiveKeywords(m: Message, v: JsonObject, first: number): void {
  m.string(first, v.type);
  m.string(first + 1, v.format);
  optional(m, first + 2, primitivesItems(v.items));
  m.string(first + 3, v.collectionFormat);
  anyField(m, first + 4, v.default);
  m.double(first + 5, v.maximum);
  m.bool(first + 6, v.exclusiveMaximum);
  m.double(first + 7, v.minimum);
  m.bool(first + 8, v.exclusiveMinimum);
  m.int64(first + 9, v.maxLength);
  m.int64(first + 10, v.minLength);
  m.string(first + 11, v.pattern);
  m.int64(first + 12, v.maxItems);
  m.int64(first + 13, v.minItems);
  m.bool(first + 14, v.uniqueItems);
  anys(m, first + 15, v.enum);
  m.double(first + 16, v.multipleOf);
}

function primitivesItems(v: Json): Message | undefined {
  if (!isObject(v)) return undefined;
  const m = new Message();
  primitiveKeywords(m, v, 1);
  vendorExtensions(m, 18, v);
  return m;
}

function header(v: Json): Message | undefined {
  if (!isObject(v)) return undefined;
  const m = new Message();
  primitiveKeywords(m, v, 1);
  m.string(18, v.description);
  vendorExtensions(m, 19, v);
  return m;
}

function jsonReference(v: JsonObject): Message {
  const m = new Message();
  m.string(1, v.$ref);
  m.string(2, v.description);
  return m;
}

/** Which NonBodyParameter field a parameter's `in` selects, and whether it has `allowEmptyValue`. */
const nonBody: Readonly<Record<string, { field: number; allowEmpty: boolean }>> = {
  header: { field: 1, allowEmpty: false },
  formData: { field: 2, allowEmpty: true },
  query: { field: 3, allowEmpty: true },
  path: { field: 4, allowEmpty: false },
};

function parameter(v: JsonObject): Message | undefined {
  const m = new Message();
  if (v.in === 'body') {
    const body = new Message();
    body.string(1, v.description);
    body.string(2, v.name);
    body.string(3, v.in);
    body.bool(4, v.required);
    optional(body, 5, schema(v.schema));
    vendorExtensions(body, 6, v);
    m.message(1, body);
    return m;
  }
  const kind = typeof v.in === 'string' ? nonBody[v.in] : undefined;
  if (!kind) return undefined;
  const sub = new Message();
  sub.bool(1, v.required);
  sub.string(2, v.in);
  sub.string(3, v.description);
  sub.string(4, v.name);
  if (kind.allowEmpty) sub.bool(5, v.allowEmptyValue);
  primitiveKeywords(sub, v, kind.allowEmpty ? 6 : 5);
  vendorExtensions(sub, kind.allowEmpty ? 23 : 22, v);
  const wrapper = new Message();
  wrapper.message(kind.field, sub);
  m.message(2, wrapper);
  return m;
}

/** ParametersItem: a parameter (1) or a `$ref` to one (2). */
function parametersItem(v: Json): Message | undefined {
  if (!isObject(v)) return undefined;
  const m = new Message();
  if (typeof v.$ref === 'string') m.message(2, jsonReference(v));
  else {
    const p = parameter(v);
    if (!p) return undefined;
    m.message(1, p);
  }
  return m;
}

function response(v: JsonObject): Message {
  const m = new Message();
  m.string(1, v.description);
  if (isObject(v.schema)) {
    const item = new Message();
    if (v.schema.type === 'file') {
      const file = new Message();
      const s = v.schema;
      file.string(1, s.format);
      file.string(2, s.title);
      file.string(3, s.description);
      anyField(file, 4, s.default);
      file.strings(5, s.required);
      file.string(6, s.type);
      file.bool(7, s.readOnly);
      optional(file, 8, externalDocs(s.externalDocs));
      anyField(file, 9, s.example);
      vendorExtensions(file, 10, s);
      item.message(2, file);
    } else item.message(1, schema(v.schema)!);
    m.message(2, item);
  }
  if (isObject(v.headers)) m.message(3, namedMap(v.headers, header));
  if (isObject(v.examples)) {
    const examples = new Message();
    for (const [k, ex] of Object.entries(v.examples)) {
      const entry = new Message();
      entry.stringAlways(1, k);
      entry.message(2, any(ex));
      examples.message(1, entry);
    }
    m.message(4, examples);
  }
  vendorExtensions(m, 5, v);
  return m;
}

/** ResponseValue: a response (1) or a `$ref` to one (2). */
function responseValue(v: Json): Message | undefined {
  if (!isObject(v)) return undefined;
  const m = new Message();
  m.message(typeof v.$ref === 'string' ? 2 : 1, typeof v.$ref === 'string' ? jsonReference(v) : response(v));
  return m;
}

function securityRequirements(m: Message, field: number, v: Json): void {
  if (!Array.isArray(v)) return;
  for (const req of v) {
    if (!isObject(req)) continue;
    const r = new Message();
    for (const [name, scopes] of Object.entries(req)) {
      const entry = new Message();
      entry.stringAlways(1, name);
      const array = new Message();
      array.strings(1, scopes);
      entry.message(2, array);
      r.message(1, entry);
    }
    m.message(field, r);
  }
}

function operation(v: Json): Message | undefined {
  if (!isObject(v)) return undefined;
  const m = new Message();
  m.strings(1, v.tags);
  m.string(2, v.summary);
  m.string(3, v.description);
  optional(m, 4, externalDocs(v.externalDocs));
  m.string(5, v.operationId);
  m.strings(6, v.produces);
  m.strings(7, v.consumes);
  if (Array.isArray(v.parameters)) for (const p of v.parameters) optional(m, 8, parametersItem(p));
  if (isObject(v.responses)) {
    const responses = new Message();
    named(responses, 1, v.responses, responseValue, true);
    vendorExtensions(responses, 2, v.responses);
    m.message(9, responses);
  }
  m.strings(10, v.schemes);
  m.bool(11, v.deprecated);
  securityRequirements(m, 12, v.security);
  vendorExtensions(m, 13, v);
  return m;
}

const pathItemOperations = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch'] as const;

function pathItem(v: Json): Message | undefined {
  if (!isObject(v)) return undefined;
  const m = new Message();
  m.string(1, v.$ref);
  pathItemOperations.forEach((method, i) => optional(m, i + 2, operation(v[method])));
  if (Array.isArray(v.parameters)) for (const p of v.parameters) optional(m, 9, parametersItem(p));
  vendorExtensions(m, 10, v);
  return m;
}

function info(v: Json): Message | undefined {
  if (!isObject(v)) return undefined;
  const m = new Message();
  m.string(1, v.title);
  m.string(2, v.version);
  m.string(3, v.description);
  m.string(4, v.termsOfService);
  if (isObject(v.contact)) {
    const c = new Message();
    c.string(1, v.contact.name);
    c.string(2, v.contact.url);
    c.string(3, v.contact.email);
    vendorExtensions(c, 4, v.contact);
    m.message(5, c);
  }
  if (isObject(v.license)) {
    const l = new Message();
    l.string(1, v.license.name);
    l.string(2, v.license.url);
    vendorExtensions(l, 3, v.license);
    m.message(6, l);
  }
  vendorExtensions(m, 7, v);
  return m;
}

function tag(v: Json): Message | undefined {
  if (!isObject(v)) return undefined;
  const m = new Message();
  m.string(1, v.name);
  m.string(2, v.description);
  optional(m, 3, externalDocs(v.externalDocs));
  vendorExtensions(m, 4, v);
  return m;
}

/** The whole document as an `openapi_v2.Document` message. */
export function encodeOpenApiV2(doc: JsonObject): Buffer {
  const m = new Message();
  m.string(1, doc.swagger);
  optional(m, 2, info(doc.info));
  m.string(3, doc.host);
  m.string(4, doc.basePath);
  m.strings(5, doc.schemes);
  m.strings(6, doc.consumes);
  m.strings(7, doc.produces);
  if (isObject(doc.paths)) {
    const paths = new Message();
    vendorExtensions(paths, 1, doc.paths);
    named(paths, 2, doc.paths, pathItem, true);
    m.message(8, paths);
  }
  if (isObject(doc.definitions)) m.message(9, namedMap(doc.definitions, schema));
  if (isObject(doc.parameters)) m.message(10, namedMap(doc.parameters, (p) => (isObject(p) ? parameter(p) : undefined)));
  if (isObject(doc.responses)) m.message(11, namedMap(doc.responses, (r) => (isObject(r) ? response(r) : undefined)));
  securityRequirements(m, 12, doc.security);
  if (Array.isArray(doc.tags)) for (const t of doc.tags) optional(m, 14, tag(t));
  optional(m, 15, externalDocs(doc.externalDocs));
  vendorExtensions(m, 16, doc);
  return m.toBuffer();
}
