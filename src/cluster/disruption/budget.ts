/**
 * What a PodDisruptionBudget's status should say, given the pods of its namespace: expected,
 * healthy and desired counts, `disruptionsAllowed`, the `DisruptionAllowed` condition, and
 * `disruptedPods` without the entries that are settled (the pod is gone or being deleted) or
 * older than two minutes, after which an eviction that never happened stops counting.
 * The eviction subresource in the API server reads this status and decrements it.
 */
import type { V1Pod, V1PodDisruptionBudget, V1PodDisruptionBudgetStatus } from '@kubernetes/client-node';
import { isPodReady } from '../../api/pod-status.ts';
import { formatTimestamp } from '../../api/time.ts';
import type { DeepReadonly } from '../../runtime/readonly.ts';
import { compileLabelSelector, type LabelSelector } from '../../api/label-selector.ts';

export const DISRUPTED_POD_TIMEOUT_MS = 2 * 60 * 1000;

function scaled(value: unknown, expected: number): number {
  if (typeof value === 'number') return value;
  if (typeof value === 'string' && value.endsWith('%')) return Math.ceil((expected * parseInt(value, 10)) / 100);
  return 0;
}

export function budgetStatus(pdb: DeepReadonly<V1PodDisruptionBudget>, pods: readonly DeepReadonly<V1Pod>[], now: number): V1PodDisruptionBudgetStatus {
  // A selector Kubernetes would refuse matches nothing rather than everything.
  const matcher = compileLabelSelector(pdb.spec?.selector as LabelSelector | undefined).matches ?? (() => false);
  const live = pods.filter((p) => matcher(p.metadata?.labels) && p.status?.phase !== 'Succeeded' && p.status?.phase !== 'Failed');
  // Times stay as the API wrote them (strings on the wire, whatever the typings say), so an
  // unchanged status compares equal and is not rewritten.
  const disrupted: Record<string, string> = {};
  for (const [name, at] of Object.entries((pdb.status?.disruptedPods ?? {}) as unknown as Record<string, string>)) {
    const pod = live.find((p) => p.metadata?.name === name);
    if (pod && !pod.metadata?.deletionTimestamp && now - Date.parse(at) < DISRUPTED_POD_TIMEOUT_MS) disrupted[name] = at;
  }
  const expectedPods = live.length;
  const currentHealthy = live.filter((p) => isPodReady(p as V1Pod) && !p.metadata?.deletionTimestamp && !disrupted[p.metadata?.name ?? '']).length;
  let desiredHealthy: number;
  if (pdb.spec?.minAvailable !== undefined) desiredHealthy = scaled(pdb.spec.minAvailable, expectedPods);
  else if (pdb.spec?.maxUnavailable !== undefined) desiredHealthy = Math.max(0, expectedPods - scaled(pdb.spec.maxUnavailable, expectedPods));
  else desiredHealthy = Math.min(1, expectedPods);
  const disruptionsAllowed = Math.max(0, currentHealthy - desiredHealthy);
  const allowed = disruptionsAllowed > 0;
  const statusText = allowed ? 'True' : 'False';
  const old = (pdb.status?.conditions ?? []).find((c) => c.type === 'DisruptionAllowed');
  const condition = {
    type: 'DisruptionAllowed',
    status: statusText,
    reason: allowed ? 'SufficientPods' : 'InsufficientPods',
    message: '',
    observedGeneration: pdb.metadata?.generation,
    lastTransitionTime: (old && old.status === statusText ? old.lastTransitionTime : formatTimestamp(now)) as unknown as Date,
  };
  const status: V1PodDisruptionBudgetStatus = { observedGeneration: pdb.metadata?.generation, disruptionsAllowed, currentHealthy, desiredHealthy, expectedPods, conditions: [condition] };
  if (Object.keys(disrupted).length) status.disruptedPods = disrupted as unknown as Record<string, Date>;
  return status;
}
