/**
 * The read-only view of cached objects. Informer caches hand out the very objects they store,
 * so a caller that mutated one would silently corrupt the cache for every other reader
 * (client-go's ResourceEventHandler: "MUST NOT modify the objects received"). The type makes
 * that a compile error; `deepFreeze` makes it a runtime error too; `structuredClone` is the
 * way back to a mutable copy.
 */

export type DeepReadonly<T> = T extends (...args: never[]) => unknown
  ? T
  : T extends ReadonlyMap<infer K, infer V>
    ? ReadonlyMap<DeepReadonly<K>, DeepReadonly<V>>
    : T extends ReadonlySet<infer V>
      ? ReadonlySet<DeepReadonly<V>>
      : T extends readonly (infer E)[]
        ? readonly DeepReadonly<E>[]
        : T extends object
          ? { readonly [K in keyof T]: DeepReadonly<T[K]> }
          : T;

/** Freezes a JSON-shaped value in place and returns it typed as read-only. */
export function deepFreeze<T>(value: T): DeepReadonly<T> {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value as Record<string, unknown>)) deepFreeze(v);
  }
  return value as DeepReadonly<T>;
}
