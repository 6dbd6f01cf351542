/**
 * A minimal protobuf writer for the tests: builds fields and Kubernetes envelopes by hand, so
 * tests can send the decoder messages kubectl never produces (times, owner references, full
 * DeleteOptions) and malformed ones. The server itself never encodes protobuf.
 */
import { magic } from './envelope.ts';

export type Bytes = Uint8Array;

/** A protobuf varint (uint64; negative numbers as their two's complement, as Go encodes int64). */
export function varintBytes(value: number | bigint): number[] {
  let v = BigInt.asUintN(64, BigInt(value));
  const out: number[] = [];
  do {
    const b = Number(v & 0x7fn);
    v >>= 7n;
    out.push(v > 0n ? b | 0x80 : b);
  } while (v > 0n);
  return out;
}

const cat = (...parts: Bytes[]): Bytes => new Uint8Array(Buffer.concat(parts));
const key = (field: number, wire: number): number[] => varintBytes(field * 8 + wire);

export const pb = {
  /** A varint field; negative numbers take 10 bytes, as int32 and int64 do on the wire. */
  varint: (field: number, value: number | bigint | boolean): Bytes => Uint8Array.from([...key(field, 0), ...varintBytes(typeof value === 'boolean' ? Number(value) : value)]),
  bytes: (field: number, value: Bytes): Bytes => cat(Uint8Array.from([...key(field, 2), ...varintBytes(value.length)]), value),
  string: (field: number, value: string): Bytes => pb.bytes(field, new TextEncoder().encode(value)),
  message: (field: number, ...parts: Bytes[]): Bytes => pb.bytes(field, cat(...parts)),
  fixed32: (field: number): Bytes => Uint8Array.from([...key(field, 5), 1, 2, 3, 4]),
  fixed64: (field: number): Bytes => Uint8Array.from([...key(field, 1), 1, 2, 3, 4, 5, 6, 7, 8]),
  /** A map<string, …> entry: key 1, value 2. */
  entry: (field: number, k: string, value: Bytes): Bytes => pb.message(field, pb.string(1, k), value),
  rawVarint: (value: number | bigint): Bytes => Uint8Array.from(varintBytes(value)),
  cat,
  /** `depth` length-delimited fields numbered `field`, each inside the previous, around `leaf`; built in linear time. */
  nested: (field: number, depth: number, leaf: Bytes): Bytes => {
    const sizes = [leaf.length];
    for (let i = 0; i < depth; i++) sizes.push(key(field, 2).length + varintBytes(sizes[i]!).length + sizes[i]!);
    const heads: Bytes[] = [];
    for (let i = depth; i > 0; i--) heads.push(Uint8Array.from([...key(field, 2), ...varintBytes(sizes[i - 1]!)]));
    return cat(...heads, leaf);
  },
};

/** `k8s\0` + runtime.Unknown{typeMeta{apiVersion, kind}, raw}. */
export function envelope(apiVersion: string, kind: string, ...raw: Bytes[]): Buffer {
  return Buffer.from(cat(magic, pb.message(1, pb.string(1, apiVersion), pb.string(2, kind)), pb.bytes(2, cat(...raw))));
}
