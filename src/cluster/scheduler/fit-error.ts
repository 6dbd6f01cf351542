/**
 * The FailedScheduling message, worded as kube-scheduler 1.32 words it, because people (and
 * tests, and runbooks) grep for it:
 *
 *   0/4 nodes are available: 1 node(s) were unschedulable, 3 node(s) didn't match Pod's node
 *   affinity/selector. preemption: 0/4 nodes are available: 4 Preemption is not helpful for scheduling.
 *
 * Every reason every node failed with is counted, then the "<count> <reason>" strings are
 * sorted as plain strings (count included, so "1 …" sorts before "3 …") and joined by ", ".
 * The second sentence is what the default preemption plugin concludes. Shipyard does not
 * preempt; it reports what kube reports when no running pod has a lower priority than the
 * pending one: nodes that failed for a reason eviction cannot fix are "not helpful", the others
 * have "no preemption victims". A pod with `preemptionPolicy: Never` is not eligible at all.
 */
import type { FilterFailure, Pod } from './types.ts';
import { compareStrings } from '../../api/compare.ts';

/** kube-scheduler's message when the cluster has no nodes at all (not a fit error). */
export const NO_NODES_AVAILABLE = 'no nodes available to schedule pods';
export const PREEMPTION_NOT_HELPFUL = 'Preemption is not helpful for scheduling';
export const NO_PREEMPTION_VICTIMS = 'No preemption victims found for incoming pod';
export const PREEMPTION_NEVER = 'not eligible due to preemptionPolicy=Never.';

function histogram(reasons: Iterable<string>): string {
  const counts = new Map<string, number>();
  for (const r of reasons) counts.set(r, (counts.get(r) ?? 0) + 1);
  return [...counts].map(([reason, n]) => `${n} ${reason}`).sort(compareStrings).join(', ');
}

/** "0/N nodes are available: <histogram>." plus, when given, the post-filter sentence. */
export function fitErrorMessage(numAllNodes: number, failures: Iterable<FilterFailure>, postFilterMessage?: string): string {
  let msg = `0/${numAllNodes} nodes are available:`;
  const reasons = histogram((function* () {
    for (const f of failures) yield* f.reasons;
  })());
  if (reasons) msg += ` ${reasons}.`;
  if (postFilterMessage) msg += ` ${postFilterMessage}`;
  return msg;
}

/** The "preemption: …" sentence for a pod no node could take. */
export function preemptionMessage(pod: Pod, numAllNodes: number, failures: Iterable<FilterFailure>): string {
  if (pod.spec?.preemptionPolicy === 'Never') return `preemption: ${PREEMPTION_NEVER}`;
  const verdicts: FilterFailure[] = [];
  let seen = 0;
  for (const f of failures) {
    seen++;
    verdicts.push({ code: 'UnschedulableAndUnresolvable', reasons: [f.code === 'Unschedulable' ? NO_PREEMPTION_VICTIMS : PREEMPTION_NOT_HELPFUL] });
  }
  // Nodes without a recorded failure are ones preemption never looked at: not helpful either.
  for (; seen < numAllNodes; seen++) verdicts.push({ code: 'UnschedulableAndUnresolvable', reasons: [PREEMPTION_NOT_HELPFUL] });
  return `preemption: ${fitErrorMessage(numAllNodes, verdicts)}`;
}

/** The whole message, as the event and the PodScheduled condition carry it. */
export function failedSchedulingMessage(pod: Pod, numAllNodes: number, failures: readonly FilterFailure[]): string {
  if (numAllNodes === 0) return NO_NODES_AVAILABLE;
  return fitErrorMessage(numAllNodes, failures, preemptionMessage(pod, numAllNodes, failures));
}

/** Event notes are capped as kube-scheduler caps them (1024); the pod's condition keeps the whole message. */
export function truncateEventMessage(message: string, limit = 1024): string {
  const suffix = ' ...';
  return message.length <= limit ? message : message.slice(0, limit - suffix.length) + suffix;
}
