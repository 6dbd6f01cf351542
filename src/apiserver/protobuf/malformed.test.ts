/**
 * Hostile and broken bodies: every truncation and every single-byte corruption of real
 * kubectl bodies, seeded random garbage, deep nesting and huge length prefixes. The decoder
 * must either decode or throw `ProtobufDecodeError`, never anything else. How fast it does
 * so is not asserted here (a loaded machine would fail a time bound): a decoder that loops or
 * goes quadratic shows as this file's tests running into their deadline (test/all.test.ts).
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { ProtobufDecodeError } from './errors.ts';
import { magic } from './envelope.ts';
import { decodeKubernetesProtobuf, supportedKinds } from './index.ts';
import { envelope, pb } from './wire-writer.ts';

const dir = new URL('./testdata/', import.meta.url);
const fixtures = readdirSync(dir)
  .filter((f) => f.endsWith('.pb.b64'))
  .map((f) => ({ name: f, body: Buffer.from(readFileSync(new URL(f, dir), 'utf8'), 'base64') }));

/** 'ok' or 'error'; anything but a ProtobufDecodeError fails the test. */
function attempt(body: Buffer, what: string): 'ok' | 'error' {
  try {
    decodeKubernetesProtobuf(body);
    return 'ok';
  } catch (e) {
    assert.ok(e instanceof ProtobufDecodeError, `${what}: threw ${(e as Error)?.stack ?? String(e)}`);
    return 'error';
  }
}

/** A small seeded PRNG (mulberry32), so failures reproduce. */
function random(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe('malformed protobuf bodies', () => {
  it('every truncation of every kubectl body decodes or throws ProtobufDecodeError; cuts inside the object throw', () => {
    for (const { name, body } of fixtures) {
      const rawStart = body.indexOf(Buffer.from([0x12]), magic.length + 2 + body[magic.length + 1]!);
      for (let n = 0; n < body.length; n++) {
        const result = attempt(body.subarray(0, n), `${name} cut at ${n}`);
        if (n > rawStart && n < body.length - 4) assert.equal(result, 'error', `${name} cut at ${n} should not decode`);
      }
    }
  });

  it('every single-byte corruption of every kubectl body decodes or throws ProtobufDecodeError', () => {
    for (const { name, body } of fixtures) {
      for (let i = 0; i < body.length; i++) {
        for (const v of [0x00, 0x7f, 0x80, 0xff, body[i]! ^ 0x07]) {
          const copy = Buffer.from(body);
          copy[i] = v;
          attempt(copy, `${name} byte ${i} = ${v}`);
        }
      }
    }
  });

  it('seeded random garbage, bare and inside a valid envelope of each supported kind', () => {
    const next = random(20261123);
    const garbage = (max: number) => Buffer.from(Array.from({ length: Math.floor(next() * max) }, () => Math.floor(next() * 256)));
    for (let i = 0; i < 3000; i++) {
      attempt(garbage(64), `bare garbage #${i}`);
      attempt(Buffer.concat([magic, garbage(256)]), `garbage after the prefix #${i}`);
      const kind = supportedKinds[i % supportedKinds.length]!;
      const slash = kind.lastIndexOf('/');
      attempt(envelope(kind.slice(0, slash), kind.slice(slash + 1), garbage(512)), `garbage ${kind} #${i}`);
    }
  });

  it('3 MiB of garbage decodes or fails cleanly', () => {
    const next = random(7);
    const big = Buffer.alloc(3 * 1024 * 1024);
    for (let i = 0; i < big.length; i++) big[i] = Math.floor(next() * 256);
    attempt(Buffer.concat([magic, big]), 'big garbage');
    attempt(envelope('apps/v1', 'Deployment', big), 'big garbage deployment');
  });

  it('deep nesting: 100 000 levels inside an unknown field are skipped without recursion; inside known fields they stop at the schema', () => {
    const deep = pb.nested(1, 100_000, pb.string(1, 'leaf'));
    // Field 99 of ConfigMap is unknown: skipped in one step.
    assert.deepEqual(decodeKubernetesProtobuf(envelope('v1', 'ConfigMap', pb.bytes(99, deep))).object, { apiVersion: 'v1', kind: 'ConfigMap' });
    // Field 1 of Pod is metadata, whose field 1 is name: the nesting below it is just a string.
    assert.equal(attempt(envelope('v1', 'Pod', deep), 'deep Pod'), 'ok');
    // Deployment spec(2).template(3).spec(2)... recursion is bounded by the schema itself.
    const nested = pb.nested(2, 10_000, new Uint8Array(0));
    attempt(envelope('apps/v1', 'Deployment', nested), 'deep Deployment');
  });

  it('length prefixes beyond the body fail at once', () => {
    const huge = Buffer.from(pb.cat(magic, pb.rawVarint(0x12), pb.rawVarint(2n ** 40n)));
    assert.throws(() => decodeKubernetesProtobuf(huge), /runtime.Unknown: length 1099511627776 runs past the end/);
    assert.throws(() => decodeKubernetesProtobuf(envelope('v1', 'Secret', pb.rawVarint(0x0a), pb.rawVarint(2n ** 31n))), /decoding v1\/Secret: metadata\(1\): length 2147483648 runs past the end/);
  });
});
