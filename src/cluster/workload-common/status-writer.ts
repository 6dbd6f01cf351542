/**
 * Writing a workload's status through the `status` subresource: one PUT on the cached
 * resourceVersion and, on a conflict, one more on a fresh read (kube's controllers retry
 * status once, then leave it to the next reconcile). Nothing is written when the status is
 * already what the server holds (absent and empty fields compare equal, as the API treats them).
 */
import type { KubernetesObject } from '@kubernetes/client-node';
import { isConflict, isNotFound, type ApiClient } from '../../runtime/client.ts';
import type { DeepReadonly } from '../../runtime/readonly.ts';
import type { ResourceRef } from '../../runtime/resources.ts';
import { canonicalJson } from './template-hash.ts';

export type WithStatus<S> = KubernetesObject & { status?: S };

/** Resolves with the object as the server now holds it, or undefined if it is gone. */
export async function writeStatus<S>(client: ApiClient, ref: ResourceRef, obj: DeepReadonly<KubernetesObject & { status?: unknown }>, status: S): Promise<WithStatus<S> | undefined> {
  let current = obj as WithStatus<unknown>;
  for (let attempt = 0; ; attempt++) {
    if (canonicalJson(current.status) === canonicalJson(status)) return current as WithStatus<S>;
    try {
      return await client.updateStatus<WithStatus<S>>(ref, { ...structuredClone(current), status });
    } catch (err) {
      if (isNotFound(err)) return undefined;
      if (!isConflict(err) || attempt >= 1) throw err;
      try {
        current = await client.get<WithStatus<unknown>>(ref, obj.metadata?.namespace, obj.metadata?.name ?? '');
      } catch (getErr) {
        if (isNotFound(getErr)) return undefined;
        throw getErr;
      }
      if (current.metadata?.uid !== obj.metadata?.uid) return undefined;
    }
  }
}
