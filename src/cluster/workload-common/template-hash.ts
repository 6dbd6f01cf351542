/**
 * The pod template hash: the value of a ReplicaSet's `pod-template-hash` label and of a
 * DaemonSet pod's `controller-revision-hash` label. It names a template revision, so it must
 * be the same in every process and after every restart: it is FNV-1a (32 bit) over a
 * canonical JSON form of the template (keys sorted; null, empty objects and empty lists
 * dropped, since the API treats them as absent), with the collision count mixed in when
 * there is one, written with kube's vowel-free alphabet so a hash never spells a word.
 * kube hashes Go's dump of the struct instead, so the values differ from kube's; equality
 * with kube is not a goal, stability is.
 */
import { canonicalJson } from '../../runtime/canonical-json.ts';

const SAFE_ALPHABET = 'bcdfghjklmnpqrstvwxz2456789';

const FNV_OFFSET = 0x811c9dc5;
const FNV_PRIME = 0x01000193;

export function fnv1a32(bytes: Uint8Array, seed = FNV_OFFSET): number {
  let h = seed >>> 0;
  for (const b of bytes) {
    h ^= b;
    h = Math.imul(h, FNV_PRIME) >>> 0;
  }
  return h >>> 0;
}

/** Each decimal digit mapped into the safe alphabet, as kube's rand.SafeEncodeString does. */
function safeEncode(n: number): string {
  let out = '';
  for (const ch of String(n)) out += SAFE_ALPHABET[ch.charCodeAt(0) % SAFE_ALPHABET.length];
  return out;
}

export function templateHash(template: unknown, collisionCount?: number | null): string {
  let h = fnv1a32(new TextEncoder().encode(canonicalJson(template)));
  if (collisionCount !== undefined && collisionCount !== null) {
    const extra = new Uint8Array(4);
    new DataView(extra.buffer).setUint32(0, collisionCount >>> 0, true);
    h = fnv1a32(extra, h);
  }
  return safeEncode(h);
}

export const POD_TEMPLATE_HASH_LABEL = 'pod-template-hash';

/**
 * Two pod templates describe the same revision once the hash label is set aside: how a
 * Deployment finds the ReplicaSet of its current template (and of a template `kubectl rollout
 * undo` copied back from an old ReplicaSet).
 */
export function templatesEqualIgnoringHash(a: unknown, b: unknown): boolean {
  return canonicalJson(withoutHashLabel(a)) === canonicalJson(withoutHashLabel(b));
}

function withoutHashLabel(template: unknown): unknown {
  const t = template as { metadata?: { labels?: Record<string, string> } } | undefined;
  const labels = t?.metadata?.labels;
  if (!labels || !(POD_TEMPLATE_HASH_LABEL in labels)) return template;
  const { [POD_TEMPLATE_HASH_LABEL]: _hash, ...rest } = labels;
  return { ...t, metadata: { ...t.metadata, labels: rest } };
}
