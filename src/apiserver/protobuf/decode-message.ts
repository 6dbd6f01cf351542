/**
 * Decodes one protobuf message into the JSON object Kubernetes' JSON encoding would give,
 * driven by a compiled message table (see schema.ts). Unknown fields are skipped; a known
 * field with the wrong wire type, a truncated value or nesting past `maxDepth` raises a
 * `ProtobufDecodeError` that names the field path, e.g. `spec(2).ports(1)[0].port(3)`; an
 * inlined message shows as its message name, as in `volumes(1)[0].VolumeSource(2).nfs(7)`.
 */
import { ProtobufDecodeError } from './errors.ts';
import type { Field, Message, ScalarType, ValueType } from './schema.ts';
import { WireReader, WireType } from './wire.ts';
import { decodeWrapper, wrapperDefault } from './wrappers.ts';

export type JsonObject = Record<string, unknown>;

/** Deeper than any Kubernetes object nests; a guard against hostile input and recursive schemas. */
export const maxDepth = 32;

const utf8 = new TextDecoder();

/** Decodes the fields in `r` into `target` (so a repeated occurrence of a message merges, as in protobuf). */
export function decodeMessage(r: WireReader, message: Message, target: JsonObject = {}, path = '', depth = 0): JsonObject {
  if (depth > maxDepth) throw located(new ProtobufDecodeError(`messages nest deeper than ${maxDepth} levels`), path || message.name);
  while (!r.done) {
    let where = path;
    try {
      const { field, wire } = r.tag();
      const f = message.fields.get(field);
      where = join(path, f ? `${f.json ?? inlinedName(f)}(${field})` : `(unknown field ${field})`);
      if (f) readField(r, f, wire, target, where, depth);
      else r.skip(wire);
    } catch (e) {
      if (e instanceof ProtobufDecodeError) throw located(e, where || message.name);
      throw e;
    }
  }
  return target;
}

function readField(r: WireReader, f: Field, wire: WireType, target: JsonObject, path: string, depth: number): void {
  if (f.value.kind === 'unsupported') throw new ProtobufDecodeError('this field is not supported in protobuf bodies; send JSON');
  if (f.label === 'map') {
    expectWire(wire, WireType.lengthDelimited);
    const map = ownObject(target, f.json!);
    const [key, value] = readMapEntry(r.lengthDelimited(), f.value, path, depth + 1);
    Object.defineProperty(map, key, { value, enumerable: true, writable: true, configurable: true });
    return;
  }
  if (f.label === 'repeated') {
    const list = Array.isArray(target[f.json!]) ? (target[f.json!] as unknown[]) : (target[f.json!] = []);
    if (f.value.kind === 'scalar' && isVarintType(f.value.type) && wire === WireType.lengthDelimited) {
      // Packed encoding: Kubernetes never sends it, but any protobuf writer may.
      const packed = r.lengthDelimited();
      while (!packed.done) list.push(readScalar(packed, f.value.type, WireType.varint));
      return;
    }
    list.push(readValue(r, f.value, wire, undefined, `${path}[${list.length}]`, depth));
    return;
  }
  if (f.json === null) {
    // An inlined (embedded) message: its fields land in the parent object.
    expectWire(wire, WireType.lengthDelimited);
    if (f.value.kind !== 'message') throw new ProtobufDecodeError('only messages can be inlined');
    decodeMessage(r.lengthDelimited(), f.value.message, target, path, depth + 1);
    return;
  }
  const value = readValue(r, f.value, wire, target[f.json], path, depth);
  if (!f.keepZero && f.value.kind === 'scalar' && isZero(value)) delete target[f.json];
  else target[f.json] = value;
}

function readValue(r: WireReader, type: ValueType, wire: WireType, existing: unknown, path: string, depth: number): unknown {
  switch (type.kind) {
    case 'scalar':
      return readScalar(r, type.type, wire);
    case 'wrapper':
      expectWire(wire, WireType.lengthDelimited);
      return decodeWrapper(type.type, r.lengthDelimited());
    case 'message': {
      expectWire(wire, WireType.lengthDelimited);
      const into = isObject(existing) ? existing : {};
      return decodeMessage(r.lengthDelimited(), type.message, into, path, depth + 1);
    }
    case 'unsupported':
      throw new ProtobufDecodeError('this field is not supported in protobuf bodies; send JSON');
  }
}

function readMapEntry(r: WireReader, valueType: ValueType, path: string, depth: number): [string, unknown] {
  let key = '';
  let value: unknown;
  while (!r.done) {
    const { field, wire } = r.tag();
    if (field === 1) {
      expectWire(wire, WireType.lengthDelimited);
      key = utf8.decode(r.bytes());
    } else if (field === 2) {
      value = readValue(r, valueType, wire, value, `${path}[${JSON.stringify(key)}]`, depth);
    } else r.skip(wire);
  }
  return [key, value === undefined ? defaultValue(valueType) : value];
}

function readScalar(r: WireReader, type: ScalarType, wire: WireType): unknown {
  switch (type) {
    case 'string':
      expectWire(wire, WireType.lengthDelimited);
      return utf8.decode(r.bytes());
    case 'bytes':
      expectWire(wire, WireType.lengthDelimited);
      return Buffer.from(r.bytes()).toString('base64');
    case 'bool':
      expectWire(wire, WireType.varint);
      return r.varint() !== 0n;
    case 'int32':
      expectWire(wire, WireType.varint);
      return Number(BigInt.asIntN(32, r.varint()));
    case 'int64': {
      expectWire(wire, WireType.varint);
      const v = BigInt.asIntN(64, r.varint());
      if (v > BigInt(Number.MAX_SAFE_INTEGER) || v < BigInt(Number.MIN_SAFE_INTEGER)) throw new ProtobufDecodeError(`int64 ${v} does not fit a JSON number exactly`);
      return Number(v);
    }
  }
}

function defaultValue(type: ValueType): unknown {
  if (type.kind === 'message' || type.kind === 'unsupported') return {};
  if (type.kind === 'wrapper') return wrapperDefault(type.type);
  return type.type === 'bool' ? false : type.type === 'int32' || type.type === 'int64' ? 0 : '';
}

function isVarintType(type: ScalarType): boolean {
  return type === 'bool' || type === 'int32' || type === 'int64';
}

function isZero(v: unknown): boolean {
  return v === '' || v === 0 || v === false;
}

function isObject(v: unknown): v is JsonObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function ownObject(target: JsonObject, key: string): JsonObject {
  const v = target[key];
  if (isObject(v)) return v;
  const fresh: JsonObject = {};
  target[key] = fresh;
  return fresh;
}

const wireNames = ['varint', 'fixed64', 'length-delimited', 'start-group', 'end-group', 'fixed32'];

function expectWire(got: WireType, want: WireType): void {
  if (got !== want) throw new ProtobufDecodeError(`wire type ${got} (${wireNames[got]}) where ${want} (${wireNames[want]}) belongs`);
}

function inlinedName(f: Field): string {
  return f.value.kind === 'message' ? f.value.message.name : '(inline)';
}

function join(path: string, segment: string): string {
  return path ? `${path}.${segment}` : segment;
}

/** Marks an error with the innermost field path once; outer frames leave it as it is. */
const locatedErrors = new WeakSet<Error>();

function located(e: ProtobufDecodeError, path: string): ProtobufDecodeError {
  if (locatedErrors.has(e)) return e;
  const out = new ProtobufDecodeError(`${path}: ${e.message}`);
  locatedErrors.add(out);
  return out;
}
