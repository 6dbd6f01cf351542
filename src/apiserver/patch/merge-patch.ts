/**
 * JSON merge patch (RFC 7386), the `application/merge-patch+json` PATCH body: objects merge
 * key by key, `null` deletes a key, and anything that is not an object (lists included)
 * replaces the target whole. Custom resources are patched this way by `kubectl apply` and
 * `kubectl edit`; `kubectl scale` sends one to `/scale`.
 */
import { getKey, isObject, setKey, type JsonObject } from './json-value.ts';

/** Returns the patched document; neither argument is modified, and the result shares nothing with them. */
export function applyMergePatch(original: unknown, patch: unknown): unknown {
  return mergeInto(structuredClone(original), patch);
}

// `target` is a private copy, so it is modified in place.
function mergeInto(target: unknown, patch: unknown): unknown {
  if (!isObject(patch)) return structuredClone(patch);
  const out: JsonObject = isObject(target) ? target : {};
  for (const [key, value] of Object.entries(patch)) {
    if (value === undefined) continue;
    if (value === null) delete out[key];
    else setKey(out, key, mergeInto(getKey(out, key), value));
  }
  return out;
}
