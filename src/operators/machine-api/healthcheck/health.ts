/**
 * The health check's decisions, as pure functions of a policy, the selected Machines, their
 * Nodes and the time: whether each Machine is healthy, how many are, whether remediation is
 * allowed under `maxUnhealthy`, and when to look again. OpenShift's MachineHealthCheck
 * controller decides the same way, with one change taken from Cluster API (issue 16 item 6):
 *
 * **The startup clock.** A Machine with no Node is unhealthy once `nodeStartupTimeout` has
 * passed since the later of its creation and the moment its instance came to exist — the
 * `lastTransitionTime` of its `InstanceExists` condition while that is True, which the machine
 * controller sets when it first finds the instance (phase Provisioned) and which moves only when
 * the condition changes status. OpenShift measures from `status.lastUpdated` instead, which every
 * status write moves, so a Machine whose status keeps being rewritten is never timed out, while
 * a slow cloud eats into the Node's time (reference pain point C5); Cluster API measures from
 * the latest of creation and infrastructure-ready, as here. Before the instance exists the
 * clock runs from creation, so a Machine stuck Provisioning is timed out too.
 */
import type { V1Node } from '@kubernetes/client-node';
import { formatDuration } from '../../../api/duration.ts';
import { IntOrPercentError, scaledValue, type IntOrPercent } from '../../../api/int-or-percent.ts';
import { machineConditionTypes, machinePhases, type Machine as MachineKind } from '../../../api/machine/index.ts';
import type { DeepReadonly } from '../../../runtime/readonly.ts';
import type { HealthCheckPolicy, NodeConditionRule } from './policy.ts';

export type Machine = DeepReadonly<MachineKind>;
export type Node = DeepReadonly<V1Node>;

export const remediationAllowedCondition = 'RemediationAllowed';
export const tooManyUnhealthyReason = 'TooManyUnhealthy';
export const invalidMaxUnhealthyReason = 'InvalidMaxUnhealthy';

/** Why a Machine needs remediation. */
export type UnhealthyReason = 'MachineFailed' | 'NodeStartupTimeout' | 'NodeNotFound' | 'UnhealthyCondition';

export type TargetHealth =
  /** Its Node exists and meets no rule. */
  | { readonly kind: 'healthy' }
  /** Being deleted: neither healthy nor to be remediated again. */
  | { readonly kind: 'deleting' }
  /** No Node yet, within the startup timeout (`checkInMs` until it runs out), or with no timeout at all. */
  | { readonly kind: 'starting'; readonly checkInMs?: number }
  /** Its Node meets `rule`, not yet for long enough: unhealthy in `checkInMs` unless it recovers. */
  | { readonly kind: 'pending'; readonly rule: NodeConditionRule; readonly checkInMs: number }
  | { readonly kind: 'unhealthy'; readonly reason: UnhealthyReason; readonly message: string };

export interface Target {
  readonly machine: Machine;
  /** The Node its nodeRef names, when the cache has it. */
  readonly node: Node | undefined;
  readonly health: TargetHealth;
}

const timeOf = (t: unknown): number | undefined => {
  if (t === undefined || t === null || t === '') return undefined;
  const ms = Date.parse(String(t));
  return Number.isFinite(ms) ? ms : undefined;
};

/**
 * When the Machine's startup clock started (see the module comment), and from what; undefined
 * for a Machine with neither time (not yet stored).
 */
export function startupClockStart(machine: Machine): { readonly at: number; readonly from: 'creation' | 'instance' } | undefined {
  const created = timeOf(machine.metadata?.creationTimestamp);
  const instance = machine.status?.conditions?.find((c) => c.type === machineConditionTypes.instanceExists);
  const provisioned = instance?.status === 'True' ? timeOf(instance.lastTransitionTime) : undefined;
  if (provisioned !== undefined && (created === undefined || provisioned >= created)) return { at: provisioned, from: 'instance' };
  return created === undefined ? undefined : { at: created, from: 'creation' };
}

/** The Node's condition of `type`, and since when it has had its status (the Node's creation if it gives no transition time). */
function conditionSince(node: Node, type: string): { status: string; since: number } | undefined {
  const c = node.status?.conditions?.find((x) => x.type === type);
  if (!c) return undefined;
  const since = timeOf(c.lastTransitionTime) ?? timeOf(node.metadata?.creationTimestamp);
  // A condition with no time at all counts from now: never remediated on a guess.
  return { status: c.status, since: since ?? Number.POSITIVE_INFINITY };
}

