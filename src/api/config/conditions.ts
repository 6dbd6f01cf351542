/**
 * Condition lists of ClusterOperator and ClusterVersion (and the metav1.Condition lists of the
 * other config kinds): find a condition, and set one so that `lastTransitionTime` moves only
 * when `status` changes — a new reason or message alone is not a transition, which is what lets
 * SINCE columns and alerts say how long a state has lasted. The functions never modify their
 * input (it may come from an informer cache) and take the clock as a parameter.
 */
import { formatTimestamp } from '../time.ts';

export interface ConditionLike {
  readonly type: string;
  readonly status: string;
  readonly lastTransitionTime: string;
  readonly reason?: string;
  readonly message?: string;
}

/** A condition to set: everything but the transition time, which `setCondition` decides. */
export type ConditionUpdate<C extends ConditionLike> = Omit<C, 'lastTransitionTime'>;

export function findCondition<C extends { readonly type: string }>(conditions: readonly C[] | undefined, type: string): C | undefined {
  return conditions?.find((c) => c.type === type);
}

export function isConditionTrue(conditions: readonly { readonly type: string; readonly status: string }[] | undefined, type: string): boolean {
  return findCondition(conditions, type)?.status === 'True';
}

export function isConditionFalse(conditions: readonly { readonly type: string; readonly status: string }[] | undefined, type: string): boolean {
  return findCondition(conditions, type)?.status === 'False';
}

/**
 * A copy of `conditions` with `update` applied: a new type is appended with `now` as its
 * transition time; an existing one keeps its place and its transition time unless the status
 * changed. Reason and message are replaced as given (an omitted one is removed).
 */
export function setCondition<C extends ConditionLike>(conditions: readonly C[] | undefined, update: ConditionUpdate<C>, now: Date | number | string = new Date()): C[] {
  const at = typeof now === 'string' ? now : formatTimestamp(now);
  const list = [...(conditions ?? [])];
  const i = list.findIndex((c) => c.type === update.type);
  const existing = i >= 0 ? list[i] : undefined;
  const lastTransitionTime = existing && existing.status === update.status ? existing.lastTransitionTime : at;
  const next = Object.fromEntries(Object.entries({ ...update, lastTransitionTime }).filter(([, v]) => v !== undefined)) as unknown as C;
  if (i >= 0) list[i] = next;
  else list.push(next);
  return list;
}

/** `setCondition` for several updates in order. */
export function setConditions<C extends ConditionLike>(conditions: readonly C[] | undefined, updates: readonly ConditionUpdate<C>[], now: Date | number | string = new Date()): C[] {
  let list = [...(conditions ?? [])];
  for (const u of updates) list = setCondition(list, u, now);
  return list;
}

export function removeCondition<C extends { readonly type: string }>(conditions: readonly C[] | undefined, type: string): C[] {
  return (conditions ?? []).filter((c) => c.type !== type);
}
