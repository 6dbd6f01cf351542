/**
 * Taints and tolerations, as Kubernetes matches them (`Toleration.ToleratesTaint`), for the
 * scheduler's filters, the DaemonSet controller's placement and the node lifecycle
 * controller's NoExecute evictions: one definition, so a pod cannot be placed by one and
 * evicted by another for the same taint.
 */

export interface Taint {
  readonly key?: string;
  readonly value?: string;
  readonly effect?: string;
}

export interface Toleration {
  readonly key?: string;
  readonly operator?: string;
  readonly value?: string;
  readonly effect?: string;
}

/**
 * An empty effect tolerates every effect; an empty key (which validation allows only with
 * Exists) every key. Exists ignores the value, Equal (the default) compares it, and an
 * operator validation would reject tolerates nothing.
 */
export function tolerates(toleration: Toleration, taint: Taint): boolean {
  if (toleration.effect && toleration.effect !== taint.effect) return false;
  if (toleration.key && toleration.key !== taint.key) return false;
  switch (toleration.operator ?? 'Equal') {
    case 'Exists':
      return true;
    case 'Equal':
    case '':
      return (toleration.value ?? '') === (taint.value ?? '');
    default:
      return false;
  }
}

/** Some toleration tolerates the taint (kube's `TolerationsTolerateTaint`). */
export function toleratesTaint(tolerations: readonly Toleration[] | null | undefined, taint: Taint): boolean {
  return (tolerations ?? []).some((t) => tolerates(t, taint));
}

/** The first taint that `include` selects and no toleration tolerates (kube's `FindMatchingUntoleratedTaint`). */
export function findUntoleratedTaint<T extends Taint>(taints: readonly T[] | null | undefined, tolerations: readonly Toleration[] | null | undefined, include: (taint: T) => boolean): T | undefined {
  for (const taint of taints ?? []) if (include(taint) && !toleratesTaint(tolerations, taint)) return taint;
  return undefined;
}
