/**
 * A MachineConfigPool's status as the MCO's node controller computes it (its calculateStatus,
 * without image mode): the machine counts, `Updated` only when every node runs the target and
 * is ready and available — and only then does `status.configuration` move to the target, so the
 * CONFIG column shows the last completed configuration while an update is under way —
 * `Updating` with the target (or why a paused pool is not updating), `NodeDegraded` naming each
 * degraded node and what its daemon reports, and `Degraded` when a node or the render is.
 *
 * Beyond the MCO: when only the render is degraded, `Degraded` carries the render's message,
 * so `kubectl describe mcp` says why without a second look.
 */
import {
  machineConfigPoolConditionTypes as types,
  nodeAnnotations,
  type MachineConfigPool,
  type MachineConfigPoolCondition,
  type MachineConfigPoolStatus,
} from '../../../api/machineconfiguration/index.ts';
import type { DeepReadonly } from '../../../runtime/readonly.ts';
import { isNodeDegraded, isNodeReady, isNodeUnavailable, isNodeUpdated, type Node } from './node-state.ts';

type Pool = DeepReadonly<MachineConfigPool>;
type Status = 'True' | 'False' | 'Unknown';

/** How the MCO names a pool's target in its messages. */
export function poolUpdateLine(pool: Pool): string {
  return `MachineConfig ${pool.spec?.configuration?.name ?? ''}`;
}

/**
 * Sets one condition: unchanged when status, reason and message are; the transition time kept
 * when only reason or message change, as the MCO's SetMachineConfigPoolCondition does.
 */
export function setPoolCondition(
  conditions: MachineConfigPoolCondition[],
  type: string,
  status: Status,
  reason: string,
  message: string,
  now: string,
): MachineConfigPoolCondition[] {
  const i = conditions.findIndex((c) => c.type === type);
  const current = i >= 0 ? conditions[i] : undefined;
  if (current && current.status === status && (current.reason ?? '') === reason && (current.message ?? '') === message) return conditions;
  const next: MachineConfigPoolCondition = { type, status, lastTransitionTime: current?.status === status ? (current.lastTransitionTime ?? now) : now, reason, message };
  const out = [...conditions];
  if (i >= 0) out[i] = next;
  else out.push(next);
  return out;
}

export function conditionOf(status: DeepReadonly<MachineConfigPoolStatus> | undefined, type: string): DeepReadonly<MachineConfigPoolCondition> | undefined {
  return status?.conditions?.find((c) => c.type === type);
}

export const isConditionTrue = (status: DeepReadonly<MachineConfigPoolStatus> | undefined, type: string): boolean => conditionOf(status, type)?.status === 'True';

export interface PoolCounts {
  readonly machineCount: number;
  readonly updatedMachineCount: number;
  readonly readyMachineCount: number;
  readonly unavailableMachineCount: number;
  readonly degradedMachineCount: number;
  /** `Node X is reporting: "<reason>"` for each degraded node with a reason. */
  readonly degradedReasons: string[];
}

export function poolCounts(pool: Pool, nodes: readonly Node[]): PoolCounts {
  const updated = nodes.filter((n) => isNodeUpdated(n, pool));
  const degraded = nodes.filter(isNodeDegraded);
  return {
    machineCount: nodes.length,
    updatedMachineCount: updated.length,
    readyMachineCount: updated.filter(isNodeReady).length,
    unavailableMachineCount: nodes.filter(isNodeUnavailable).length,
    degradedMachineCount: degraded.length,
    degradedReasons: degraded.flatMap((n) => {
      const reason = n.metadata?.annotations?.[nodeAnnotations.reason] ?? '';
      // Go's %q, as the MCO quotes the daemon's reason.
      return reason ? [`Node ${n.metadata?.name ?? ''} is reporting: ${JSON.stringify(reason)}`] : [];
    }),
  };
}

/**
 * The status to write, from the pool as last read (its conditions, including the render
 * controller's `RenderDegraded`, and `status.configuration`) and the nodes whose primary pool it is.
 */
export function calculatePoolStatus(pool: Pool, nodes: readonly Node[], now: string): MachineConfigPoolStatus {
  const previous = structuredClone((pool.status ?? {}) as MachineConfigPoolStatus);
  const counts = poolCounts(pool, nodes);
  let conditions = previous.conditions ?? [];
  let configuration = previous.configuration;

  const allUpdated = counts.updatedMachineCount === counts.machineCount && counts.readyMachineCount === counts.machineCount && counts.unavailableMachineCount === 0;
  const line = poolUpdateLine(pool);
  if (allUpdated) {
    conditions = setPoolCondition(conditions, types.updated, 'True', '', `All nodes are updated with ${line}`, now);
    conditions = setPoolCondition(conditions, types.updating, 'False', '', '', now);
    const target = pool.spec?.configuration;
    if (target?.name) configuration = structuredClone(target) as MachineConfigPoolStatus['configuration'];
  } else {
    conditions = setPoolCondition(conditions, types.updated, 'False', '', '', now);
    conditions = pool.spec?.paused
      ? setPoolCondition(conditions, types.updating, 'False', '', `Pool is paused; will not update to ${line}`, now)
      : setPoolCondition(conditions, types.updating, 'True', '', `All nodes are updating to ${line}`, now);
  }

  const nodeDegraded = counts.degradedMachineCount > 0;
  const nodeDegradedMessage = counts.degradedReasons.join(', ');
  conditions = nodeDegraded
    ? setPoolCondition(conditions, types.nodeDegraded, 'True', `${counts.degradedMachineCount} nodes are reporting degraded status on sync`, nodeDegradedMessage, now)
    : setPoolCondition(conditions, types.nodeDegraded, 'False', '', '', now);

  const render = conditionOf(previous, types.renderDegraded);
  const renderDegraded = render?.status === 'True';
  if (nodeDegraded || renderDegraded) {
    conditions = setPoolCondition(conditions, types.degraded, 'True', '', nodeDegraded ? nodeDegradedMessage : (render?.message ?? ''), now);
  } else {
    conditions = setPoolCondition(conditions, types.degraded, 'False', '', '', now);
  }

  const { degradedReasons: _reasons, ...countFields } = counts;
  const status: MachineConfigPoolStatus = { ...previous, ...countFields, conditions };
  if (pool.metadata?.generation !== undefined) status.observedGeneration = pool.metadata.generation;
  if (configuration) status.configuration = configuration;
  return status;
}
