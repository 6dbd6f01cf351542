import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { canonicalJson } from '../../runtime/canonical-json.ts';
import { fnv1a32, templateHash, templatesEqualIgnoringHash } from './template-hash.ts';

const template = {
  metadata: { labels: { app: 'web', tier: 'front' } },
  spec: { containers: [{ name: 'c', image: 'example/app:1', ports: [{ containerPort: 80 }] }], restartPolicy: 'Always' },
};

describe('templateHash', () => {
  it('is FNV-1a over the canonical form (a fixed value, so every process and restart agrees)', () => {
    // FNV-1a test vectors.
    assert.equal(fnv1a32(new TextEncoder().encode('')), 0x811c9dc5);
    assert.equal(fnv1a32(new TextEncoder().encode('a')), 0xe40c292c);
    assert.equal(fnv1a32(new TextEncoder().encode('foobar')), 0xbf9cf968);
    assert.equal(templateHash(template), templateHash(structuredClone(template)));
    assert.equal(templateHash(template), '785695bb96');
  });

  it('ignores key order and fields the API treats as absent', () => {
    const reordered = { spec: { restartPolicy: 'Always', containers: [{ ports: [{ containerPort: 80 }], image: 'example/app:1', name: 'c' }] }, metadata: { labels: { tier: 'front', app: 'web' } } };
    const padded = { ...structuredClone(template), metadata: { ...template.metadata, creationTimestamp: null, annotations: {} }, spec: { ...template.spec, volumes: [] } };
    assert.equal(templateHash(reordered), templateHash(template));
    assert.equal(templateHash(padded), templateHash(template));
    assert.equal(canonicalJson({ b: 1, a: [null, {}], c: { d: [] } }), '{"a":[null,null],"b":1}');
  });

  it('changes with the template and with the collision count', () => {
    const other = structuredClone(template);
    other.spec.containers[0]!.image = 'example/app:2';
    const hashes = new Set([templateHash(template), templateHash(other), templateHash(template, 0), templateHash(template, 1)]);
    assert.equal(hashes.size, 4);
  });

  it('uses only the vowel-free alphabet', () => {
    for (let i = 0; i < 50; i++) assert.match(templateHash({ i }), /^[bcdfghjklmnpqrstvwxz2456789]+$/);
  });
});

describe('templatesEqualIgnoringHash', () => {
  it('sets the pod-template-hash label aside, and nothing else', () => {
    const withHash = { ...template, metadata: { labels: { ...template.metadata.labels, 'pod-template-hash': 'abc' } } };
    assert.equal(templatesEqualIgnoringHash(withHash, template), true);
    assert.equal(templatesEqualIgnoringHash(withHash, { ...template, metadata: { labels: { app: 'web' } } }), false);
  });
});
