/**
 * The node conditions the lifecycle controller sets to Unknown when a node's kubelet is silent,
 * as kube's node lifecycle controller does: Ready, MemoryPressure, DiskPressure and PIDPressure
 * (NetworkUnavailable belongs to the network plugin and is left alone). A condition the kubelet
 * never posted is added (reason NodeStatusNeverUpdated, heartbeat at the node's creation), so
 * that a node that never reported shows its conditions, as `kubectl describe node` expects.
 */
import type { V1NodeCondition } from '@kubernetes/client-node';
import type { DeepReadonly } from '../../runtime/readonly.ts';

export const monitoredConditions = ['Ready', 'MemoryPressure', 'DiskPressure', 'PIDPressure'] as const;

/** Whether `conditions` already say Unknown for every monitored type. */
export function allUnknown(conditions: readonly DeepReadonly<V1NodeCondition>[] | undefined): boolean {
  return monitoredConditions.every((type) => conditions?.some((c) => c.type === type && c.status === 'Unknown'));
}

/**
 * The conditions of a silent node: each monitored one Unknown (those already Unknown untouched),
 * missing ones added; others kept as they are. `now` and `created` are RFC 3339 timestamps.
 */
export function silentNodeConditions(conditions: readonly DeepReadonly<V1NodeCondition>[] | undefined, opts: { now: string; created: string | undefined }): V1NodeCondition[] {
  const out = (conditions ?? []).map((c) => {
    if (!(monitoredConditions as readonly string[]).includes(c.type) || c.status === 'Unknown') return c as V1NodeCondition;
    return { ...c, status: 'Unknown', reason: 'NodeStatusUnknown', message: 'Kubelet stopped posting node status.', lastTransitionTime: opts.now } as unknown as V1NodeCondition;
  });
  for (const type of monitoredConditions) {
    if (out.some((c) => c.type === type)) continue;
    out.push({ type, status: 'Unknown', reason: 'NodeStatusNeverUpdated', message: 'Kubelet never posted node status.', lastHeartbeatTime: opts.created, lastTransitionTime: opts.now } as unknown as V1NodeCondition);
  }
  return out;
}
