/**
 * A Machine's status as the machine controller and its drain controller write it, as pure
 * functions (style example 6): conditions set as OpenShift's Machine API sets them (a condition
 * whose status, reason, severity and message are unchanged keeps its lastTransitionTime), the
 * lifecycle-hook conditions `Drainable` and `Terminable`, the phase with its error fields (set
 * only in phase Failed, cleared on every other write), what the provider reported, the instance
 * state forced to `Unknown` on failure, and `lastUpdated` moved only when something else changed.
 */
import { Machine, machineConditionTypes, machinePhases, type Condition, type ConditionSeverity, type MachinePhase, type MachineStatus } from '../../../api/machine/index.ts';
import { canonicalJson } from '../../../runtime/canonical-json.ts';
import type { EventSubject } from '../../../runtime/context.ts';
import type { DeepReadonly } from '../../../runtime/readonly.ts';
import type { MachineUpdate } from '../providers/provider.ts';

/** A condition to set; its lastTransitionTime is decided when it is set. */
export type ConditionChange = Omit<Condition, 'lastTransitionTime'>;

export const unknownInstanceState = 'Unknown';

export const conditionReasons = {
  errorCheckingProvider: 'ErrorCheckingProvider',
  instanceMissing: 'InstanceMissing',
  instanceNotCreated: 'InstanceNotCreated',
  hookPresent: 'HookPresent',
  drainError: 'DrainError',
} as const;

export function trueCondition(type: string, message?: string): ConditionChange {
  return { type, status: 'True', ...(message ? { message } : {}) };
}

export function falseCondition(type: string, reason: string, severity: ConditionSeverity, message: string): ConditionChange {
  return { type, status: 'False', reason, severity, message };
}

export function unknownCondition(type: string, reason: string, message: string): ConditionChange {
  return { type, status: 'Unknown', reason, message };
}

const sameState = (a: DeepReadonly<Condition>, b: ConditionChange): boolean =>
  a.status === b.status && (a.reason ?? '') === (b.reason ?? '') && (a.severity ?? '') === (b.severity ?? '') && (a.message ?? '') === (b.message ?? '');

/** The conditions with `change` set: kept as they were when nothing about it changed, else stamped `now`. */
export function setCondition(conditions: readonly DeepReadonly<Condition>[] | undefined, change: ConditionChange, now: string): Condition[] {
  const list = (conditions ?? []).map((c) => ({ ...c }) as Condition);
  const i = list.findIndex((c) => c.type === change.type);
  if (i >= 0 && sameState(list[i]!, change)) return list;
  const next = { ...change, lastTransitionTime: now } as Condition;
  if (i >= 0) list[i] = next;
  else list.push(next);
  return list;
}

/**
 * The Machine as an Event's subject: objects from a list (the cache) carry no kind or apiVersion,
 * and without them `kubectl describe machine` would not find its Events.
 */
export function eventSubject(m: DeepReadonly<Machine>): EventSubject {
  return { apiVersion: Machine.apiVersion, kind: Machine.kind, metadata: m.metadata };
}

export function findCondition(machine: DeepReadonly<Machine>, type: string): DeepReadonly<Condition> | undefined {
  return machine.status?.conditions?.find((c) => c.type === type);
}

const hookNames = (hooks: readonly DeepReadonly<{ name: string; owner: string }>[] | undefined): string =>
  `[${(hooks ?? []).map((h) => `{Name:${h.name} Owner:${h.owner}}`).join(' ')}]`;

/** Drainable and Terminable: False with reason HookPresent, naming the hooks, while any is present. */
export function lifecycleHookConditions(machine: DeepReadonly<Machine>): ConditionChange[] {
  const preDrain = machine.spec?.lifecycleHooks?.preDrain ?? [];
  const preTerminate = machine.spec?.lifecycleHooks?.preTerminate ?? [];
  return [
    preDrain.length > 0
      ? falseCondition(machineConditionTypes.drainable, conditionReasons.hookPresent, 'Warning', `Drain operation currently blocked by: ${hookNames(preDrain)}`)
      : trueCondition(machineConditionTypes.drainable),
    preTerminate.length > 0
      ? falseCondition(machineConditionTypes.terminable, conditionReasons.hookPresent, 'Warning', `Terminate operation currently blocked by: ${hookNames(preTerminate)}`)
      : trueCondition(machineConditionTypes.terminable),
  ];
}

export interface StatusChange {
  /** The phase to be in; unset keeps the phase and the error fields as they are (the drain controller's writes). */
  readonly phase?: MachinePhase;
  /** In phase Failed: why. A reason only when the provider named one. */
  readonly failure?: { readonly reason?: string; readonly message: string };
  readonly conditions?: readonly ConditionChange[];
  /** What the provider reported: addresses and providerStatus. */
  readonly update?: MachineUpdate;
}

const withoutLastUpdated = (s: DeepReadonly<MachineStatus> | undefined): unknown => {
  const { lastUpdated: _ignored, ...rest } = s ?? {};
  return rest;
};

/** The status `change` makes of `machine`'s, stamped `now` (an RFC 3339 time) where it moves. */
export function nextStatus(machine: DeepReadonly<Machine>, status: DeepReadonly<MachineStatus> | undefined, change: StatusChange, now: string): MachineStatus {
  const next = structuredClone((status ?? {}) as MachineStatus);
  let conditions = next.conditions;
  for (const c of [...(change.conditions ?? []), ...lifecycleHookConditions(machine)]) conditions = setCondition(conditions, c, now);
  next.conditions = conditions;
  if (change.update?.addresses) next.addresses = change.update.addresses.map((a) => ({ ...a }));
  if (change.update?.providerStatus) next.providerStatus = structuredClone(change.update.providerStatus) as MachineStatus['providerStatus'];
  if (change.phase !== undefined) {
    next.phase = change.phase;
    delete next.errorReason;
    delete next.errorMessage;
    if (change.phase === machinePhases.failed && change.failure) {
      if (change.failure.reason) next.errorReason = change.failure.reason;
      next.errorMessage = change.failure.message;
    }
  }
  if (next.phase === machinePhases.failed && next.providerStatus) {
    // The instance's state is no longer known: AWS, GCP and vSphere say instanceState, Azure vmState.
    const ps = next.providerStatus as Record<string, unknown>;
    for (const key of ['instanceState', 'vmState']) if (typeof ps[key] === 'string') ps[key] = unknownInstanceState;
  }
  if (canonicalJson(withoutLastUpdated(next)) !== canonicalJson(withoutLastUpdated(status))) next.lastUpdated = now;
  return next;
}
