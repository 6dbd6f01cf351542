/**
 * Kubernetes' wrapper messages, which print in JSON as something other than an object:
 * IntOrString (a number or a string), Quantity (its string form), Time (RFC 3339 seconds in
 * UTC, or `null` for the zero time, which travels as an empty message) and RawExtension (the
 * embedded JSON document) and ExtraValue (`repeated string items = 1`, a plain JSON list).
 */
import { ProtobufDecodeError } from './errors.ts';
import type { WrapperType } from './schema.ts';
import { WireReader, WireType } from './wire.ts';

const utf8 = new TextDecoder();

export function decodeWrapper(type: WrapperType, r: WireReader): unknown {
  switch (type) {
    case 'IntOrString':
      return intOrString(r);
    case 'Quantity':
      return quantity(r);
    case 'Time':
      return time(r);
    case 'RawExtension':
      return rawExtension(r);
    case 'ExtraValue':
      return extraValue(r);
  }
}

/** The value JSON shows for a wrapper that is absent inside a map entry. */
export function wrapperDefault(type: WrapperType): unknown {
  return type === 'IntOrString' ? 0 : type === 'Quantity' ? '0' : type === 'ExtraValue' ? [] : null;
}

/** Reads each field with `read`, skipping the ones it does not claim. */
function eachField(r: WireReader, read: (field: number, wire: WireType) => boolean): void {
  while (!r.done) {
    const { field, wire } = r.tag();
    if (!read(field, wire)) r.skip(wire);
  }
}

function expect(wire: WireType, want: WireType, what: string): void {
  if (wire !== want) throw new ProtobufDecodeError(`${what} has wire type ${wire}, expected ${want}`);
}

function intOrString(r: WireReader): number | string {
  let type = 0n;
  let intVal = 0;
  let strVal = '';
  eachField(r, (field, wire) => {
    if (field === 1) {
      expect(wire, WireType.varint, 'IntOrString.type (field 1)');
      type = BigInt.asIntN(64, r.varint());
    } else if (field === 2) {
      expect(wire, WireType.varint, 'IntOrString.intVal (field 2)');
      intVal = Number(BigInt.asIntN(32, r.varint()));
    } else if (field === 3) {
      expect(wire, WireType.lengthDelimited, 'IntOrString.strVal (field 3)');
      strVal = utf8.decode(r.bytes());
    } else return false;
    return true;
  });
  if (type === 0n) return intVal;
  if (type === 1n) return strVal;
  throw new ProtobufDecodeError(`IntOrString has impossible type ${type}`);
}

function quantity(r: WireReader): string {
  let s = '0';
  eachField(r, (field, wire) => {
    if (field !== 1) return false;
    expect(wire, WireType.lengthDelimited, 'Quantity.string (field 1)');
    s = utf8.decode(r.bytes());
    return true;
  });
  return s;
}

// Go's time.Time JSON covers years 0000-9999; seconds outside that range are refused as Go refuses them.
const minSeconds = -62167219200; // 0000-01-01T00:00:00Z
const maxSeconds = 253402300799; // 9999-12-31T23:59:59Z

function time(r: WireReader): string | null {
  if (r.done) return null;
  let seconds = 0n;
  eachField(r, (field, wire) => {
    if (field === 1) {
      expect(wire, WireType.varint, 'Time.seconds (field 1)');
      seconds = BigInt.asIntN(64, r.varint());
      return true;
    }
    // nanos (field 2) is dropped, as Kubernetes drops it: JSON times have whole seconds.
    return false;
  });
  const s = Number(seconds);
  if (s < minSeconds || s > maxSeconds) throw new ProtobufDecodeError(`Time.seconds ${seconds} is outside years 0000-9999`);
  return formatRfc3339(s);
}

function formatRfc3339(seconds: number): string {
  const d = new Date(seconds * 1000);
  const year = d.getUTCFullYear();
  const p2 = (n: number) => String(n).padStart(2, '0');
  return `${String(year).padStart(4, '0')}-${p2(d.getUTCMonth() + 1)}-${p2(d.getUTCDate())}T${p2(d.getUTCHours())}:${p2(d.getUTCMinutes())}:${p2(d.getUTCSeconds())}Z`;
}

function extraValue(r: WireReader): string[] {
  const items: string[] = [];
  eachField(r, (field, wire) => {
    if (field !== 1) return false;
    expect(wire, WireType.lengthDelimited, 'ExtraValue.items (field 1)');
    items.push(utf8.decode(r.bytes()));
    return true;
  });
  return items;
}

const k8sMagic = [0x6b, 0x38, 0x73, 0x00];

function rawExtension(r: WireReader): unknown {
  let raw: Uint8Array | undefined;
  eachField(r, (field, wire) => {
    if (field !== 1) return false;
    expect(wire, WireType.lengthDelimited, 'RawExtension.raw (field 1)');
    raw = r.bytes();
    return true;
  });
  if (raw === undefined || raw.length === 0) return null;
  if (k8sMagic.every((b, i) => raw![i] === b)) throw new ProtobufDecodeError('RawExtension holds a nested protobuf object; only embedded JSON is supported');
  try {
    return JSON.parse(utf8.decode(raw));
  } catch (e) {
    throw new ProtobufDecodeError(`RawExtension.raw is not JSON: ${(e as Error).message}`);
  }
}
