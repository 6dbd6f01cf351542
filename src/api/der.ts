/**
 * A minimal DER reader: enough ASN.1 to walk a PKCS#10 certificate request synchronously
 * (the API server validates one inside a synchronous strategy, where loading @peculiar/x509,
 * which is asynchronous and costs a few MiB, is not an option). It reads definite-length
 * TLVs only, as DER allows nothing else, and throws `DerError` on anything malformed.
 */

export class DerError extends Error {}

export interface Tlv {
  /** The identifier octet (class, constructed bit and tag number; tags above 30 are refused). */
  readonly tag: number;
  /** The whole element, header included (what a signature covers). */
  readonly raw: Buffer;
  /** The contents octets. */
  readonly value: Buffer;
}

export const derTags = {
  boolean: 0x01,
  integer: 0x02,
  bitString: 0x03,
  octetString: 0x04,
  null: 0x05,
  oid: 0x06,
  utf8String: 0x0c,
  printableString: 0x13,
  t61String: 0x14,
  ia5String: 0x16,
  bmpString: 0x1e,
  universalString: 0x1c,
  sequence: 0x30,
  set: 0x31,
} as const;

/** Reads the TLV at `offset`; its end is `offset + raw.length`. */
export function readTlv(buf: Buffer, offset = 0): Tlv {
  if (offset + 2 > buf.length) throw new DerError('truncated element');
  const tag = buf[offset]!;
  if ((tag & 0x1f) === 0x1f) throw new DerError('high tag numbers are not supported');
  let length = buf[offset + 1]!;
  let header = 2;
  if (length & 0x80) {
    const octets = length & 0x7f;
    if (octets === 0 || octets > 4) throw new DerError('indefinite or oversized length');
    if (offset + 2 + octets > buf.length) throw new DerError('truncated length');
    length = 0;
    for (let i = 0; i < octets; i++) length = length * 256 + buf[offset + 2 + i]!;
    header += octets;
  }
  const end = offset + header + length;
  if (end > buf.length) throw new DerError('element longer than its container');
  return { tag, raw: buf.subarray(offset, end), value: buf.subarray(offset + header, end) };
}

/** The elements inside a constructed element's contents, in order. */
export function children(value: Buffer): Tlv[] {
  const out: Tlv[] = [];
  for (let offset = 0; offset < value.length; ) {
    const t = readTlv(value, offset);
    out.push(t);
    offset += t.raw.length;
  }
  return out;
}

/** `buf` must hold exactly one element of tag `tag`. */
export function expectOne(buf: Buffer, tag: number, what: string): Tlv {
  const t = readTlv(buf);
  if (t.tag !== tag) throw new DerError(`${what}: unexpected tag 0x${t.tag.toString(16)}`);
  if (t.raw.length !== buf.length) throw new DerError(`${what}: trailing data`);
  return t;
}

export function expectTag(t: Tlv | undefined, tag: number, what: string): Tlv {
  if (!t) throw new DerError(`${what}: missing`);
  if (t.tag !== tag) throw new DerError(`${what}: unexpected tag 0x${t.tag.toString(16)}`);
  return t;
}

/** An OBJECT IDENTIFIER's contents in dotted form. */
export function oidOf(value: Buffer): string {
  if (value.length === 0) throw new DerError('empty object identifier');
  const arcs: number[] = [];
  let n = 0;
  for (const byte of value) {
    n = n * 128 + (byte & 0x7f);
    if (!(byte & 0x80)) {
      arcs.push(n);
      n = 0;
    }
  }
  const first = arcs.shift()!;
  const head = first < 40 ? [0, first] : first < 80 ? [1, first - 40] : [2, first - 80];
  return [...head, ...arcs].join('.');
}

/** A string type's text (UTF8, Printable, IA5, T61 as Latin-1, BMP as UTF-16BE). */
export function stringOf(t: Tlv): string {
  switch (t.tag) {
    case derTags.utf8String:
    case derTags.printableString:
    case derTags.ia5String:
      return t.value.toString('utf8');
    case derTags.t61String:
      return t.value.toString('latin1');
    case derTags.bmpString:
      return Buffer.from(t.value).swap16().toString('utf16le');
    default:
      throw new DerError(`unsupported string type 0x${t.tag.toString(16)}`);
  }
}

/** A BIT STRING's bits as bytes (only whole-octet strings, as keys and signatures are). */
export function bitStringBytes(t: Tlv): Buffer {
  if (t.tag !== derTags.bitString || t.value.length < 1) throw new DerError('not a bit string');
  if (t.value[0] !== 0) throw new DerError('bit string with unused bits');
  return t.value.subarray(1);
}
