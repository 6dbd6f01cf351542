/**
 * The building blocks every typed merge is made of: a change tracker, and the small "ensure"
 * steps that make one field of the existing object match the manifest, recording whether
 * anything had to change. Metadata is merged, never replaced: labels and annotations other
 * writers added survive, and what the API server owns (resourceVersion, uid, managedFields,
 * creationTimestamp, finalizers) is never touched.
 */
import { asObj, child, isObj, objList, put, same, sameField, type Obj } from './json.ts';

/** Collects whether any step changed the existing object. */
export class Tracker {
  changed = false;
  /** Marks a change and returns true, so a step can `return t.mark()`. */
  mark(): true {
    this.changed = true;
    return true;
  }
}

/** Sets `existing[key]` to the manifest's value when the manifest sets one. */
export function setIfSet(t: Tracker, existing: Obj, required: Obj, key: string, eq?: (a: unknown, b: unknown) => boolean): void {
  const want = required[key];
  if (want === undefined || want === null) return;
  if (!(eq ? eq(existing[key], want) : sameField(key, existing[key], want))) {
    put(existing, key, want);
    t.mark();
  }
}

/** Makes `existing[key]` equal the manifest's value, removing it when the manifest has none. */
export function setExact(t: Tracker, existing: Obj, required: Obj, key: string, eq?: (a: unknown, b: unknown) => boolean): void {
  if (!(eq ? eq(existing[key], required[key]) : sameField(key, existing[key], required[key]))) {
    put(existing, key, required[key]);
    t.mark();
  }
}

/** Makes `existing[key]` equal the manifest's value, or `fallback` (the server's default) when the manifest omits it. */
export function setWithDefault(t: Tracker, existing: Obj, required: Obj, key: string, fallback: unknown): void {
  const want = required[key] ?? fallback;
  if (!sameField(key, existing[key] ?? fallback, want)) {
    put(existing, key, want);
    t.mark();
  }
}

/** The manifest's keys are set in the existing map; keys only the existing map has are kept. */
export function mergeMap(t: Tracker, holder: Obj, key: string, required: unknown): void {
  const want = asObj(required);
  if (!want || Object.keys(want).length === 0) return;
  const have = child(holder, key);
  for (const [k, v] of Object.entries(want)) {
    if (have[k] !== v) {
      have[k] = v;
      t.mark();
    }
  }
}

/** Owner references are merged by uid: the manifest's are present and equal, others kept. */
export function mergeOwnerRefs(t: Tracker, meta: Obj, required: unknown): void {
  const want = objList(required);
  if (want.length === 0) return;
  const have = Array.isArray(meta.ownerReferences) ? [...meta.ownerReferences] : [];
  for (const ref of want) {
    const i = have.findIndex((o) => isObj(o) && o.uid === ref.uid);
    if (i < 0) {
      have.push(structuredClone(ref));
      t.mark();
    } else if (!same(have[i], ref)) {
      have[i] = structuredClone(ref);
      t.mark();
    }
  }
  meta.ownerReferences = have;
}

/**
 * ObjectMeta as the CVO ensures it: name and namespace when set, labels and annotations
 * merged, owner references merged by uid. `existing` is the object holding `metadata`.
 */
export function ensureObjectMeta(t: Tracker, existing: Obj, required: Obj): void {
  const want = asObj(required.metadata);
  if (!want) return;
  const meta = child(existing, 'metadata');
  for (const key of ['name', 'namespace']) {
    if (typeof want[key] === 'string' && want[key] !== '' && meta[key] !== want[key]) {
      meta[key] = want[key];
      t.mark();
    }
  }
  mergeMap(t, meta, 'labels', want.labels);
  mergeMap(t, meta, 'annotations', want.annotations);
  mergeOwnerRefs(t, meta, want.ownerReferences);
}
