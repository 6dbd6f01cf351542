/**
 * What a Node's annotations and status say about its machine-config update, as the MCO's node
 * controller reads them (its LayeredNodeState, without image mode): whether the node is ready
 * for work, done with its daemon's update, failing it, unavailable for another update, updated
 * to a pool's target, or degraded. The daemon on the node writes the annotations; the node
 * controller only ever writes `desiredConfig`.
 */
import type { V1Node, V1Taint } from '@kubernetes/client-node';
import { nodeAnnotations, type MachineConfigPool } from '../../../api/machineconfiguration/index.ts';
import type { DeepReadonly } from '../../../runtime/readonly.ts';

export type Node = DeepReadonly<V1Node>;

export function annotation(node: Node, key: string): string {
  return node.metadata?.annotations?.[key] ?? '';
}

export const currentConfig = (node: Node): string => annotation(node, nodeAnnotations.currentConfig);
export const desiredConfig = (node: Node): string => annotation(node, nodeAnnotations.desiredConfig);
export const daemonState = (node: Node): string => annotation(node, nodeAnnotations.state);

/** The MCO's taint on nodes whose desired config is not yet their pool's target. */
export const updateInProgressTaint: V1Taint = { key: 'UpdateInProgress', effect: 'PreferNoSchedule' };

export const hasUpdateTaint = (node: Node): boolean => (node.spec?.taints ?? []).some((t) => t.key === updateInProgressTaint.key && t.effect === updateInProgressTaint.effect);

/**
 * Why the node may not take work, or undefined when it may: Ready not True, DiskPressure or
 * NetworkUnavailable not False, or cordoned. A node that reports no such condition is taken as
 * ready, as the MCO does.
 */
export function notReadyReason(node: Node): string | undefined {
  const name = node.metadata?.name ?? '';
  for (const c of node.status?.conditions ?? []) {
    if (c.type === 'Ready' && c.status !== 'True') return `node ${name} is reporting NotReady=${c.status}`;
    if (c.type === 'DiskPressure' && c.status !== 'False') return `node ${name} is reporting OutOfDisk=${c.status}`;
    if (c.type === 'NetworkUnavailable' && c.status !== 'False') return `node ${name} is reporting NetworkUnavailable=${c.status}`;
  }
  if (node.spec?.unschedulable) return `node ${name} is reporting Unschedulable`;
  return undefined;
}

export const isNodeReady = (node: Node): boolean => notReadyReason(node) === undefined;

/** The daemon finished: current and desired both set and equal, and state Done. */
export function isNodeDone(node: Node): boolean {
  const current = currentConfig(node);
  return current !== '' && current === desiredConfig(node) && daemonState(node) === 'Done';
}

/** The daemon gave up on its desired config (for now): such a node may be retargeted at once. */
export function isNodeFailing(node: Node): boolean {
  if (currentConfig(node) === desiredConfig(node)) return false;
  const state = daemonState(node);
  return state === 'Degraded' || state === 'Unreconcilable';
}

/**
 * Counts against maxUnavailable: not ready, or not done and not failing — a daemon working on an
 * update (or about to start one) may cordon the node at any moment, so it is counted before it
 * does, while a failing one is not (it is retargetable, and its cordon, if any, counts anyway).
 */
export function isNodeUnavailable(node: Node): boolean {
  if (!isNodeReady(node)) return true;
  if (isNodeDone(node)) return false;
  return !isNodeFailing(node);
}

/** Done, at the pool's target. */
export function isNodeUpdated(node: Node, pool: DeepReadonly<MachineConfigPool>): boolean {
  return isNodeDone(node) && desiredConfig(node) === (pool.spec?.configuration?.name ?? '');
}

/** The daemon reports Degraded or Unreconcilable for a desired config it was given. */
export function isNodeDegraded(node: Node): boolean {
  if (desiredConfig(node) === '') return false;
  const state = daemonState(node);
  return state === 'Degraded' || state === 'Unreconcilable';
}
