import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ProtobufDecodeError } from './errors.ts';
import { WireReader, WireType } from './wire.ts';
import { pb } from './wire-writer.ts';

const reader = (...bytes: number[]) => new WireReader(Uint8Array.from(bytes));

describe('WireReader', () => {
  it('reads varints of every length up to 64 bits', () => {
    for (const v of [0n, 1n, 127n, 128n, 300n, 2n ** 31n, 2n ** 49n - 1n, 2n ** 49n, 2n ** 56n + 5n, 2n ** 64n - 1n]) {
      const r = new WireReader(pb.rawVarint(v));
      assert.equal(r.varint(), v);
      assert.ok(r.done);
    }
    assert.equal(reader(0xac, 0x02).varint(), 300n);
  });

  it('refuses varints that overflow 64 bits or run past the end', () => {
    assert.throws(() => reader(0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02).varint(), ProtobufDecodeError);
    assert.throws(() => reader(...Array(11).fill(0x80), 0).varint(), ProtobufDecodeError);
    assert.throws(() => reader(0x80, 0x80).varint(), /truncated varint/);
    assert.throws(() => reader().varint(), ProtobufDecodeError);
  });

  it('reads tags and refuses field 0, groups and wire types 6 and 7', () => {
    assert.deepEqual(reader(0x0a).tag(), { field: 1, wire: WireType.lengthDelimited });
    assert.deepEqual(new WireReader(pb.varint(536870911, 1)).tag(), { field: 536870911, wire: WireType.varint });
    assert.throws(() => reader(0x02).tag(), /invalid field number 0/);
    assert.throws(() => reader(0x0b).tag(), /groups/);
    assert.throws(() => reader(0x0c).tag(), /groups/);
    assert.throws(() => reader(0x0e).tag(), /invalid wire type 6/);
    assert.throws(() => reader(0x0f).tag(), /invalid wire type 7/);
    assert.throws(() => new WireReader(pb.rawVarint(2n ** 32n)).tag(), /invalid field number/);
  });

  it('bounds length-delimited values by the enclosing message', () => {
    const outer = reader(0x03, 0x61, 0x62, 0x63, 0x64);
    const inner = outer.lengthDelimited();
    assert.equal(inner.remaining, 3);
    assert.equal(outer.remaining, 1);
    assert.deepEqual([...reader(0x02, 0x61, 0x62).bytes()], [0x61, 0x62]);
    assert.throws(() => reader(0x05, 0x61).bytes(), /runs past the end/);
    // A huge declared length fails at once, without allocating.
    assert.throws(() => new WireReader(pb.rawVarint(2n ** 62n)).bytes(), /runs past the end/);
    // A nested reader cannot read beyond its own end, even if the buffer goes on.
    assert.throws(() => reader(0x01, 0x80, 0x01).lengthDelimited().varint(), /truncated varint/);
  });

  it('skips every wire type it can, and refuses short fixed values', () => {
    const r = new WireReader(pb.cat(pb.fixed32(1), pb.fixed64(2), pb.varint(3, -1), pb.string(4, 'x')));
    for (let i = 0; i < 4; i++) r.skip(r.tag().wire);
    assert.ok(r.done);
    assert.throws(() => reader(1, 2, 3).skip(WireType.fixed32), /truncated/);
    assert.throws(() => reader(1, 2, 3, 4, 5, 6, 7).skip(WireType.fixed64), /truncated/);
    assert.throws(() => reader(1).skip(WireType.startGroup), ProtobufDecodeError);
  });
});
