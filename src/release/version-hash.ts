/**
 * ClusterVersion `status.versionHash`: a fingerprint of the manifests a payload applies, so a
 * payload whose content changed under the same version is noticed. Computed as the CVO
 * computes it (cluster-version-operator `pkg/payload/payload.go`, `LoadUpdate`): the raw bytes
 * of every included manifest, in payload order, through one 64-bit FNV-1 hash (Go's
 * `fnv.New64`, not the FNV-1a variant), the 8-byte big-endian sum in padded URL-safe base64.
 */

const offsetBasis = 0xcbf29ce484222325n;

/**
 * 64-bit FNV-1 over the bytes of each chunk in turn. Four 16-bit limbs keep the per-byte
 * multiply in plain numbers: a payload is megabytes, and BigInt per byte is slow.
 */
export function fnv1_64(chunks: Iterable<Uint8Array>): Uint8Array {
  let h0 = Number(offsetBasis & 0xffffn);
  let h1 = Number((offsetBasis >> 16n) & 0xffffn);
  let h2 = Number((offsetBasis >> 32n) & 0xffffn);
  let h3 = Number((offsetBasis >> 48n) & 0xffffn);
  // The FNV prime is 2^40 + 0x1b3: each limb times 0x1b3, plus the limb two places down times 2^8.
  for (const chunk of chunks) {
    for (let i = 0; i < chunk.length; i++) {
      const t0 = h0 * 0x1b3;
      const t1 = h1 * 0x1b3 + (t0 >>> 16);
      const t2 = h2 * 0x1b3 + h0 * 0x100 + Math.floor(t1 / 0x10000);
      const t3 = h3 * 0x1b3 + h1 * 0x100 + Math.floor(t2 / 0x10000);
      h0 = (t0 & 0xffff) ^ chunk[i]!;
      h1 = t1 & 0xffff;
      h2 = t2 & 0xffff;
      h3 = t3 & 0xffff;
    }
  }
  const out = new Uint8Array(8);
  const view = new DataView(out.buffer);
  [h3, h2, h1, h0].forEach((limb, i) => view.setUint16(i * 2, limb, false));
  return out;
}

/** Go's `base64.URLEncoding`: the URL-safe alphabet, with padding. */
function base64Url(bytes: Uint8Array): string {
  return Buffer.from(bytes).toString('base64').replace(/\+/g, '-').replace(/\//g, '_');
}

export function versionHash(manifests: Iterable<{ readonly raw: string }>): string {
  const chunks = function* () {
    for (const m of manifests) yield Buffer.from(m.raw, 'utf8');
  };
  return base64Url(fnv1_64(chunks()));
}
