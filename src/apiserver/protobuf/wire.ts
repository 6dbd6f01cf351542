/**
 * A bounds-checked reader of the protobuf wire format: varints (at most 10 bytes),
 * length-delimited runs that must fit inside the enclosing message, and skipping of fixed32,
 * fixed64 and unknown fields. Groups (wire types 3 and 4) and the unused types 6 and 7 are
 * refused. Every read consumes at least one byte, so a loop over `done` always ends. Errors
 * are `ProtobufDecodeError`s without context; the schema decoder adds the field path.
 */
import { ProtobufDecodeError } from './errors.ts';

export const WireType = { varint: 0, fixed64: 1, lengthDelimited: 2, startGroup: 3, endGroup: 4, fixed32: 5 } as const;
export type WireType = (typeof WireType)[keyof typeof WireType];

const maxFieldNumber = 2 ** 29 - 1;

export interface Tag {
  field: number;
  wire: WireType;
}

export class WireReader {
  private pos: number;

  constructor(
    private readonly buf: Uint8Array,
    start = 0,
    private readonly end = buf.length,
  ) {
    this.pos = start;
  }

  get done(): boolean {
    return this.pos >= this.end;
  }

  /** Bytes left in this message. */
  get remaining(): number {
    return this.end - this.pos;
  }

  /** The next field's number and wire type. */
  tag(): Tag {
    const v = this.varint();
    const wire = Number(v & 7n);
    const field = Number(v >> 3n);
    if (field === 0 || field > maxFieldNumber) throw new ProtobufDecodeError(`invalid field number ${field}`);
    if (wire === 6 || wire === 7) throw new ProtobufDecodeError(`field ${field} has invalid wire type ${wire}`);
    if (wire === WireType.startGroup || wire === WireType.endGroup) throw new ProtobufDecodeError(`field ${field} uses protobuf groups, which Kubernetes never sends`);
    return { field, wire: wire as WireType };
  }

  /** An unsigned varint of up to 64 bits. */
  varint(): bigint {
    // Small values (the common case) stay in plain numbers; 7 bytes hold 49 bits exactly.
    let n = 0;
    let mul = 1;
    for (let i = 0; i < 7; i++) {
      const b = this.byte();
      n += (b & 0x7f) * mul;
      if (b < 0x80) return BigInt(n);
      mul *= 128;
    }
    let big = BigInt(n);
    for (let shift = 49n; ; shift += 7n) {
      const b = this.byte();
      if (shift === 63n && b > 1) throw new ProtobufDecodeError('varint overflows 64 bits');
      big |= BigInt(b & 0x7f) << shift;
      if (b < 0x80) return big;
      if (shift === 63n) throw new ProtobufDecodeError('varint longer than 10 bytes');
    }
  }

  /** A length prefix and the bytes it covers, as a reader over just those bytes. */
  lengthDelimited(): WireReader {
    const { start, end } = this.span();
    return new WireReader(this.buf, start, end);
  }

  /** A length prefix and the bytes it covers, as a view (no copy). */
  bytes(): Uint8Array {
    const { start, end } = this.span();
    return this.buf.subarray(start, end);
  }

  /** Steps over a field's value of the given wire type. */
  skip(wire: WireType): void {
    switch (wire) {
      case WireType.varint:
        this.varint();
        return;
      case WireType.fixed64:
        this.advance(8);
        return;
      case WireType.fixed32:
        this.advance(4);
        return;
      case WireType.lengthDelimited:
        this.span();
        return;
      default:
        throw new ProtobufDecodeError(`cannot skip wire type ${wire}`);
    }
  }

  private span(): { start: number; end: number } {
    const len = this.varint();
    if (len > BigInt(this.remaining)) throw new ProtobufDecodeError(`length ${len} runs past the end of the message (${this.remaining} bytes left)`);
    const start = this.pos;
    this.pos += Number(len);
    return { start, end: this.pos };
  }

  private advance(n: number): void {
    if (n > this.remaining) throw new ProtobufDecodeError(`truncated: needs ${n} bytes, ${this.remaining} left`);
    this.pos += n;
  }

  private byte(): number {
    if (this.pos >= this.end) throw new ProtobufDecodeError('truncated varint');
    return this.buf[this.pos++]!;
  }
}
