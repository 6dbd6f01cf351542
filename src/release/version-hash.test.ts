import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseManifests } from './manifest.ts';
import { fnv1_64, versionHash } from './version-hash.ts';

const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');
const bytes = (s: string) => [Buffer.from(s)];

describe('fnv1_64', () => {
  it('matches the FNV-1 64-bit test vectors (Go hash/fnv New64)', () => {
    assert.equal(hex(fnv1_64(bytes(''))), 'cbf29ce484222325');
    assert.equal(hex(fnv1_64(bytes('a'))), 'af63bd4c8601b7be');
    assert.equal(hex(fnv1_64(bytes('ab'))), '08326707b4eb37b8');
    assert.equal(hex(fnv1_64(bytes('abc'))), 'd8dcca186bafadcb');
  });

  it('hashes chunks as one stream', () => {
    assert.equal(hex(fnv1_64([Buffer.from('a'), Buffer.from('bc')])), 'd8dcca186bafadcb');
  });

  it('agrees with a BigInt reference on a long input', () => {
    const input = Buffer.from(Array.from({ length: 5000 }, (_, i) => (i * 7919) & 0xff));
    let h = 0xcbf29ce484222325n;
    for (const b of input) h = ((h * 0x100000001b3n) & 0xffffffffffffffffn) ^ BigInt(b);
    assert.equal(hex(fnv1_64([input])), h.toString(16).padStart(16, '0'));
  });
});

describe('versionHash', () => {
  it('is the sum of every manifest raw text in order, in padded URL-safe base64', () => {
    assert.equal(versionHash([{ raw: 'a' }]), Buffer.from('af63bd4c8601b7be', 'hex').toString('base64'));
    assert.equal(versionHash([{ raw: 'a' }, { raw: 'bc' }]), versionHash([{ raw: 'abc' }]));
    assert.notEqual(versionHash([{ raw: 'bc' }, { raw: 'a' }]), versionHash([{ raw: 'a' }, { raw: 'bc' }]));
    assert.match(versionHash([]), /^[A-Za-z0-9_-]{11}=$/);
  });

  it('does not change with YAML formatting, only with content', () => {
    const a = parseManifests('apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\ndata: {k: v}\n', 'a.yaml').manifests;
    const b = parseManifests('kind: ConfigMap\napiVersion: v1\n# comment\nmetadata: {name: x}\ndata:\n  k: "v"\n', 'a.yaml').manifests;
    const c = parseManifests('kind: ConfigMap\napiVersion: v1\nmetadata: {name: x}\ndata:\n  k: w\n', 'a.yaml').manifests;
    assert.equal(versionHash(a), versionHash(b));
    assert.notEqual(versionHash(a), versionHash(c));
  });
});
