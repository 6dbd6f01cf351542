/**
 * A status write as functions retried on conflict (style example 8; library-go's UpdateStatus
 * and apiserver's GuaranteedUpdate do the same): the mutations are applied to the status as
 * last read and the result is PUT to the `status` subresource on that resourceVersion; a 409
 * reads the object again and applies them again; a status that comes out meaning the same as
 * what the server holds (absent and empty compare equal, as the API treats them) is not written,
 * so a steady controller costs the API nothing. The one status writer of controllers and
 * operators (issue 13, item 9).
 */
import type { KubernetesObject } from '@kubernetes/client-node';
import { canonicalJson } from './canonical-json.ts';
import { isConflict, isNotFound, type ApiClient } from './client.ts';
import type { DeepReadonly } from './readonly.ts';
import type { ResourceRef } from './resources.ts';

/** Which object's status: by name, or the object as the cache holds it (saving the first GET). */
export interface StatusTarget {
  readonly resource: ResourceRef;
  readonly namespace?: string;
  readonly name: string;
  /** The object as last seen: the first attempt starts from it, and a stale copy costs one 409. */
  readonly cached?: DeepReadonly<KubernetesObject & { status?: unknown }>;
  /** Only this object: a namesake created since (another uid) counts as gone. Defaults to the cached object's uid. */
  readonly uid?: string;
}

/**
 * Changes the status in place, or returns the status to write instead. It gets the object as
 * read and may run more than once (after a conflict), so it must derive everything from its
 * arguments.
 */
export type StatusMutation<S> = (status: S, object: DeepReadonly<KubernetesObject & { status?: S }>) => S | void;

export interface StatusUpdate<T> {
  /** The object as the server now holds it; undefined when it is gone (404, or replaced by a namesake). */
  readonly object: T | undefined;
  readonly changed: boolean;
}

/** A write and two more tries on fresh reads; then the 409 goes to the caller (a reconcile retries with backoff). */
const ATTEMPTS = 3;

/** The `StatusTarget` for an object as the cache holds it. */
export function statusTargetOf(resource: ResourceRef, cached: DeepReadonly<KubernetesObject>): StatusTarget {
  return { resource, namespace: cached.metadata?.namespace, name: cached.metadata?.name ?? '', cached };
}

export async function updateStatus<S extends object, T extends KubernetesObject & { status?: S } = KubernetesObject & { status?: S }>(
  client: ApiClient,
  target: StatusTarget,
  ...mutations: StatusMutation<S>[]
): Promise<StatusUpdate<T>> {
  const uid = target.uid ?? target.cached?.metadata?.uid;
  let current = target.cached as DeepReadonly<T> | undefined;
  for (let attempt = 1; ; attempt++) {
    if (!current) {
      try {
        current = (await client.get<T>(target.resource, target.namespace, target.name)) as DeepReadonly<T>;
      } catch (err) {
        if (isNotFound(err)) return { object: undefined, changed: false };
        throw err;
      }
      if (uid !== undefined && current.metadata?.uid !== uid) return { object: undefined, changed: false };
    }
    let status = structuredClone((current.status ?? {}) as S);
    for (const mutate of mutations) status = mutate(status, current) ?? status;
    if (canonicalJson(status) === canonicalJson(current.status)) return { object: current as T, changed: false };
    try {
      const written = await client.updateStatus<T>(target.resource, { ...(structuredClone(current) as T), status });
      return { object: written, changed: true };
    } catch (err) {
      if (isNotFound(err)) return { object: undefined, changed: false };
      if (!isConflict(err) || attempt >= ATTEMPTS) throw err;
      current = undefined;
    }
  }
}