/** One Machine's health at `nowMs` (wall time). */
export function targetHealth(policy: HealthCheckPolicy, machine: Machine, node: Node | undefined, nowMs: number): TargetHealth {
  if (machine.metadata?.deletionTimestamp) return { kind: 'deleting' };
  const status = machine.status;
  if (status?.phase === machinePhases.failed) {
    const why = [status.errorReason, status.errorMessage].filter(Boolean).join(': ');
    return { kind: 'unhealthy', reason: 'MachineFailed', message: `phase is Failed${why ? ` (${why})` : ''}` };
  }
  const nodeName = status?.nodeRef?.name;
  if (!nodeName) {
    if (policy.nodeStartupTimeoutMs === 0) return { kind: 'starting' };
    const start = startupClockStart(machine) ?? { at: nowMs, from: 'creation' };
    const deadline = start.at + policy.nodeStartupTimeoutMs;
    if (nowMs >= deadline) {
      const since = start.from === 'instance' ? 'its instance was provisioned' : 'it was created';
      return { kind: 'unhealthy', reason: 'NodeStartupTimeout', message: `no Node ${formatDuration(nowMs - start.at)} after ${since} (nodeStartupTimeout ${formatDuration(policy.nodeStartupTimeoutMs)})` };
    }
    return { kind: 'starting', checkInMs: deadline - nowMs };
  }
  if (!node) return { kind: 'unhealthy', reason: 'NodeNotFound', message: `its Node ${nodeName} does not exist` };
  let pending: { rule: NodeConditionRule; checkInMs: number } | undefined;
  for (const rule of policy.unhealthyConditions) {
    const c = conditionSince(node, rule.type);
    if (!c || c.status !== rule.status) continue;
    const deadline = c.since + rule.timeoutMs;
    if (nowMs >= deadline) {
      return { kind: 'unhealthy', reason: 'UnhealthyCondition', message: `Node ${nodeName} has had ${rule.type}=${rule.status} for longer than ${formatDuration(rule.timeoutMs)}` };
    }
    if (deadline !== Number.POSITIVE_INFINITY && (!pending || deadline - nowMs < pending.checkInMs)) pending = { rule, checkInMs: deadline - nowMs };
  }
  return pending ? { kind: 'pending', ...pending } : { kind: 'healthy' };
}

/** The RemediationAllowed condition as the status carries it (the transition time is the writer's). */
export interface RemediationAllowed {
  readonly status: 'True' | 'False';
  readonly reason?: string;
  readonly message?: string;
  readonly severity?: 'Warning' | 'Error';
}

export interface Evaluation {
  readonly targets: readonly Target[];
  readonly expectedMachines: number;
  readonly currentHealthy: number;
  /** expected − healthy: Machines starting, pending, unhealthy or being deleted all count. */
  readonly unhealthyCount: number;
  /** maxUnhealthy as a count of these Machines; undefined when it cannot be read. */
  readonly maxUnhealthy: number | undefined;
  readonly remediationAllowed: RemediationAllowed;
  readonly remediationsAllowed: number;
  /** Wall time until the soonest target may change verdict by time alone. */
  readonly requeueAfterMs?: number;
}

/** maxUnhealthy as a count of `total`: a number, a string of digits, or a percentage rounded down, as OpenShift reads it. */
export function maxUnhealthyCount(value: IntOrPercent, total: number): number {
  const normalized = typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : value;
  return Math.max(0, scaledValue(normalized, total, false));
}

/** Checks every selected Machine and decides, as a whole, whether remediation may go ahead. */
export function evaluate(policy: HealthCheckPolicy, machines: readonly Machine[], nodeOf: (name: string) => Node | undefined, nowMs: number): Evaluation {
  const targets: Target[] = machines.map((machine) => {
    const name = machine.status?.nodeRef?.name;
    const node = name ? nodeOf(name) : undefined;
    return { machine, node, health: targetHealth(policy, machine, node, nowMs) };
  });
  const expectedMachines = targets.length;
  const currentHealthy = targets.filter((t) => t.health.kind === 'healthy').length;
  const unhealthyCount = expectedMachines - currentHealthy;
  let requeueAfterMs: number | undefined;
  for (const { health } of targets) {
    const at = health.kind === 'pending' || health.kind === 'starting' ? health.checkInMs : undefined;
    if (at !== undefined && (requeueAfterMs === undefined || at < requeueAfterMs)) requeueAfterMs = at;
  }
  const base = { targets, expectedMachines, currentHealthy, unhealthyCount, requeueAfterMs };

  let maxUnhealthy: number;
  try {
    maxUnhealthy = maxUnhealthyCount(policy.maxUnhealthy, expectedMachines);
  } catch (err) {
    if (!(err instanceof IntOrPercentError)) throw err;
    const message = `Remediation is not allowed: spec.maxUnhealthy: Invalid value: ${JSON.stringify(policy.maxUnhealthy)}: must be an integer or a percentage such as "40%"`;
    return { ...base, maxUnhealthy: undefined, remediationsAllowed: 0, remediationAllowed: { status: 'False', severity: 'Warning', reason: invalidMaxUnhealthyReason, message } };
  }
  if (unhealthyCount > maxUnhealthy) {
    const message = `Remediation is not allowed, the number of not started or unhealthy machines exceeds maxUnhealthy (total: ${expectedMachines}, unhealthy: ${unhealthyCount}, maxUnhealthy: ${policy.maxUnhealthy})`;
    return { ...base, maxUnhealthy, remediationsAllowed: 0, remediationAllowed: { status: 'False', severity: 'Warning', reason: tooManyUnhealthyReason, message } };
  }
  return { ...base, maxUnhealthy, remediationsAllowed: maxUnhealthy - unhealthyCount, remediationAllowed: { status: 'True' } };
}

/**
 * The message of the RemediationRestricted warning (OpenShift's wording) when remediation is
 * held back, or undefined for none. Machines still starting (or being deleted) count against
 * maxUnhealthy, but a warning while no Node is unhealthy at all would mislead (Cluster API holds
 * it back too); a Node unhealthy but not yet for its timeout is warned about, as OpenShift does.
 */
export function remediationRestricted(e: Evaluation, maxUnhealthy: IntOrPercent): string | undefined {
  if (e.remediationAllowed.status === 'True') return undefined;
  if (!e.targets.some((t) => t.health.kind === 'unhealthy' || t.health.kind === 'pending')) return undefined;
  if (e.maxUnhealthy === undefined) return e.remediationAllowed.message;
  return `Remediation restricted due to exceeded number of unhealthy machines (total: ${e.expectedMachines}, unhealthy: ${e.unhealthyCount}, maxUnhealthy: ${maxUnhealthy})`;
}
