/**
 * A MachineSet's status from the Machines it counts and their Nodes, as OpenShift's MachineSet
 * controller computes it: `replicas` (every Machine counted), `fullyLabeledReplicas` (carrying
 * every label of the template), `readyReplicas` (its linked Node is Ready=True) and
 * `availableReplicas` (Ready for longer than `minReadySeconds`, by the Ready condition's
 * lastTransitionTime); with `observedGeneration` and the selector's string form in
 * `labelSelector`, which the scale subresource reports. Other status fields are left as they are.
 *
 * Nothing announces the moment a ready Machine becomes available, so the result also says when
 * the next one will (`nextAvailableInMs`); the controller requeues for exactly then, where
 * upstream requeues after the whole `minReadySeconds` once every Machine is ready.
 */
import type { V1Node } from '@kubernetes/client-node';
import { labelSelectorToString, matchesLabelSet } from '../../../api/label-selector.ts';
import type { Machine, MachineSet, MachineSetStatus } from '../../../api/machine/index.ts';
import type { DeepReadonly } from '../../../runtime/readonly.ts';

export type Node = DeepReadonly<V1Node>;

/** The status fields this controller owns; the rest (errorReason, conditions) it leaves to others. */
export type MachineSetCounts = Required<Pick<MachineSetStatus, 'replicas' | 'fullyLabeledReplicas' | 'readyReplicas' | 'availableReplicas' | 'labelSelector'>> &
  Pick<MachineSetStatus, 'observedGeneration'>;

export interface MachineSetStatusResult {
  readonly status: MachineSetCounts;
  /** How long until the next ready-but-not-yet-available Machine becomes available; undefined when none is waiting. */
  readonly nextAvailableInMs?: number;
}

/** The Node's Ready condition, if it reports one. */
export function readyCondition(node: Node | undefined): DeepReadonly<NonNullable<NonNullable<V1Node['status']>['conditions']>[number]> | undefined {
  return node?.status?.conditions?.find((c) => c.type === 'Ready');
}

export const isNodeReady = (node: Node | undefined): boolean => readyCondition(node)?.status === 'True';

/**
 * Milliseconds until a Ready node counts as available (0 when it does now); undefined when it
 * is not Ready or will never be (no transition time to measure from).
 */
export function availableInMs(node: Node | undefined, minReadySeconds: number, nowMs: number): number | undefined {
  const ready = readyCondition(node);
  if (ready?.status !== 'True') return undefined;
  if (minReadySeconds <= 0) return 0;
  const since = Date.parse(String(ready.lastTransitionTime ?? ''));
  if (!Number.isFinite(since)) return undefined;
  // Upstream's test is strict (transition + minReadySeconds before now): at the very instant it is not yet available.
  const remaining = since + minReadySeconds * 1000 - nowMs;
  return remaining < 0 ? 0 : remaining + 1;
}

export function machineSetStatus(
  ms: DeepReadonly<MachineSet>,
  machines: readonly DeepReadonly<Machine>[],
  nodeNamed: (name: string) => Node | undefined,
  nowMs: number,
): MachineSetStatusResult {
  const templateLabels = ms.spec?.template?.metadata?.labels;
  const minReadySeconds = ms.spec?.minReadySeconds ?? 0;
  let fullyLabeled = 0;
  let ready = 0;
  let available = 0;
  let next: number | undefined;
  for (const m of machines) {
    if (matchesLabelSet(templateLabels, m.metadata?.labels)) fullyLabeled++;
    const nodeName = m.status?.nodeRef?.name;
    const node = nodeName ? nodeNamed(nodeName) : undefined;
    if (!isNodeReady(node)) continue;
    ready++;
    const wait = availableInMs(node, minReadySeconds, nowMs);
    if (wait === 0) available++;
    else if (wait !== undefined) next = next === undefined ? wait : Math.min(next, wait);
  }
  const status: MachineSetCounts = {
    replicas: machines.length,
    fullyLabeledReplicas: fullyLabeled,
    readyReplicas: ready,
    availableReplicas: available,
    labelSelector: labelSelectorToString(ms.spec?.selector as never),
  };
  if (ms.metadata?.generation !== undefined) status.observedGeneration = ms.metadata.generation;
  return next === undefined ? { status } : { status, nextAvailableInMs: next };
}
